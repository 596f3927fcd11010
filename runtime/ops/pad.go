package ops

import (
	"fmt"

	"github.com/tref-lang/tref/runtime/tensor"
)

// PadMode is how "pad" fills the new border.
type PadMode uint8

// The modes of torch.nn.functional.pad.
const (
	PadConstant  PadMode = iota // Value everywhere
	PadReflect                  // the input mirrored at its edge, the edge not repeated
	PadReplicate                // the edge element repeated
	PadCircular                 // the input wrapped around
)

var padModeNames = [...]string{"constant", "reflect", "replicate", "circular"}

// String is the mode's name as torch spells it.
func (m PadMode) String() string { return padModeNames[m] }

// ParsePadMode maps "constant", "reflect", "replicate" or "circular" to a
// PadMode.
func ParsePadMode(s string) (PadMode, bool) {
	for i, n := range padModeNames {
		if n == s {
			return PadMode(i), true
		}
	}
	return 0, false
}

// PadAttrs are the attributes of "pad", in torch's F.pad order: Pads holds
// (before, after) pairs starting with the last dimension, so [1, 2, 3, 4]
// pads the last dimension by 1 and 2 and the one before by 3 and 4.
// Negative amounts crop (constant mode only).
type PadAttrs struct {
	Pads  []int
	Mode  PadMode
	Value float64
}

// PadBackwardAttrs are the attributes of "pad_backward": the forward
// pad's attributes and its input's shape. The input is the cotangent of
// the pad's result; each of its elements is added to the input element
// the forward read it from (padding that read none is dropped).
type PadBackwardAttrs struct {
	Pad   PadAttrs
	Shape tensor.Shape
}

// The pad op and its adjoint (the backward kernel of reflect, replicate
// and circular padding).
var (
	// Pad is pad(x) with PadAttrs.
	Pad = Register(&Def{Name: "pad", Infer: inferPad})
	// PadBackward is pad_backward(g) with PadBackwardAttrs.
	PadBackward = Register(&Def{Name: "pad_backward", Infer: inferPadBackward})
)

func inferPadBackward(in []tensor.Meta, attrs any) (tensor.Meta, error) {
	g, a, err := singleWithAttrs[PadBackwardAttrs]("pad_backward", in, attrs)
	if err != nil {
		return tensor.Meta{}, err
	}
	_, _, out, err := PadLayout(a.Shape, a.Pad)
	if err != nil {
		return tensor.Meta{}, err
	}
	if !out.Equal(g.Shape) || !g.DType.IsFloat() {
		return tensor.Meta{}, fmt.Errorf("pad_backward: the cotangent is %v, the pad of %v gives %v", g, a.Shape, out)
	}
	return tensor.Meta{Shape: a.Shape.Clone(), DType: g.DType}, nil
}

// PadLayout gives, per dimension of x, the amount added before and after
// it, and the result shape; it checks the rules torch 1.13 enforces.
func PadLayout(x tensor.Shape, a PadAttrs) (lo, hi []int, out tensor.Shape, err error) {
	n := len(a.Pads)
	if n%2 != 0 {
		return nil, nil, nil, fmt.Errorf("pad: the padding must have an even length ((before, after) pairs), got %d values", n)
	}
	if n/2 > len(x) {
		return nil, nil, nil, fmt.Errorf("pad: %d values pad %d dimensions, but the input %v has %d", n, n/2, x, len(x))
	}
	if a.Mode != PadConstant {
		k := n / 2
		if k < 1 || k > 3 || (len(x) != k+1 && len(x) != k+2) {
			return nil, nil, nil, fmt.Errorf("pad: %s padding of %d dimensions needs a %d-d or %d-d input, got %v (torch pads the last 1, 2 or 3 dimensions of a batched or unbatched input)",
				a.Mode, k, k+1, k+2, x)
		}
		if a.Mode == PadCircular && len(x) != k+2 {
			return nil, nil, nil, fmt.Errorf("pad: circular padding of %d dimensions needs a batched %d-d input, got %v", k, k+2, x)
		}
	}
	lo, hi = make([]int, len(x)), make([]int, len(x))
	out = x.Clone()
	for i := 0; i < n/2; i++ {
		d := len(x) - 1 - i
		lo[d], hi[d] = a.Pads[2*i], a.Pads[2*i+1]
		size := x[d]
		switch a.Mode {
		case PadConstant:
		case PadReflect:
			if lo[d] < 0 || hi[d] < 0 || lo[d] >= size || hi[d] >= size {
				return nil, nil, nil, fmt.Errorf("pad: reflect padding (%d, %d) of dimension %d must be non-negative and less than its size %d (input %v)", lo[d], hi[d], d, size, x)
			}
		case PadReplicate:
			if lo[d] < 0 || hi[d] < 0 || (size == 0 && lo[d]+hi[d] > 0) {
				return nil, nil, nil, fmt.Errorf("pad: replicate padding (%d, %d) of dimension %d needs non-negative amounts and a non-empty dimension (input %v)", lo[d], hi[d], d, x)
			}
		case PadCircular:
			if lo[d] < 0 || hi[d] < 0 || lo[d] > size || hi[d] > size {
				return nil, nil, nil, fmt.Errorf("pad: circular padding (%d, %d) of dimension %d must be non-negative and at most its size %d (input %v)", lo[d], hi[d], d, size, x)
			}
		}
		out[d] = size + lo[d] + hi[d]
		if out[d] < 0 {
			return nil, nil, nil, fmt.Errorf("pad: padding (%d, %d) leaves dimension %d of %v with size %d", lo[d], hi[d], d, x, out[d])
		}
	}
	if _, err := tensor.CheckedNumel(out); err != nil {
		return nil, nil, nil, fmt.Errorf("pad: result %v: %v", out, err)
	}
	return lo, hi, out, nil
}

func inferPad(in []tensor.Meta, attrs any) (tensor.Meta, error) {
	x, a, err := singleWithAttrs[PadAttrs]("pad", in, attrs)
	if err != nil {
		return tensor.Meta{}, err
	}
	if int(a.Mode) >= len(padModeNames) {
		return tensor.Meta{}, fmt.Errorf("pad: unknown mode %d", a.Mode)
	}
	_, _, out, err := PadLayout(x.Shape, a)
	if err != nil {
		return tensor.Meta{}, err
	}
	return tensor.Meta{Shape: out, DType: x.DType}, nil
}
