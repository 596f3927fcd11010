package cpu

import (
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// pad copies bytes, so it serves every dtype as is (no int64 detour for
// the narrow integer widths).

func init() {
	narrowExempt[ops.Pad] = true
	Register(ops.Pad, padKernel)
	Register(ops.PadBackward, padBackwardKernel)
}

func padKernel(out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
	a, err := ops.AttrsAs[ops.PadAttrs]("pad", attrs)
	if err != nil {
		return err
	}
	if err := checkInputs("pad", ins, 1); err != nil {
		return err
	}
	x := ins[0]
	lo, _, shape, err := ops.PadLayout(x.Shape, a)
	if err != nil {
		return err
	}
	if out.Numel() == 0 {
		return nil
	}
	size := x.DType.Size()
	// fill is one element holding the constant, in the output's dtype.
	one := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{1}, DType: x.DType})
	if x.DType.IsInt() {
		one.SetInt(0, int64(a.Value))
	} else {
		one.Set(0, a.Value)
	}
	fill := one.Buf
	// src[d][o] is the input index that output index o of dimension d
	// reads, or -1 for the constant.
	rank := len(shape)
	src := make([][]int, rank)
	for d := range rank {
		src[d] = padSource(x.Shape[d], shape[d], lo[d], a.Mode)
	}
	if rank == 0 {
		copy(out.Buf, x.Buf)
		return nil
	}
	inStride := make([]int, rank)
	acc := 1
	for d := rank - 1; d >= 0; d-- {
		inStride[d] = acc
		acc *= x.Shape[d]
	}
	last := shape[rank-1]
	rows := out.Numel() / last
	rowSrc := src[rank-1]
	parallelFor(rows, func(r0, r1 int) error {
		idx := make([]int, rank-1)
		for r := r0; r < r1; r++ {
			// The multi-index of row r over the leading dimensions.
			rem, base := r, 0
			constant := false
			for d := rank - 2; d >= 0; d-- {
				idx[d] = rem % shape[d]
				rem /= shape[d]
				s := src[d][idx[d]]
				if s < 0 {
					constant = true
				}
				base += s * inStride[d]
			}
			row := out.Buf[r*last*size : (r+1)*last*size]
			for o, s := range rowSrc {
				dst := row[o*size : (o+1)*size]
				if constant || s < 0 {
					copy(dst, fill)
				} else {
					copy(dst, x.Buf[(base+s)*size:(base+s+1)*size])
				}
			}
		}
		return nil
	})
	return nil
}

// padSource maps each of the n output indices of a dimension of size in,
// padded by lo before it, to the input index it reads (-1: the constant).
func padSource(in, n, lo int, mode ops.PadMode) []int {
	src := make([]int, n)
	for o := range src {
		i := o - lo
		if i >= 0 && i < in {
			src[o] = i
			continue
		}
		switch mode {
		case ops.PadConstant:
			i = -1
		case ops.PadReflect:
			if i < 0 {
				i = -i
			} else {
				i = 2*(in-1) - i
			}
		case ops.PadReplicate:
			i = min(max(i, 0), in-1)
		case ops.PadCircular:
			i = ((i % in) + in) % in
		}
		src[o] = i
	}
	return src
}

// padBackwardKernel adds each cotangent element into the input element
// the forward pad copied it from (in float64, rounded once at the end).
func padBackwardKernel(out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
	a, err := ops.AttrsAs[ops.PadBackwardAttrs]("pad_backward", attrs)
	if err != nil {
		return err
	}
	if err := checkInputs("pad_backward", ins, 1); err != nil {
		return err
	}
	lo, _, shape, err := ops.PadLayout(a.Shape, a.Pad)
	if err != nil {
		return err
	}
	g := castTo(ins[0], tensor.Float64).F64()
	acc := make([]float64, a.Shape.Numel())
	rank := len(shape)
	src := make([][]int, rank)
	for d := range rank {
		src[d] = padSource(a.Shape[d], shape[d], lo[d], a.Pad.Mode)
	}
	idx := make([]int, rank)
	for o, v := range g {
		// The multi-index of o, last dimension fastest.
		rem, in, stride := o, 0, 1
		for d := rank - 1; d >= 0; d-- {
			idx[d] = rem % shape[d]
			rem /= shape[d]
			s := src[d][idx[d]]
			if s < 0 {
				in = -1
				break
			}
			in += s * stride
			stride *= a.Shape[d]
		}
		if in >= 0 {
			acc[in] += v
		}
	}
	for i, v := range acc {
		out.Set(i, v)
	}
	return nil
}
