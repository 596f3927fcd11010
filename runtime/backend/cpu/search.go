package cpu

import (
	"fmt"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// The kernel of searchsorted (runtime/ops/search.go): torch's binary
// search, with its comparisons, per value. Halves are searched as
// float32 and the narrow integers (but uint64) as int64, which keeps
// every order.

func init() { Register(ops.Searchsorted, searchsortedKernel) }

func searchsortedKernel(out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
	if err := checkInputs("searchsorted", ins, 2); err != nil {
		return err
	}
	a, err := ops.AttrsAs[ops.SearchsortedAttrs]("searchsorted", attrs)
	if err != nil {
		return err
	}
	sorted, values := ins[0], ins[1]
	l, err := ops.SearchsortedLayout(sorted.Shape, values.Shape)
	if err != nil {
		return err
	}
	switch dt := sorted.DType; {
	case dt == tensor.Float32:
		searchRows(out.I64(), sorted.F32(), values.F32(), l, a.Right)
	case dt == tensor.Float64:
		searchRows(out.I64(), sorted.F64(), values.F64(), l, a.Right)
	case dt == tensor.Int64:
		searchRows(out.I64(), sorted.I64(), values.I64(), l, a.Right)
	case isHalf(dt):
		searchRows(out.I64(), castTo(sorted, tensor.Float32).F32(), castTo(values, tensor.Float32).F32(), l, a.Right)
	case dt.IsInt() && dt != tensor.Uint64:
		searchRows(out.I64(), castTo(sorted, tensor.Int64).I64(), castTo(values, tensor.Int64).I64(), l, a.Right)
	default:
		return fmt.Errorf("searchsorted has no cpu kernel for %v", dt)
	}
	return nil
}

// searchRows writes, for each value of each row, where it goes in the
// row's sorted elements.
func searchRows[T number](o []int64, sorted, values []T, l ops.SearchLayout, right bool) {
	_ = parallelFor(l.Rows*l.K, func(i0, i1 int) error {
		for i := i0; i < i1; i++ {
			row := i / l.K
			o[i] = searchOne(sorted[row*l.M:(row+1)*l.M], values[i], right)
		}
		return nil
	})
}

// searchOne is torch's cus_lower_bound (or cus_upper_bound, right): the
// first place whose element is not below v (above v), NaN comparing false
// both ways as there.
func searchOne[T number](row []T, v T, right bool) int64 {
	start, end := 0, len(row)
	for start < end {
		mid := start + (end-start)>>1
		var before bool
		if right {
			before = !(row[mid] > v)
		} else {
			before = !(row[mid] >= v)
		}
		if before {
			start = mid + 1
		} else {
			end = mid
		}
	}
	return int64(start)
}
