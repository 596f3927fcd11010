package torch

import (
	"testing"

	"github.com/tref-lang/tref/runtime/device"
	"github.com/tref-lang/tref/runtime/placement"
	"github.com/tref-lang/tref/runtime/placement/trace"
)

// onTorch is the placement engine over torch:cpu under a budget of mem
// bytes (0: every tensor resident) and a strategy ("" for flow), with a
// counter of its events: Count[trace.Fallback] are ops run on the host.
func onTorch(t testing.TB, mem int64, strategy string, rec *trace.Recorder) (*placement.Engine, *placement.Stats) {
	t.Helper()
	plugin(t)
	stats := placement.NewStats()
	ex, err := placement.NewExecutor(placement.Config{Device: "torch:cpu", Mem: mem, Strategy: strategy,
		Trace: rec, Middleware: []placement.Middleware{stats}})
	if err != nil {
		t.Fatal(err)
	}
	return ex.(*placement.Engine), stats
}

// TestTorchPlansWithTheGivenCost: the cost model of the configuration
// (the --sim-* flags, e.g. from tref calibrate) is the one the engine
// plans torch:cpu with.
func TestTorchPlansWithTheGivenCost(t *testing.T) {
	plugin(t)
	c := device.Cost{H2D: 1.5e9, D2H: 2.5e9, Flops: 3e10, MemBandwidth: 4e9, LatencyNs: 1500}
	ex, err := placement.NewExecutor(placement.Config{Device: "torch:cpu", Mem: 1 << 20, Cost: c})
	if err != nil {
		t.Fatal(err)
	}
	eng := ex.(*placement.Engine)
	if got := eng.Model().Cost(); got != c.WithDefaults() || eng.Model().Capacity() != 1<<20 {
		t.Fatalf("planning with %+v under %d bytes", got, eng.Model().Capacity())
	}
}
