package cpu

import (
	"fmt"
	"math"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

func init() {
	Register(ops.BatchNorm, viaFloat32Inputs(batchNormKernel))
}

// batchNormKernel folds each channel's statistics and affine parameters
// into out = x·scale + shift (computed in float64, as torch folds them in
// its accumulate type) and applies them plane by plane. out may alias x.
func batchNormKernel(out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
	a, err := ops.AttrsAs[ops.BatchNormAttrs]("batch_norm", attrs)
	if err != nil {
		return err
	}
	want := 3 + b2i(a.HasWeight) + b2i(a.HasBias)
	if err := checkInputs("batch_norm", ins, want); err != nil {
		return err
	}
	x := ins[0]
	if len(x.Shape) < 2 {
		return fmt.Errorf("batch_norm: expected an input of shape [N, C, ...], got %v", x.Shape)
	}
	n, c := x.Shape[0], x.Shape[1]
	inner := 1
	for _, s := range x.Shape[2:] {
		inner *= s
	}
	scale, shift := make([]float64, c), make([]float64, c)
	mean, variance := ins[1], ins[2]
	next := 3
	var weight, bias *tensor.Dense
	if a.HasWeight {
		weight, next = ins[next], next+1
	}
	if a.HasBias {
		bias = ins[next]
	}
	for ch := range c {
		s := 1 / math.Sqrt(variance.At(ch)+a.Eps)
		if weight != nil {
			s *= weight.At(ch)
		}
		sh := -mean.At(ch) * s
		if bias != nil {
			sh += bias.At(ch)
		}
		scale[ch], shift[ch] = s, sh
	}
	switch out.DType {
	case tensor.Float32:
		batchNormApply(castTo(x, tensor.Float32).F32(), out.F32(), n, c, inner, scale, shift)
	case tensor.Float64:
		batchNormApply(castTo(x, tensor.Float64).F64(), out.F64(), n, c, inner, scale, shift)
	default:
		return fmt.Errorf("batch_norm: no kernel for %s", out.DType)
	}
	return nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func batchNormApply[T float32 | float64](x, out []T, n, c, inner int, scale, shift []float64) {
	forPlanes(n*c, inner, func(p int) {
		ch := p % c
		s, sh := T(scale[ch]), T(shift[ch])
		affineRow(out[p*inner:(p+1)*inner], x[p*inner:(p+1)*inner], s, sh)
	})
}
