package torch

import (
	"testing"

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
