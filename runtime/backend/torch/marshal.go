package torch

import (
	"math"
	"slices"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// marshal turns an op's attributes into the integer and float arrays that
// tt_op reads (the layouts are documented next to each op in
// csrc/tref_torch.cpp). ok is false when the attributes are of a kind this
// backend does not know; the op then runs on the host.
func marshal(op *refs.Op) (ia []int64, fa []float64, ok bool) {
	switch a := deref(op.Attrs).(type) {
	case nil:
		return nil, nil, true
	case ops.ScalarOperand:
		// ia: the scalar's dtype, 1 when it is the first operand, its
		// integer value; fa: its float value (tt_scalar_operands).
		v := a.Value
		if !holds(v.DType) {
			return nil, nil, false
		}
		return []int64{int64(v.DType), b2i(a.Left), v.Int()}, []float64{v.Float()}, true
	case ops.ReduceAttrs:
		ia = []int64{b2i(a.Keepdim), int64(a.Correction)}
		dims := a.Dims
		if op.Op == ops.Logsumexp {
			// at::logsumexp reads no dims as none, not as every dim.
			var err error
			if dims, err = ops.ReduceDims(a.Dims, len(op.Inputs[0].Shape())); err != nil {
				return nil, nil, false
			}
		}
		return append(ia, ints(dims)...), nil, true
	case ops.CastAttrs:
		return []int64{int64(a.To)}, nil, true
	case ops.ClampAttrs:
		return []int64{b2i(a.HasMin), b2i(a.HasMax)}, []float64{a.Min, a.Max}, true
	case ops.IndexAttrs:
		return index(nil, op.Inputs[0].Shape(), a.Items)
	case ops.IndexBackwardAttrs:
		// The indexed tensor's rank and shape, then the index into it.
		return index(ints(a.Shape), a.Shape, a.Items)
	case ops.ReshapeAttrs:
		return ints(a.Shape), nil, true
	case ops.PermuteAttrs:
		return ints(a.Dims), nil, true
	case ops.ExpandAttrs:
		return ints(a.Shape), nil, true
	case ops.CatAttrs:
		return []int64{int64(a.Dim)}, nil, true
	case ops.SoftmaxAttrs:
		return []int64{int64(a.Dim)}, nil, true
	case ops.NormAttrs:
		return []int64{b2i(a.HasWeight), b2i(a.HasBias)}, []float64{a.Eps}, true
	case ops.DropoutAttrs:
		return nil, []float64{a.P}, true
	case ops.CrossEntropyAttrs:
		return []int64{int64(a.IgnoreIndex)}, nil, true
	case ops.Conv2dAttrs:
		return conv2d(a), nil, true
	case ops.Pool2dAttrs:
		return []int64{int64(a.Kernel[0]), int64(a.Kernel[1]), int64(a.Stride[0]), int64(a.Stride[1]),
			int64(a.Padding[0]), int64(a.Padding[1]), int64(a.Dilation[0]), int64(a.Dilation[1]), b2i(a.CeilMode)}, nil, true
	case ops.RoundAttrs:
		return []int64{int64(a.Decimals)}, nil, true
	case ops.LeakyReluAttrs:
		return nil, []float64{a.NegativeSlope}, true
	case ops.EluAttrs:
		return nil, []float64{a.Alpha}, true
	case ops.SoftplusAttrs:
		return nil, []float64{a.Beta, a.Threshold}, true
	case ops.NanToNumAttrs:
		return []int64{b2i(a.HasPosInf), b2i(a.HasNegInf)}, []float64{a.Nan, a.PosInf, a.NegInf}, true
	case ops.TriluAttrs:
		return []int64{int64(a.Diagonal), b2i(a.Upper)}, nil, true
	case ops.PolygammaAttrs:
		return []int64{int64(a.N)}, nil, true
	case ops.QRAttrs:
		return []int64{b2i(a.Complete)}, nil, true
	case ops.EighAttrs:
		return []int64{b2i(a.Upper)}, nil, true
	case ops.SVDAttrs:
		return []int64{b2i(a.Full)}, nil, true
	case ops.PinvAttrs:
		return []int64{b2i(a.Hermitian)}, []float64{a.Atol, a.Rtol}, true
	case ops.LUAttrs:
		return []int64{b2i(a.Check)}, nil, true
	case ops.TriangularAttrs:
		return []int64{b2i(a.Upper), b2i(a.Unit)}, nil, true
	case ops.SearchsortedAttrs:
		return []int64{b2i(a.Right)}, nil, true
	case ops.ScanAttrs:
		return []int64{int64(a.Dim)}, nil, true
	case ops.SortAttrs:
		return []int64{int64(a.Dim), b2i(a.Descending)}, nil, true
	case ops.VectorNormAttrs:
		dims, err := ops.ReduceDims(a.Dims, len(op.Inputs[0].Shape()))
		if err != nil {
			return nil, nil, false
		}
		return append([]int64{b2i(a.Keepdim)}, ints(dims)...), []float64{a.P}, true
	case ops.DimAttrs:
		return []int64{int64(a.Dim)}, nil, true
	case ops.OneHotAttrs:
		return []int64{int64(a.NumClasses)}, nil, true
	case ops.FullAttrs:
		// ia: the value's dtype, its integer value, the shape's rank and dims; fa:
		// its float value.
		v := a.Value
		if !holds(v.DType) {
			return nil, nil, false
		}
		return append([]int64{int64(v.DType), v.Int()}, ints(a.Shape)...), []float64{v.Float()}, true
	case ops.ScatterReduceAttrs:
		r := slices.Index(ops.ScatterReductions, a.Reduce)
		if r < 0 {
			return nil, nil, false
		}
		return []int64{int64(a.Dim), int64(r), b2i(a.IncludeSelf)}, nil, true
	case ops.AttentionAttrs:
		scale := a.Scale
		if !a.HasScale {
			q := op.Inputs[0].Shape()
			scale = 1 / math.Sqrt(float64(q[len(q)-1]))
		}
		return []int64{b2i(a.Causal)}, []float64{scale}, true
	}
	return marshalNN(op.Attrs)
}

// deref accepts attributes passed by value or by pointer.
func deref(a any) any {
	switch p := a.(type) {
	case *ops.ScalarOperand:
		return *p
	case *ops.ReduceAttrs:
		return *p
	case *ops.CastAttrs:
		return *p
	case *ops.ClampAttrs:
		return *p
	case *ops.IndexAttrs:
		return *p
	case *ops.ReshapeAttrs:
		return *p
	case *ops.PermuteAttrs:
		return *p
	case *ops.ExpandAttrs:
		return *p
	case *ops.CatAttrs:
		return *p
	case *ops.SoftmaxAttrs:
		return *p
	case *ops.NormAttrs:
		return *p
	case *ops.DropoutAttrs:
		return *p
	case *ops.CrossEntropyAttrs:
		return *p
	case *ops.Conv2dAttrs:
		return *p
	case *ops.Pool2dAttrs:
		return *p
	case *ops.RoundAttrs:
		return *p
	case *ops.LeakyReluAttrs:
		return *p
	case *ops.EluAttrs:
		return *p
	case *ops.SoftplusAttrs:
		return *p
	case *ops.NanToNumAttrs:
		return *p
	case *ops.TriluAttrs:
		return *p
	case *ops.PolygammaAttrs:
		return *p
	case *ops.QRAttrs:
		return *p
	case *ops.EighAttrs:
		return *p
	case *ops.SVDAttrs:
		return *p
	case *ops.PinvAttrs:
		return *p
	case *ops.LUAttrs:
		return *p
	case *ops.TriangularAttrs:
		return *p
	case *ops.SearchsortedAttrs:
		return *p
	case *ops.ScanAttrs:
		return *p
	case *ops.SortAttrs:
		return *p
	case *ops.VectorNormAttrs:
		return *p
	case *ops.DimAttrs:
		return *p
	case *ops.FullAttrs:
		return *p
	case *ops.OneHotAttrs:
		return *p
	case *ops.ScatterReduceAttrs:
		return *p
	case *ops.AttentionAttrs:
		return *p
	}
	return a
}

// ints writes a count followed by the values, the layout of dims lists.
func ints[T ~[]int](v T) []int64 {
	out := make([]int64, 0, len(v)+1)
	out = append(out, int64(len(v)))
	for _, x := range v {
		out = append(out, int64(x))
	}
	return out
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// index appends to ia the index items resolved against shape, as
// tref_torch.cpp's index_view reads them: the count of dimensions, then
// keep, start, count and step for each.
func index(ia []int64, shape tensor.Shape, items []ops.IndexItem) ([]int64, []float64, bool) {
	rs, err := ops.ResolveIndex(shape, items)
	if err != nil {
		return nil, nil, false
	}
	ia = append(ia, int64(len(rs)))
	for _, r := range rs {
		ia = append(ia, b2i(r.Keep), int64(r.Start), int64(r.Len), int64(r.Step))
	}
	return ia, nil, true
}

// conv2d lays out a conv2d's attributes: stride h w, pad_lo h w, pad_hi
// h w, dilation h w, groups.
func conv2d(a ops.Conv2dAttrs) []int64 {
	return []int64{int64(a.Stride[0]), int64(a.Stride[1]), int64(a.PadLo[0]), int64(a.PadLo[1]),
		int64(a.PadHi[0]), int64(a.PadHi[1]), int64(a.Dilation[0]), int64(a.Dilation[1]), int64(a.Groups)}
}
