package torch_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/backend/torch"
	"github.com/tref-lang/tref/runtime/placement"
	"github.com/tref-lang/tref/runtime/placement/trace"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/stdlib"
)

// TestExamplesOnPlane: the offload examples with attention print on the
// CUDA data plane (over the fake runtime, libtorch's CPU kernels run
// into the plane's memory by tt_op_into) exactly what they print on
// torch:cpu, where each op makes its own result; attention and relu
// write the plane's output directly.
func TestExamplesOnPlane(t *testing.T) {
	lib, err := torch.Load("")
	if err != nil {
		if os.Getenv("TREF_REQUIRE_TORCH") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	run := func(name, dev string) string {
		t.Helper()
		ex, err := placement.NewExecutor(placement.Config{Device: dev, Trace: trace.NewRecorder()})
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		rt := refs.New(ex, refs.Options{Lookahead: refs.DefaultLookahead})
		in := eval.NewInterpreter(eval.Config{RT: rt, Universe: stdlib.Universe(), Stdout: &out})
		err = in.RunFile("../../../examples/offload/" + name + ".tr")
		in.Close()
		if ferr := rt.Flush(); err == nil {
			err = ferr
		}
		if cerr := ex.(*placement.Engine).Close(); err == nil {
			err = cerr
		}
		if err != nil {
			t.Fatalf("%s on %s: %v", name, dev, err)
		}
		return out.String()
	}
	for _, name := range []string{"transformer", "embedding"} {
		want := run(name, "torch:cpu")
		before := lib.IntoOpStats()
		got := run(name, "torchfake:0")
		after := lib.IntoOpStats()
		if got != want {
			t.Errorf("%s on the plane printed\n%s\ntorch:cpu printed\n%s", name, got, want)
		}
		for _, op := range []string{"attention", "relu"} {
			d := after[op].Sub(before[op])
			if d.Direct == 0 || d.Copied != 0 {
				t.Errorf("%s: %s wrote directly %d times and was copied %d times", name, op, d.Direct, d.Copied)
			}
		}
	}
}
