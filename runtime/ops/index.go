package ops

import (
	"fmt"

	"github.com/tref-lang/tref/runtime/tensor"
)

// IndexRange is how one input dimension is read by an index expression:
// Len positions from Start, Step apart (Step may be negative). Keep is false
// for an integer index, which removes the dimension (Len is then 1).
type IndexRange struct {
	Start, Step, Len int
	Keep             bool
}

// Index is x[...] with IndexAttrs: integers, slices and new axes.
var Index = Register(&Def{Name: "index", Infer: inferIndex})

// IndexAssign(x, v) with IndexAttrs is x with the elements x[...] reads
// replaced by v, which has x's dtype and broadcasts to their shape: the
// value `x[...] = v` gives x. When x dies at the op its buffer becomes
// the result's and only the assigned elements are written.
var IndexAssign = Register(&Def{Name: "index_assign", Infer: inferIndexAssign, Inplace: []int{0}})

// ResolveIndex maps the items of x[...] onto a tensor of shape s, one range
// per dimension (dimensions without an item are taken whole). Integer
// indices may be negative and must be in range; slice bounds are clamped
// the way Python's slice.indices clamps them, and negative steps read
// backwards (as in NumPy; PyTorch rejects them).
func ResolveIndex(s tensor.Shape, items []IndexItem) ([]IndexRange, error) {
	if len(items) > len(s) {
		return nil, fmt.Errorf("too many indices for a tensor of shape %v: %d given, the tensor has %d dimensions",
			s, len(items), len(s))
	}
	out := make([]IndexRange, len(s))
	for d, n := range s {
		if d >= len(items) {
			out[d] = IndexRange{Start: 0, Step: 1, Len: n, Keep: true}
			continue
		}
		it := items[d]
		switch it.Kind {
		case IndexAt:
			i := it.At
			if i < -n || i >= n {
				return nil, fmt.Errorf("index %d is out of range for dimension %d of size %d (shape %v)", it.At, d, n, s)
			}
			if i < 0 {
				i += n
			}
			out[d] = IndexRange{Start: i, Step: 1, Len: 1}
		case IndexSlice:
			r, err := sliceRange(it, n)
			if err != nil {
				return nil, fmt.Errorf("dimension %d: %v", d, err)
			}
			out[d] = r
		default:
			return nil, fmt.Errorf("dimension %d: unknown index kind %d", d, it.Kind)
		}
	}
	return out, nil
}

// sliceRange is Python's slice(start, stop, step).indices(n).
func sliceRange(it IndexItem, n int) (IndexRange, error) {
	step := it.Step
	if step == 0 {
		return IndexRange{}, fmt.Errorf("slice step cannot be zero")
	}
	lo, hi := 0, n // the clamping interval of the bounds
	if step < 0 {
		lo, hi = -1, n-1
	}
	bound := func(v int, has bool, def int) int {
		if !has {
			return def
		}
		if v < 0 {
			v += n
		}
		return min(max(v, lo), hi)
	}
	var start, stop int
	if step > 0 {
		start, stop = bound(it.Start, it.HasStart, 0), bound(it.Stop, it.HasStop, n)
	} else {
		start, stop = bound(it.Start, it.HasStart, n-1), bound(it.Stop, it.HasStop, -1)
	}
	// The counts below cannot overflow: stop-start and start-stop are at
	// most n, and -step is only taken when it is at most n too.
	length := 0
	if step > 0 && stop > start {
		length = (stop-start-1)/step + 1
	} else if step < 0 && start > stop {
		length = 1
		if d := start - stop - 1; step >= -d {
			length += d / -step
		}
	}
	if length == 0 {
		start = 0 // an empty slice reads nothing; keep its offset in range
	}
	return IndexRange{Start: start, Step: step, Len: length, Keep: true}, nil
}

func inferIndex(in []tensor.Meta, attrs any) (tensor.Meta, error) {
	x, a, err := singleWithAttrs[IndexAttrs]("index", in, attrs)
	if err != nil {
		return tensor.Meta{}, err
	}
	rs, err := ResolveIndex(x.Shape, a.Items)
	if err != nil {
		return tensor.Meta{}, err
	}
	s := tensor.Shape{}
	for _, r := range rs {
		if r.Keep {
			s = append(s, r.Len)
		}
	}
	return tensor.Meta{Shape: s, DType: x.DType}, nil
}

func inferIndexAssign(in []tensor.Meta, attrs any) (tensor.Meta, error) {
	if err := wantInputs("index_assign", in, 2); err != nil {
		return tensor.Meta{}, err
	}
	a, err := AttrsAs[IndexAttrs]("index_assign", attrs)
	if err != nil {
		return tensor.Meta{}, err
	}
	x, v := in[0], in[1]
	region, err := inferIndex(in[:1], a)
	if err != nil {
		return tensor.Meta{}, err
	}
	if v.DType != x.DType {
		return tensor.Meta{}, fmt.Errorf("index_assign: the value is %s, the tensor %s", v.DType, x.DType)
	}
	if b, err := tensor.Broadcast(v.Shape, region.Shape); err != nil || !b.Equal(region.Shape) {
		return tensor.Meta{}, fmt.Errorf("cannot assign a value of shape %v to the %v elements the index selects", v.Shape, region.Shape)
	}
	return tensor.Meta{Shape: x.Shape, DType: x.DType}, nil
}
