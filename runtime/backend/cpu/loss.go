package cpu

import (
	"fmt"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

func init() {
	Register(ops.NllLoss, nllLossKernel)
}

// nllLossKernel computes each counted target's loss in float64 (torch
// accumulates in the input's type; the difference is within float32
// rounding) and reduces them.
func nllLossKernel(out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
	a, err := ops.AttrsAs[ops.NllLossAttrs]("nll_loss", attrs)
	if err != nil {
		return err
	}
	if len(ins) != 2+b2i(a.HasWeight) {
		return fmt.Errorf("nll_loss: got %d tensors, the attributes call for %d", len(ins), 2+b2i(a.HasWeight))
	}
	x := castDense(ins[0], tensor.Float64).F64()
	targets := nnIDs(ins[1])
	outer, classes, inner, _ := ops.CrossEntropyLayout(ins[0].Shape)
	weight := make([]float64, classes)
	for c := range weight {
		weight[c] = 1
		if a.HasWeight {
			weight[c] = ins[2].At(c)
		}
	}
	eps := a.LabelSmoothing
	var none []float64
	if a.Reduction == ops.ReduceNone {
		none = make([]float64, outer*inner)
	}
	total, weights := 0.0, 0.0
	err = eachTarget(targets, ins[1].Shape, outer, classes, inner, a.IgnoreIndex, func(o, j int, t int64) {
		plane := x[o*classes*inner : (o+1)*classes*inner]
		w := weight[t]
		loss := -w * plane[int(t)*inner+j]
		if eps != 0 {
			smooth := 0.0
			for c := range classes {
				smooth -= weight[c] * plane[c*inner+j]
			}
			loss = (1-eps)*loss + eps/float64(classes)*smooth
		}
		total += loss
		weights += w
		if none != nil {
			none[o*inner+j] = loss
		}
	})
	if err != nil {
		return err
	}
	switch a.Reduction {
	case ops.ReduceNone:
		for i, v := range none {
			out.Set(i, v)
		}
	case ops.ReduceSum:
		out.Set(0, total)
	default:
		out.Set(0, total/weights) // no counted target gives NaN, as in torch
	}
	return nil
}
