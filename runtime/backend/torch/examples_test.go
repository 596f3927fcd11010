package torch_test

import (
	"strings"
	"testing"

	"github.com/tref-lang/tref/internal/scripttest"
	"github.com/tref-lang/tref/runtime/backend/torch"
	"github.com/tref-lang/tref/runtime/placement"
	"github.com/tref-lang/tref/runtime/placement/trace"
)

// TestExamplesOnPlane: the offload examples with attention print on the
// CUDA data plane (over the fake runtime, libtorch's CPU kernels run
// into the plane's memory by tt_op_into) exactly what they print on
// torch:cpu, where each op makes its own result; attention and relu
// write the plane's output directly.
func TestExamplesOnPlane(t *testing.T) {
	lib := torch.Plugin(t)
	run := func(name, dev string) string {
		t.Helper()
		out, _ := runExample(t, "../../../examples/offload/"+name+".tr", nil, dev, 0)
		return out
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

// runExample runs the script at path with argv on dev under a budget of
// mem bytes (0: the device's), and returns what it printed and the
// engine's totals.
func runExample(t *testing.T, path string, argv []string, dev string, mem int64) (string, *trace.Totals) {
	t.Helper()
	ex, err := placement.NewExecutor(placement.Config{Device: dev, Mem: mem, Trace: trace.NewRecorder()})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s on %s under %d bytes", path, dev, mem)
	out, _ := scripttest.Run(t, ex, path, nil, argv...)
	eng := ex.(*placement.Engine)
	tot, err := eng.Finish()
	if cerr := eng.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatalf("%s on %s under %d bytes: %v", path, dev, mem, err)
	}
	return out, tot
}

// TestTrainingOnPlane: training prints on the CUDA data plane (the fake
// runtime, libtorch's CPU kernels) exactly the losses torch:cpu prints,
// resident and under a budget that makes the engine evict activations in
// the forward pass and bring them back for the backward one; no op of
// it, forward or backward, runs on the host. The GPT of
// examples/train/gpt_offload.tr (two blocks, ten AdamW steps) and a
// small CNN (testdata/cnn_train.tr: every backward kernel of the
// convolutions, pools and pad).
func TestTrainingOnPlane(t *testing.T) {
	torch.Plugin(t)
	for _, c := range []struct {
		path string
		argv []string
		mem  int64
	}{
		{"../../../examples/train/gpt_offload.tr", []string{"2"}, 6 << 20},
		{"testdata/cnn_train.tr", nil, 80 << 10},
	} {
		want, _ := runExample(t, c.path, c.argv, "torch:cpu", 0)
		if !strings.Contains(want, "loss") {
			t.Fatalf("%s on torch:cpu printed\n%s", c.path, want)
		}
		for _, mem := range []int64{0, c.mem} {
			got, tot := runExample(t, c.path, c.argv, "torchfake:0", mem)
			if got != want {
				t.Errorf("%s under %d bytes: the plane printed\n%s\ntorch:cpu printed\n%s", c.path, mem, got, want)
			}
			t.Logf("%s under %d bytes: %d evictions, %d bytes in, %d bytes out, %d ops on the host",
				c.path, mem, tot.Evictions, tot.BytesH2D, tot.BytesD2H, tot.Fallbacks)
			if tot.Fallbacks != 0 {
				t.Errorf("%s under %d bytes: %d ops ran on the host: each op of training, backward ones too, should run on the device", c.path, mem, tot.Fallbacks)
			}
			if mem > 0 && (tot.Evictions == 0 || tot.BytesD2H == 0) {
				t.Errorf("%s under %d bytes: %d evictions, %d bytes written back: nothing was offloaded", c.path, mem, tot.Evictions, tot.BytesD2H)
			}
		}
	}
}
