package eval_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tref-lang/tref/lang/ast"
	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/lang/pos"
	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/stdlib"
)

// Limits of one fuzzed run: a wall-clock budget after which the
// interpreter is interrupted, the host memory tensors may take, and the
// output kept.
const (
	fuzzBudget   = 50 * time.Millisecond
	fuzzHostMem  = 1 << 20
	fuzzMaxPrint = 1 << 16
)

// FuzzEval parses, resolves and runs arbitrary source under tight limits
// and checks that the interpreter never panics (its internal-error
// recovery counts as a failure: it means a bug), that every error carries
// a position inside the source, and that no tensor is alive afterwards.
// Seeds: every chunk of the conformance scripts and the examples, and
// programs of the random program generator (gen_test.go).
func FuzzEval(f *testing.F) {
	for _, src := range fuzzSeeds(f) {
		f.Add(src)
	}
	for seed := range uint64(40) {
		f.Add([]byte(newGen(seed).program()))
	}
	for _, src := range edgeSeeds {
		f.Add([]byte(src))
	}
	dir := f.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "helper.tr"), []byte("let k = 3\nfn twice(x) { return x * 2 }\n"), 0o644); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		checkEval(t, filepath.Join(dir, "f.tr"), src)
	})
}

// checkEval runs src as the file path and fails t on a panic, an internal
// error, an unpositioned error or a leaked ref.
func checkEval(t *testing.T, path string, src []byte) {
	t.Helper()
	rt := refs.New(&cpu.Device{}, refs.Options{Lookahead: 8, TrackRefs: true})
	rt.HostPool().Limit = fuzzHostMem
	out := &cappedWriter{max: fuzzMaxPrint}
	in := eval.NewInterpreter(eval.Config{RT: rt, Universe: fuzzUniverse(), Stdout: out})
	timer := time.AfterFunc(fuzzBudget, in.Interrupt)
	err := in.RunSource(path, src)
	timer.Stop()
	in.Close()
	if err != nil {
		checkPositioned(t, path, src, err)
	}
	if n := rt.LiveRefs(); n != 0 {
		var where []string
		for _, r := range rt.Leaks() {
			where = append(where, r.String()+" from "+r.Site().Pos.String())
		}
		t.Fatalf("%d refs alive after the run (error: %v):\n%s", n, err, strings.Join(where, "\n"))
	}
}

// checkPositioned fails t unless err is a static or runtime error whose
// every position lies in a file of the run, and none is internal.
func checkPositioned(t *testing.T, path string, src []byte, err error) {
	t.Helper()
	if strings.Contains(err.Error(), "internal error") || strings.Contains(err.Error(), "internal parser error") {
		t.Fatalf("internal error:\n%v", err)
	}
	var (
		pl pos.ErrorList
		ee *eval.Error
		at []ast.Pos
	)
	switch {
	case errors.As(err, &pl):
		for _, e := range pl {
			at = append(at, e.Pos)
		}
	case errors.As(err, &ee):
		at = append(at, ee.Pos)
		for _, fr := range ee.Stack {
			at = append(at, fr.Pos)
		}
	default:
		t.Fatalf("error of type %T is not positioned: %v", err, err)
	}
	lines := pos.Endings(src) + 1
	for _, p := range at {
		if p.Line < 1 || p.Col < 1 {
			t.Fatalf("error at invalid position %+v: %v", p, err)
		}
		if p.File == path && p.Line > lines {
			t.Fatalf("error at line %d of a %d-line file: %v", p.Line, lines, err)
		}
		if p.File != path && filepath.Base(p.File) != "helper.tr" {
			t.Fatalf("error positioned in unknown file %q: %v", p.File, err)
		}
	}
}

// edgeSeeds hold values at the edges (the int64 extremes, empty tensors
// and strings, inf and nan, deep nesting) for the mutator to combine.
var edgeSeeds = []string{
	"let big = 9223372036854775807\nlet small = -big - 1\nprint([1, 2, 3][small:big:big], [1][::small], range(small, -1)[::-1])",
	"print(arange(10)[::-9223372036854775807 - 1], len(range(-9223372036854775807 - 1, 0)), range(5)[9223372036854775807:])",
	"print(1e38 * 10, -(0.0 / 0.0), 2 ** 62 * 4, (-9223372036854775807 - 1) // -1, 7 % -1, 1.0 // 0, 0 ** 0)",
	"print(\"日本\"[::-1], len(\"\"), \"\"[0:0], \"a\" + str([\"b\", {c: none}]))",
	"let t = zeros([0, 3])\nprint(t.sum(dim=0), t.T, t[0:0], t.reshape([3, 0]), len(t), t.mean())",
	"print(((((((1)))))), [[[[[]]]]], {a: {b: {c: [fn(x) => x]}}}.a.b.c[0](3))",
	"let big = 9223372036854775807\nprint(-big - 1 in range(-big - 1, big, big), big in range(big, 0, -1), 1e30 in range(big), 3 in range(0, 10, -big - 1))",
	"let t = tensor([1.0, 2.0])\nprint(sum([t, 1, t], start=t), max([t[0], 3, t[1]], key=fn(v) => -v), t in [[t]], [t] in [[t]], all(range(1, 4)), min(\"\", default=none))",
	"let x = tensor([[1.5, -2.0], [0.0, 1e-30]])\nprint(x @ x.T, x.max(dim=1), x.argmax(), x[-1, -1], x[:, ::-1], x > 0)",
	"fn f(n) { if n == 0 { return [] } return f(n - 1) + [n] }\nprint(f(50)[-3:], len(f(300)))",
}

// fuzzUniverse is stdlib's builtins without file access: load and save
// fail, so that fuzzed programs cannot read or write files.
func fuzzUniverse() map[string]*eval.Builtin {
	u := map[string]*eval.Builtin{}
	for k, v := range stdlib.Universe() {
		u[k] = v
	}
	for _, name := range []string{"load", "save"} {
		u[name] = &eval.Builtin{Name: name, Fn: func(*eval.Thread, *eval.Builtin, []eval.Value, []eval.Kwarg) (eval.Value, error) {
			return nil, fmt.Errorf("%s is disabled while fuzzing", name)
		}}
	}
	return u
}

// fuzzSeeds returns the chunks of spec/*.tr (split at "---" lines) and
// the examples.
func fuzzSeeds(t testing.TB) [][]byte {
	var seeds [][]byte
	files, _ := filepath.Glob(filepath.Join("..", "..", "spec", "*.tr"))
	more, _ := filepath.Glob(filepath.Join("..", "..", "examples", "*.tr"))
	more2, _ := filepath.Glob(filepath.Join("..", "..", "examples", "*", "*.tr"))
	files = append(append(files, more...), more2...)
	if len(files) == 0 {
		t.Fatal("no seed scripts found")
	}
	for _, name := range files {
		seeds = append(seeds, chunksOf(t, name)...)
	}
	return seeds
}

// cappedWriter keeps at most max bytes and drops the rest.
type cappedWriter struct {
	buf bytes.Buffer
	max int
}

func (w *cappedWriter) Write(p []byte) (int, error) {
	if room := w.max - w.buf.Len(); room > 0 {
		w.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
