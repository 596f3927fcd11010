package placement

import (
	"slices"
	"testing"

	"github.com/tref-lang/tref/runtime/refs"
)

// mlp runs x through layers of relu(x @ w) and returns the result.
func mlp(h *harness, layers, width, batch int, passes int) []float32 {
	var ws []*refs.Ref
	for i := range layers {
		ws = append(ws, h.host(i+1, width, width))
	}
	x := h.host(0, batch, width)
	for range passes {
		for _, w := range ws {
			y := h.opAt("mlp:1:1", "ptest_matmul", x, w)
			h.rt.Release(x)
			x = h.opAt("mlp:2:1", "ptest_relu", y)
			h.rt.Release(y)
		}
	}
	out := h.read(x)
	h.finish(append(ws, x)...)
	return out
}

func TestStrategiesMatchCPU(t *testing.T) {
	want := mlp(newHarness(t, "cpu", 0, 8), 6, 16, 4, 2)
	for _, st := range []string{"none", "genoa", "lru", "flow"} {
		t.Run(st, func(t *testing.T) {
			h := newHarness(t, st, 3*16*16*4, 8)
			got := mlp(h, 6, 16, 4, 2)
			if !slices.Equal(got, want) {
				t.Fatalf("%s: result differs from cpu", st)
			}
		})
	}
}
