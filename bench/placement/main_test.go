package main

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/tref-lang/tref/runtime/placement/trace"
	"github.com/tref-lang/tref/runtime/refs"
)

// knownMisses are the time goals that flow does not meet, by workload,
// with why. Each is reported, not failed, and fails once it is met, so
// that it leaves this list.
var knownMisses = map[string]string{
	// None since (c) at 32 MiB met its goal (1.13x -> 1.08x bound) when a
	// prefetch broke Belady's order for a delay of the window's ops above
	// a third of the victim's copy time (queueDiv in
	// runtime/placement/flow.go).
}

// TestFlowMeetsGoals runs the offload workloads under flow on the sim and
// checks the placement goals: within 1.10x of bound_ns and 1.05x of
// belady_bytes on each. Times are the sim's virtual clock, computed from
// the cost model, so they are the same on every machine and every run:
// this is a check of the engine's decisions, not of the host's speed.
func TestFlowMeetsGoals(t *testing.T) {
	for _, w := range workloads {
		t.Run(w.id, func(t *testing.T) {
			tot, err := run(filepath.Join("..", "..", "examples", "offload", w.file), w.mem, "flow", refs.DefaultLookahead, benchFlops)
			if err != nil {
				t.Fatal(err)
			}
			r := trace.Ratio(tot.TimeNs, tot.BoundNs)
			switch why, known := knownMisses[w.id]; {
			case r > 1.10 && known:
				t.Logf("(%s) known miss: time_ns / bound_ns = %.3f, want <= 1.10: %s", w.id, r, why)
			case r > 1.10:
				t.Errorf("(%s) %s: time_ns / bound_ns = %.3f (%d / %d), want <= 1.10", w.id, w.what, r, tot.TimeNs, tot.BoundNs)
			case known:
				t.Errorf("(%s) the time goal is met now (%.3f): remove it from knownMisses", w.id, r)
			}
			if r := trace.Ratio(tot.BytesH2D+tot.BytesD2H, tot.BeladyBytes); r > 1.05 {
				t.Errorf("(%s) %s: bytes / belady_bytes = %.3f (%d / %d), want <= 1.05", w.id, w.what, r, tot.BytesH2D+tot.BytesD2H, tot.BeladyBytes)
			}
		})
	}
}

// optimumNs is the offline optimum's best schedule found (opt_ns of
// `go run ./bench/placement -optimal` at bdf0258, deterministic) per
// workload at 1/8, 1/4 and 1/2 of its weights; issue 16 asks for flow
// within 1.05x of it.
var optimumNs = map[string][3]int64{
	"a": {5609444, 3207179, 3207179},
	"b": {4617954, 4617954, 4617954},
	"c": {14362575, 10849553, 10849553},
	"d": {13527362, 13527362, 13527362},
}

// TestFlowNearOptimum runs every workload under flow at 1/8, 1/4 and 1/2
// of its weights and checks its simulated time against optimumNs.
func TestFlowNearOptimum(t *testing.T) {
	if testing.Short() {
		t.Skip("12 runs of the offload workloads")
	}
	for _, w := range workloads {
		for i, frac := range []int64{8, 4, 2} {
			mem := w.weights / frac
			t.Run(fmt.Sprintf("%s/1_%d", w.id, frac), func(t *testing.T) {
				tot, err := run(filepath.Join("..", "..", "examples", "offload", w.file), mem, "flow", refs.DefaultLookahead, benchFlops)
				if err != nil {
					t.Fatal(err)
				}
				opt := optimumNs[w.id][i]
				if r := trace.Ratio(tot.TimeNs, opt); r > 1.05 {
					t.Errorf("(%s) at %d bytes: flow %d ns, %.3fx the optimum's %d ns, want <= 1.05", w.id, mem, tot.TimeNs, r, opt)
				}
			})
		}
	}
}
