package ops

import (
	"fmt"

	"github.com/tref-lang/tref/runtime/tensor"
)

// Full makes a tensor of one value: zeros, ones, full and their _like
// forms, and the seed of a gradient. It takes no input, so the placement
// engine runs it where its result is wanted: on an accelerator it is a
// fill of device memory (the value a kernel argument), never a host
// buffer copied over.
var Full = Register(&Def{Name: "full", Infer: inferFull, Flops: perOutput})

// FullAttrs are full's attributes: the result's shape and the value of
// every element, whose dtype is the result's.
type FullAttrs struct {
	Shape tensor.Shape
	Value Scalar
}

// FullOf is attrs (by value or pointer) as FullAttrs, for the kernels.
func FullOf(attrs any) (FullAttrs, error) {
	switch a := attrs.(type) {
	case FullAttrs:
		return a, nil
	case *FullAttrs:
		return *a, nil
	}
	return FullAttrs{}, fmt.Errorf("full: attributes %T are not FullAttrs", attrs)
}

func inferFull(in []tensor.Meta, attrs any) (tensor.Meta, error) {
	if err := wantInputs("full", in, 0); err != nil {
		return tensor.Meta{}, err
	}
	a, err := FullOf(attrs)
	if err != nil {
		return tensor.Meta{}, err
	}
	if a.Value.DType.Size() == 0 || a.Value.DType == tensor.Invalid {
		return tensor.Meta{}, fmt.Errorf("full: invalid dtype %v", a.Value.DType)
	}
	if _, err := tensor.CheckedNumel(a.Shape); err != nil {
		return tensor.Meta{}, fmt.Errorf("full: %v", err)
	}
	return tensor.Meta{Shape: a.Shape.Clone(), DType: a.Value.DType}, nil
}

func init() {
	defineGrads(notDifferentiable("full is a constant: it has no operand", Full))
}
