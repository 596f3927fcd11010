package main

import (
	"path/filepath"
	"testing"

	"github.com/tref-lang/tref/runtime/placement/trace"
	"github.com/tref-lang/tref/runtime/refs"
)

// knownMisses are the time goals that flow does not meet, by workload,
// with why. Each is reported, not failed, and fails once it is met, so
// that it leaves this list.
var knownMisses = map[string]string{
	// Flow takes 1.44x at every budget from 32 MiB to 32.5 MiB - 1 B and
	// 1.08-1.10x just outside (tref trace --device sim --sim-flops 4T
	// --mem N examples/offload/embedding.tr): at the top of the block
	// its prefetch of w1 waits for activations to die instead of
	// evicting a weight used in the next step, arrives late, and w2
	// misses. Before scalars travelled as kernel arguments, their 4-byte
	// tensors (32 bytes live at that point) moved the band to 32 MiB +
	// 32 B, just above this budget (1.09x at 32 MiB, 1.45x at 32 MiB +
	// 32 B); issue 16 asks for flow within 1.05x of the optimum.
	"c": "flow's band of 1.44x at budgets of 32 MiB to 32.5 MiB",
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
