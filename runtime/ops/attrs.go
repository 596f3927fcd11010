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

// IndexAttrs are the attributes of the "index" op (basic indexing and
// slicing, with negative indices and steps, always producing a copy).
type IndexAttrs struct {
	Items []IndexItem
}

// CastAttrs are the attributes of "astype".
type CastAttrs struct {
	To tensor.DType
}
