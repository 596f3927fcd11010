package ops

import (
	"fmt"

	"github.com/tref-lang/tref/runtime/tensor"
)

// scatter_reduce(x, index, src) as torch 1.13's Tensor.scatter_reduce
// (and ONNX's ScatterElements and ScatterND reductions): x with each of
// src's elements combined into the element index names along Dim, as
// scatter_add places them (src has x's rank, index no dimension larger
// than src's, nor than x's but along Dim). Reduce is one of
//
//   - "sum", "prod": the sum or product of the values;
//   - "mean": their mean (integers: floor division, as torch);
//   - "amax", "amin": their maximum or minimum (NaN wins, as torch).
//
// With IncludeSelf the values are x's element and the src elements
// scattered to it; without, only those src elements (x's element stays
// where nothing is scattered). Elements nothing is scattered to keep x's.

// ScatterReduceAttrs are the attributes of scatter_reduce.
type ScatterReduceAttrs struct {
	Dim         int
	Reduce      string
	IncludeSelf bool
}

// ScatterReduce takes ScatterReduceAttrs.
var ScatterReduce = Register(&Def{Name: "scatter_reduce", Infer: inferScatterReduce, Inplace: []int{0}})

// ScatterReductions are the values of ScatterReduceAttrs.Reduce.
var ScatterReductions = []string{"sum", "prod", "mean", "amax", "amin"}

// scatterReduceAttrs reads the attributes and checks the reduction.
func scatterReduceAttrs(attrs any) (ScatterReduceAttrs, error) {
	a, err := AttrsAs[ScatterReduceAttrs]("scatter_reduce", attrs)
	if err != nil {
		return a, err
	}
	for _, r := range ScatterReductions {
		if a.Reduce == r {
			return a, nil
		}
	}
	return a, fmt.Errorf(`scatter_reduce: reduce must be "sum", "prod", "mean", "amax" or "amin", got %q`, a.Reduce)
}

func inferScatterReduce(in []tensor.Meta, attrs any) (tensor.Meta, error) {
	a, err := scatterReduceAttrs(attrs)
	if err != nil {
		return tensor.Meta{}, err
	}
	return inferScatter("scatter_reduce")(in, DimAttrs{Dim: a.Dim})
}
