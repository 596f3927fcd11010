package torch

import (
	"testing"

	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// TestPolygammaFarNegative: polygamma of order 2 or more below -64, where
// torch's zeta would sum one term per unit up to 9 (1e15 of them at the
// first value: the test would not end), agrees with cpu's, at poles and
// between them, in float64 and float32.
func TestPolygammaFarNegative(t *testing.T) {
	xs := []float64{-999999999999999.5, -1e6 - 0.25, -4096.3, -100.25, -65, -64.5, -63.75, 2.5}
	for _, dt := range []tensor.DType{f64, f32} {
		for _, n := range []int{2, 3, 4} {
			in := tensor.NewDense(m(dt, len(xs)))
			for i, v := range xs {
				in.Set(i, v)
			}
			c := opCase{op: ops.Polygamma, in: []tensor.Meta{in.Meta}, attrs: ops.PolygammaAttrs{N: n}}
			want, err := runCase(t, &cpu.Device{}, c, []*tensor.Dense{in})
			if err != nil {
				t.Fatalf("cpu: %v", err)
			}
			dev, _ := onTorch(t, 0, "", nil)
			got, err := runCase(t, dev, c, []*tensor.Dense{in})
			if err != nil {
				t.Fatalf("torch:cpu: %v", err)
			}
			if msg := agree(got, want); msg != "" {
				t.Errorf("polygamma(%d) of %s: %s", n, dt, msg)
			}
		}
	}
}
