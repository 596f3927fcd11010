package main

import (
	"testing"

	"github.com/tref-lang/tref/runtime/refs"
)

// The goal: the examples' peak memory within 1.1x of the
// theoretical minimum, with the window of pending ops (the default) and
// with every op run at once; nothing alive at the end.
func TestExamplesNearMinimum(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the example models")
	}
	for _, path := range []string{"../../examples/mlp.tr", "../../examples/transformer.tr", "unrolled.tr"} {
		for _, lookahead := range []int{0, refs.DefaultLookahead} {
			r, err := measure(path, true, lookahead, false, false, 0)
			if err != nil {
				t.Fatal(err)
			}
			if ratio(r) > 1.1 {
				t.Errorf("%s, lookahead %d: peak %d bytes is %.3fx the minimum %d", path, lookahead, r.peak, ratio(r), r.min.Bytes)
			}
			if r.liveAtEnd != 0 || r.stats.LiveBytes != 0 {
				t.Errorf("%s: %d refs, %d bytes alive at the end", path, r.liveAtEnd, r.stats.LiveBytes)
			}
		}
	}
}

// The unrolled 32-layer MLP peaks at exactly its weights and two
// activations (a matmul's input and output; relu runs in place) with
// liveness, and holds every activation without it.
func TestUnrolledExactPeak(t *testing.T) {
	const (
		weights    = 32 * 256 * 256 * 4
		activation = 512 * 256 * 4
	)
	r, err := measure("unrolled.tr", true, refs.DefaultLookahead, false, false, 0)
	if err != nil {
		t.Fatal(err)
	}
	if r.peak != weights+2*activation || r.min.Bytes != weights+2*activation {
		t.Errorf("peak %d, minimum %d; want both %d", r.peak, r.min.Bytes, weights+2*activation)
	}
	off, err := measure("unrolled.tr", false, refs.DefaultLookahead, false, false, 0)
	if err != nil {
		t.Fatal(err)
	}
	if off.peak < weights+33*activation {
		t.Errorf("without liveness the peak is %d, want at least the weights and all 33 activations (%d)",
			off.peak, weights+33*activation)
	}
	if off.liveAtEnd != 0 {
		t.Errorf("without liveness %d refs alive at the end", off.liveAtEnd)
	}
}
