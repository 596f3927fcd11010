package eval_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/refs"
)

// interruptAt is the cpu device interrupting its interpreter when the
// k-th op starts (the ops after it then fail with "interrupted").
type interruptAt struct {
	cpu.Device
	k, n int
	in   *eval.Interpreter
}

func (x *interruptAt) Execute(rt *refs.Runtime, op *refs.Op, ahead []*refs.Op) error {
	x.n++
	if x.n == x.k {
		x.in.Interrupt()
	}
	return x.Device.Execute(rt, op, ahead)
}

// TestInterruptAnywhereLeaksNothing interrupts each chunk of the
// gradient and optimizer conformance scripts at every op in turn (what
// FuzzEval's wall-clock budget does at a random one) and checks that no
// tensor is left alive and none released twice (an internal error).
func TestInterruptAnywhereLeaksNothing(t *testing.T) {
	files := []string{"autograd.tr", "optim.tr"}
	if testing.Short() {
		files = files[1:]
	}
	for _, name := range files {
		for ci, src := range chunksOf(t, filepath.Join("..", "..", "spec", name)) {
			interruptEverywhere(t, fmt.Sprintf("%s chunk %d", name, ci), src)
		}
	}
}

// TestInterruptInGradientRules interrupts gradients whose rules build on
// their own intermediates (the decompositions' gaps and diagonals, silu,
// mse, prod) at every op: a rule must stop at the first failed op, not
// read the meta of a result it did not get (FuzzEval found svd's).
func TestInterruptInGradientRules(t *testing.T) {
	src := `let a = tensor([[3.0, 1.0, 0.5], [0.0, 2.0, 1.0], [1.0, 0.0, 4.0]])
print(grad(fn(x) => svdvals(x).sum())(a))
print(grad(fn(x) => svd(x).U.sum() + svd(x).Vh.sum())(a))
print(grad(fn(x) => eigh(x + x.T).eigenvectors.sum())(a))
print(grad(fn(x) => lu(x).L.sum() + lu(x).U.sum())(a))
print(grad(fn(x) => silu(x).sum() + mse_loss(x, x.T) + x.prod(dim=0).sum())(a))
`
	interruptEverywhere(t, "gradient rules", []byte(src))
}

// interruptEverywhere runs src once for each of its ops, interrupting
// at that op (under lookaheads 0 and 8), and checks that no tensor is
// left alive and no internal error (a panic) is reported.
func interruptEverywhere(t *testing.T, what string, src []byte) {
	t.Helper()
	dir := t.TempDir()
	for k, la := 1, 0; la <= 8; k++ {
		x := &interruptAt{k: k}
		rt := refs.New(x, refs.Options{Lookahead: la, TrackRefs: true})
		in := eval.NewInterpreter(eval.Config{RT: rt, Universe: fuzzUniverse(), Stdout: &cappedWriter{max: 1 << 16}})
		x.in = in
		err := in.RunSource(filepath.Join(dir, "f.tr"), src)
		in.Close()
		if n := rt.LiveRefs(); n != 0 {
			var where []string
			for _, r := range rt.Leaks() {
				where = append(where, r.String()+" from "+r.Site().Pos.String())
			}
			t.Fatalf("%s (lookahead %d) interrupted at op %d: %d refs alive (error: %v):\n%s", what, la, k, n, err, strings.Join(where, "\n"))
		}
		if err != nil && strings.Contains(err.Error(), "internal error") {
			t.Fatalf("%s (lookahead %d) interrupted at op %d: %v", what, la, k, err)
		}
		if x.n < k || k > 400 {
			// The run had fewer ops: every point was tried.
			k, la = 0, la+8
		}
	}
}

// chunksOf splits a conformance script at its --- lines.
func chunksOf(t testing.TB, path string) [][]byte {
	var out [][]byte
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var cur []string
	for _, l := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(l) == "---" {
			out = append(out, []byte(strings.Join(cur, "\n")))
			cur = nil
			continue
		}
		cur = append(cur, l)
	}
	return append(out, []byte(strings.Join(cur, "\n")))
}
