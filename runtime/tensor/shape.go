package tensor

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Shape lists a tensor's dimensions, outermost first. A 0-d tensor (a
// scalar) has an empty shape.
type Shape []int

// Numel is the number of elements, 1 for a scalar.
func (s Shape) Numel() int {
	n := 1
	for _, d := range s {
		n *= d
	}
	return n
}

// String formats the shape as scripts print it: [2, 3].
func (s Shape) String() string {
	var b strings.Builder
	b.WriteByte('[')
	for i, d := range s {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(d))
	}
	b.WriteByte(']')
	return b.String()
}

// Equal reports whether two shapes are identical.
func (s Shape) Equal(t Shape) bool {
	if len(s) != len(t) {
		return false
	}
	for i := range s {
		if s[i] != t[i] {
			return false
		}
	}
	return true
}

// Clone returns a copy that does not alias s.
func (s Shape) Clone() Shape { return append(Shape(nil), s...) }

// Strides returns the row-major element strides of a contiguous tensor.
func (s Shape) Strides() []int {
	st := make([]int, len(s))
	acc := 1
	for i := len(s) - 1; i >= 0; i-- {
		st[i] = acc
		acc *= s[i]
	}
	return st
}

// MaxElements bounds the element count of any one tensor, so that size
// arithmetic never overflows and absurd shapes fail before allocating.
const MaxElements = 1 << 40

// CheckedNumel multiplies the dimensions, failing on negative dimensions or
// when the product exceeds MaxElements. As in NumPy, a zero dimension
// does not excuse the others: the product of the nonzero dimensions must
// stay within MaxElements too, so a shape such as [0, 2**62, 2**62] is
// refused wherever it appears (a loader, a creation builtin, an op's
// result) rather than accepted by some and refused by others, and strides
// computed from any accepted shape never overflow.
func CheckedNumel(s Shape) (int, error) {
	n, zero := 1, false
	for _, d := range s {
		if d < 0 {
			return 0, fmt.Errorf("negative dimension %d in shape %v", d, s)
		}
		if d == 0 {
			zero = true
			continue
		}
		if n > MaxElements/d {
			if slices.Contains(s, 0) {
				return 0, fmt.Errorf("shape %v is too large: its nonzero dimensions multiply to more than %d (a zero dimension does not make the others fit, as in NumPy)", s, MaxElements)
			}
			return 0, fmt.Errorf("shape %v has more than %d elements", s, MaxElements)
		}
		n *= d
	}
	if zero {
		return 0, nil
	}
	return n, nil
}

// NormDim maps a possibly negative dimension index into [0, rank).
func NormDim(dim, rank int) (int, error) {
	r := rank
	if r == 0 {
		r = 1 // PyTorch accepts dim 0 and -1 on a scalar
	}
	if dim < -r || dim >= r {
		return 0, fmt.Errorf("dimension %d out of range for a tensor of rank %d", dim, rank)
	}
	if dim < 0 {
		dim += r
	}
	return dim, nil
}

// Broadcast returns the NumPy-broadcast shape of a and b.
func Broadcast(a, b Shape) (Shape, error) {
	n := max(len(a), len(b))
	out := make(Shape, n)
	for i := range n {
		da, db := 1, 1
		if j := len(a) - n + i; j >= 0 {
			da = a[j]
		}
		if j := len(b) - n + i; j >= 0 {
			db = b[j]
		}
		switch {
		case da == db, db == 1:
			out[i] = da
		case da == 1:
			out[i] = db
		default:
			return nil, fmt.Errorf("shapes %v and %v cannot be broadcast (dimension %d: %d vs %d)", a, b, i, da, db)
		}
	}
	return out, nil
}

// Meta is what shape inference knows of a tensor before it is computed.
type Meta struct {
	Shape Shape
	DType DType
}

// Bytes is the storage size of a tensor with this meta.
func (m Meta) Bytes() int64 { return int64(m.Shape.Numel()) * int64(m.DType.Size()) }

// String formats the meta as "float32[2, 3]".
func (m Meta) String() string { return m.DType.String() + m.Shape.String() }

// RoundF32 rounds a float64 to the nearest float32 value, keeping NaN and
// infinities.
func RoundF32(v float64) float64 { return float64(float32(v)) }
