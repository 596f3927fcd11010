package ops

import "github.com/tref-lang/tref/runtime/tensor"

// ReduceAttrs configures the reductions (sum, mean, max, min, argmax,
// argmin, var, std, prod, any, all).
type ReduceAttrs struct {
	// Dims lists the reduced dimensions (negative allowed); nil reduces all.
	Dims    []int
	Keepdim bool
	// Correction is the degrees-of-freedom correction of var and std
	// (1 by default, as in PyTorch).
	Correction int
}

// IndexKind is the kind of one item of an index expression.
type IndexKind uint8

// Index items: a single position (removes the dimension) or a slice.
const (
	IndexAt IndexKind = iota
	IndexSlice
)

// IndexItem is one comma-separated part of x[...]. For IndexSlice, HasStart
// and HasStop say whether the bound was written; Step is never 0.
type IndexItem struct {
	Kind              IndexKind
	At                int
	Start, Stop, Step int
	HasStart, HasStop bool
}

// FullSlice is the item `:`, a whole dimension.
var FullSlice = IndexItem{Kind: IndexSlice, Step: 1}

// FullSlices is x[:, ..., :], n whole dimensions; callers narrow the items
// they need.
func FullSlices(n int) []IndexItem {
	items := make([]IndexItem, n)
	for i := range items {
		items[i] = FullSlice
	}
	return items
}

// SliceAlong is x[:, ..., start:stop]: positions [start, stop) of
// dimension d, the dimensions before it whole.
func SliceAlong(d, start, stop int) []IndexItem {
	items := FullSlices(d + 1)
	items[d] = IndexItem{Kind: IndexSlice, Start: start, Stop: stop, HasStart: true, HasStop: true, Step: 1}
	return items
}

// AtAlong is x[:, ..., i]: position i of dimension d, the dimension
// removed.
func AtAlong(d, i int) []IndexItem {
	items := FullSlices(d + 1)
	items[d] = IndexItem{Kind: IndexAt, At: i}
	return items
}

// IndexAttrs are the attributes of the "index" op (basic indexing and
// slicing, with negative indices and steps, always producing a copy).
type IndexAttrs struct {
	Items []IndexItem
}

// CastAttrs are the attributes of "astype".
type CastAttrs struct {
	To tensor.DType
}
