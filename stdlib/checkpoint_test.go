package stdlib

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/refs"
)

// checkpointProgram differentiates 16 blocks of four 256×256 layers,
// through checkpoint or not.
const checkpointProgram = `
seed(0)
let x = randn([256, 256])
let p = {w1: randn([256, 256]) * 0.05, w2: randn([256, 256]) * 0.05}
fn block(h, w1, w2) { return tanh(relu(tanh(relu(h @ w1) @ w2) @ w1) @ w2) }
fn model(p) {
  let h = x
  for i in range(16) { h = %s(h, p.w1, p.w2) }
  return (h * h).sum()
}
let g = grad(model)(p)
print(item(g.w1.sum()))
print(item(g.w2.sum()))
`

// TestCheckpointSavesMemory: the same gradients, with the activations of
// the blocks recomputed instead of kept (the host's peak falls by more
// than half).
func TestCheckpointSavesMemory(t *testing.T) {
	run := func(call string) (string, int64) {
		rt := refs.New(&cpu.Device{}, refs.Options{Lookahead: refs.DefaultLookahead, TrackRefs: true})
		var out bytes.Buffer
		in := eval.NewInterpreter(eval.Config{RT: rt, Universe: Universe(), Stdout: &out})
		err := in.RunSource("ck.tr", []byte(fmt.Sprintf(checkpointProgram, call)))
		in.Close()
		if err != nil {
			t.Fatalf("%s: %v", call, err)
		}
		if n := rt.LiveRefs(); n != 0 {
			t.Errorf("%s: %d refs alive: %v", call, n, rt.Leaks())
		}
		return out.String(), rt.HostPool().Stats().PeakBytes
	}
	plain, plainPeak := run("block")
	ck, ckPeak := run("checkpoint(block)")
	// Equal up to the order in which the cotangents of the shared weights
	// are summed.
	ps, cs := strings.Fields(plain), strings.Fields(ck)
	if len(ps) != 2 || len(cs) != 2 {
		t.Fatalf("outputs %q and %q", plain, ck)
	}
	for i := range ps {
		p, _ := strconv.ParseFloat(ps[i], 64)
		c, _ := strconv.ParseFloat(cs[i], 64)
		if math.Abs(p-c) > 1e-5*math.Abs(p) {
			t.Errorf("gradient sums differ: %v plain, %v checkpointed", p, c)
		}
	}
	if ckPeak*2 > plainPeak {
		t.Errorf("peak %d bytes checkpointed, %d plain: want less than half", ckPeak, plainPeak)
	}
	t.Logf("peak: %d bytes plain, %d checkpointed", plainPeak, ckPeak)
}
