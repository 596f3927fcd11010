package ops

import (
	"fmt"
	"math/bits"

	"github.com/tref-lang/tref/runtime/tensor"
)

// Searchsorted takes SearchsortedAttrs: inputs (sorted, values) of one
// dtype, sorted of shape [m] or [..., m], values of any shape when sorted
// is 1-d, else of shape [..., k] with sorted's leading dimensions. The
// result, int64 of values' shape, holds for each value the index in its
// row of sorted at which it would be inserted to keep the row sorted: the
// first place whose element is >= the value (or > it, Right), by torch's
// binary search, whose comparisons also say where NaN goes.
var Searchsorted = Register(&Def{Name: "searchsorted", Infer: inferSearchsorted, Flops: searchFlops})

// SearchsortedAttrs are the attributes of "searchsorted".
type SearchsortedAttrs struct {
	// Right inserts after the elements equal to the value, not before.
	Right bool
}

// SearchLayout is searchsorted's view of its inputs: Rows rows of sorted,
// each of M elements, and the K values searched in each row (with one
// row, every value).
type SearchLayout struct{ Rows, M, K int }

// SearchsortedLayout checks searchsorted's shapes.
func SearchsortedLayout(sorted, values tensor.Shape) (SearchLayout, error) {
	if len(sorted) == 0 {
		return SearchLayout{}, fmt.Errorf("searchsorted: the sorted sequence must have at least one dimension, got a 0-d tensor")
	}
	m := sorted[len(sorted)-1]
	if len(sorted) == 1 {
		return SearchLayout{Rows: 1, M: m, K: values.Numel()}, nil
	}
	if len(values) != len(sorted) || !values[:len(values)-1].Equal(sorted[:len(sorted)-1]) {
		return SearchLayout{}, fmt.Errorf("searchsorted: the sorted sequence must be 1-d or share all but its last dimension with the values, got shapes %v and %v", sorted, values)
	}
	return SearchLayout{Rows: sorted[:len(sorted)-1].Numel(), M: m, K: values[len(values)-1]}, nil
}

func inferSearchsorted(in []tensor.Meta, attrs any) (tensor.Meta, error) {
	if err := wantInputs("searchsorted", in, 2); err != nil {
		return tensor.Meta{}, err
	}
	if _, err := AttrsAs[SearchsortedAttrs]("searchsorted", attrs); err != nil {
		return tensor.Meta{}, err
	}
	s, v := in[0], in[1]
	if s.DType != v.DType {
		return tensor.Meta{}, fmt.Errorf("searchsorted: the sorted sequence is %v but the values are %v", s.DType, v.DType)
	}
	if s.DType == tensor.Bool {
		return tensor.Meta{}, fmt.Errorf("searchsorted: bool tensors cannot be searched")
	}
	if _, err := SearchsortedLayout(s.Shape, v.Shape); err != nil {
		return tensor.Meta{}, err
	}
	return tensor.Meta{Shape: v.Shape, DType: tensor.Int64}, nil
}

// searchFlops counts one comparison per value per halving of a row.
func searchFlops(in []tensor.Meta, out tensor.Meta, _ any) int64 {
	m := in[0].Shape[len(in[0].Shape)-1]
	return int64(out.Shape.Numel()) * int64(bits.Len(uint(m))+1)
}
