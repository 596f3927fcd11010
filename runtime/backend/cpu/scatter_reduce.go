package cpu

import (
	"fmt"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// The kernel of scatter_reduce (runtime/ops/scatter_reduce.go): x copied,
// then src's elements combined in order into the positions index names;
// without include_self the first value scattered to a position replaces
// x's element. mean divides by the count at the end (floor division for
// integers). float16 and bfloat16 reduce in float32.

func init() {
	Register(ops.ScatterReduce, scatterReduceKernel)
}

// scatterReducible are the dtypes scatter_reduce computes in directly.
type scatterReducible interface {
	~float32 | ~float64 | ~int64 | ~int32 | ~int16 | ~int8 | ~uint8
}

func scatterReduceKernel(out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
	if err := checkInputs("scatter_reduce", ins, 3); err != nil {
		return err
	}
	x, idx, src := ins[0], ins[1], ins[2]
	a, err := ops.AttrsAs[ops.ScatterReduceAttrs]("scatter_reduce", attrs)
	if err != nil {
		return err
	}
	dim, w, err := beginScatter(out, x, idx, a.Dim)
	if w == nil {
		return err
	}
	sw := newAxisWalk(idx.Shape, src.Shape, dim)
	size := asRank1(out.Shape)[dim]
	run := func(o, s *tensor.Dense) error {
		switch o.DType {
		case tensor.Float32:
			return scatterReduceT(o.F32(), s.F32(), idx.I64(), w, sw, dim, size, a, meanFloat[float32])
		case tensor.Float64:
			return scatterReduceT(o.F64(), s.F64(), idx.I64(), w, sw, dim, size, a, meanFloat[float64])
		case tensor.Int64:
			return scatterReduceT(o.I64(), s.I64(), idx.I64(), w, sw, dim, size, a, meanInt[int64])
		case tensor.Int32:
			return scatterReduceT(o.I32(), s.I32(), idx.I64(), w, sw, dim, size, a, meanInt[int32])
		case tensor.Int16:
			return scatterReduceT(o.I16(), s.I16(), idx.I64(), w, sw, dim, size, a, meanInt[int16])
		case tensor.Int8:
			return scatterReduceT(o.I8(), s.I8(), idx.I64(), w, sw, dim, size, a, meanInt[int8])
		case tensor.Uint8:
			return scatterReduceT(o.U8(), s.U8(), idx.I64(), w, sw, dim, size, a, meanInt[uint8])
		}
		return fmt.Errorf("scatter_reduce has no cpu kernel for %v", o.DType)
	}
	if isHalf(out.DType) {
		return viaFloat32(out, func(tmp *tensor.Dense) error {
			castInto(tmp, out)
			return run(tmp, castTo(src, tensor.Float32))
		})
	}
	return run(out, src)
}

// scatterReduceT combines src into o at the positions idx names, in order.
func scatterReduceT[T scatterReducible](o, src []T, idx []int64, w, sw *axisWalk, dim, size int, a ops.ScatterReduceAttrs, mean func(T, int32) T) error {
	var combine func(T, T) T
	switch a.Reduce {
	case "sum", "mean":
		combine = func(p, v T) T { return p + v }
	case "prod":
		combine = func(p, v T) T { return p * v }
	case "amax":
		combine = func(p, v T) T { return max(p, v) }
	case "amin":
		combine = func(p, v T) T { return min(p, v) }
	default:
		return fmt.Errorf("scatter_reduce: unknown reduction %q", a.Reduce)
	}
	// count[p] is how many values position p combines; 0 where nothing was
	// scattered (x's element is kept as is).
	count := make([]int32, len(o))
	for row := range w.outer * w.n {
		o1, k := row/w.n, row%w.n
		base := w.outerOff(o1)
		sbase := sw.outerOff(o1) + k*sw.dimStride
		p := row * w.inner
		for j, ioff := range w.innerOff {
			v := idx[p+j]
			if v < 0 || v >= int64(size) {
				return indexError(v, dim, size)
			}
			at := base + int(v)*w.dimStride + ioff
			s := src[sbase+sw.innerOff[j]]
			switch {
			case count[at] > 0:
				o[at] = combine(o[at], s)
			case a.IncludeSelf:
				o[at] = combine(o[at], s)
				count[at] = 1
			default:
				o[at] = s
			}
			count[at]++
		}
	}
	if a.Reduce == "mean" {
		for i, n := range count {
			if n > 1 {
				o[i] = mean(o[i], n)
			}
		}
	}
	return nil
}

// meanFloat is sum/n.
func meanFloat[T ~float32 | ~float64](sum T, n int32) T { return sum / T(n) }

// meanInt is sum/n rounded toward minus infinity, as torch's floor division.
func meanInt[T ~int64 | ~int32 | ~int16 | ~int8 | ~uint8](sum T, n int32) T {
	q := sum / T(n)
	if sum%T(n) != 0 && sum < 0 {
		q--
	}
	return q
}
