package placement

import (
	"github.com/tref-lang/tref/runtime/ops"
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

// TestCloseWritesBackLeaked closes the engine while the script still
// holds results only the accelerator has: Close writes them back, frees
// the device (sim's Close fails while any buffer is allocated), and the
// values read afterwards are the cpu device's; ops after Close fail, and
// a second Close does nothing.
func TestCloseWritesBackLeaked(t *testing.T) {
	results := func(h *harness) (y, z *refs.Ref) {
		x, w := h.host(1, 16, 16), h.host(2, 16, 16)
		y = h.op("ptest_matmul", x, w)
		z = h.op("ptest_relu", y)
		h.rt.Release(x)
		h.rt.Release(w)
		if err := h.rt.Flush(); err != nil {
			t.Fatal(err)
		}
		return y, z
	}
	c := newHarness(t, "cpu", 0, 8)
	cy, cz := results(c)
	wantY, wantZ := c.read(cy), c.read(cz)

	h := newHarness(t, "flow", 1<<20, 8)
	y, z := results(h)
	for _, r := range []*refs.Ref{y, z} {
		if r.Device() == "cpu" {
			t.Fatalf("ref#%d is on %s; the test wants results only the accelerator holds", r.ID(), r.Device())
		}
	}
	if _, err := h.eng.Finish(); err != nil {
		t.Fatal(err)
	}
	if err := h.eng.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if got := h.read(y); !slices.Equal(got, wantY) {
		t.Fatalf("y after Close = %v, want %v", got, wantY)
	}
	if got := h.read(z); !slices.Equal(got, wantZ) {
		t.Fatalf("z after Close = %v, want %v", got, wantZ)
	}
	if err := h.eng.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := h.rt.Submit(h.site(""), ops.MustLookup("ptest_relu"), nil, y); err == nil {
		if err = h.rt.Flush(); err == nil {
			t.Fatal("an op after Close ran")
		}
	}
}
