package main

import (
	"path/filepath"
	"testing"

	"github.com/tref-lang/tref/runtime/placement/trace"
	"github.com/tref-lang/tref/runtime/refs"
)

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
			if r := trace.Ratio(tot.TimeNs, tot.BoundNs); r > 1.10 {
				t.Errorf("(%s) %s: time_ns / bound_ns = %.3f (%d / %d), want <= 1.10", w.id, w.what, r, tot.TimeNs, tot.BoundNs)
			}
			if r := trace.Ratio(tot.BytesH2D+tot.BytesD2H, tot.BeladyBytes); r > 1.05 {
				t.Errorf("(%s) %s: bytes / belady_bytes = %.3f (%d / %d), want <= 1.05", w.id, w.what, r, tot.BytesH2D+tot.BytesD2H, tot.BeladyBytes)
			}
		})
	}
}
