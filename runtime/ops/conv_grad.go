package ops

import (
	"fmt"

	"github.com/tref-lang/tref/runtime/tensor"
)

// Gradient rules of conv2d and max_pool2d (see grad.go), through the
// backward kernels registered here.

// Conv2dBackwardAttrs are the attributes of "conv2d_backward_input"
// (inputs: the result's cotangent g and the weight; result: the input's
// cotangent, of shape Shape) and "conv2d_backward_weight" (inputs: the
// input x and g; result: the weight's cotangent, of shape Shape).
type Conv2dBackwardAttrs struct {
	Conv  Conv2dAttrs
	Shape tensor.Shape
}

// The backward kernels of conv2d and max_pool2d.
var (
	// Conv2dBackwardInput and Conv2dBackwardWeight take Conv2dBackwardAttrs.
	Conv2dBackwardInput  = Register(&Def{Name: "conv2d_backward_input", Infer: inferConvBackward("conv2d_backward_input"), Flops: convBackwardFlops(false)})
	Conv2dBackwardWeight = Register(&Def{Name: "conv2d_backward_weight", Infer: inferConvBackward("conv2d_backward_weight"), Flops: convBackwardFlops(true)})
	// MaxPool2dBackward(x, g) adds g at each window's maximum; it takes
	// Pool2dAttrs.
	MaxPool2dBackward = Register(&Def{Name: "max_pool2d_backward", Infer: inferPoolBackward})
)

func init() {
	defineGrads(map[Op]*Grad{
		Conv2d:               {Saves: []int{0, 1}, VJP: conv2dGrad},
		Conv2dBackwardInput:  firstOrderOnly(Conv2d),
		Conv2dBackwardWeight: firstOrderOnly(Conv2d),
		MaxPool2d: {Saves: []int{0}, VJP: func(b *Builder, a *GradArgs, g T) []T {
			return []T{b.Op(MaxPool2dBackward, a.Attrs, a.X[0], g)}
		}},
		MaxPool2dBackward: firstOrderOnly(MaxPool2d),
	})
}

// inferConvBackward checks a backward kernel's operands against the
// forward conv2d they differentiate.
func inferConvBackward(op string) InferFunc {
	return func(in []tensor.Meta, attrs any) (tensor.Meta, error) {
		a, err := AttrsAs[Conv2dBackwardAttrs](op, attrs)
		if err != nil {
			return tensor.Meta{}, err
		}
		if err := wantInputs(op, in, 2); err != nil {
			return tensor.Meta{}, err
		}
		xs, ws, g := a.Shape, in[1].Shape, in[0]
		if op == "conv2d_backward_weight" {
			xs, ws, g = in[0].Shape, a.Shape, in[1]
		}
		d, err := Conv2dLayout(xs, ws, nil, a.Conv)
		if err != nil {
			return tensor.Meta{}, fmt.Errorf("%s: %v", op, err)
		}
		if !d.Shape.Equal(g.Shape) || in[0].DType != in[1].DType || !g.DType.IsFloat() {
			return tensor.Meta{}, fmt.Errorf("%s: the cotangent is %v, conv2d of %v by %v gives %v", op, g, xs, ws, d.Shape)
		}
		return tensor.Meta{Shape: a.Shape.Clone(), DType: g.DType}, nil
	}
}

// convBackwardFlops costs a backward kernel as the forward product;
// weight says the result is the weight's cotangent.
func convBackwardFlops(weight bool) CostFunc {
	return func(in []tensor.Meta, out tensor.Meta, attrs any) int64 {
		a, err := AttrsAs[Conv2dBackwardAttrs]("conv2d_backward", attrs)
		if err != nil || len(in) != 2 {
			return 0
		}
		xs, ws := out.Shape, in[1].Shape
		if weight {
			xs, ws = in[0].Shape, out.Shape
		}
		d, err := Conv2dLayout(xs, ws, nil, a.Conv)
		if err != nil {
			return 0
		}
		return conv2dFlops([]tensor.Meta{{Shape: xs}, {Shape: ws}}, tensor.Meta{Shape: d.Shape}, a.Conv)
	}
}

func inferPoolBackward(in []tensor.Meta, attrs any) (tensor.Meta, error) {
	a, err := AttrsAs[Pool2dAttrs]("max_pool2d_backward", attrs)
	if err != nil {
		return tensor.Meta{}, err
	}
	if err := wantInputs("max_pool2d_backward", in, 2); err != nil {
		return tensor.Meta{}, err
	}
	d, err := MaxPool2dLayout(in[0].Shape, a)
	if err != nil {
		return tensor.Meta{}, err
	}
	if !d.Shape.Equal(in[1].Shape) || in[0].DType != in[1].DType || !in[0].DType.IsFloat() {
		return tensor.Meta{}, fmt.Errorf("max_pool2d_backward: the cotangent is %v, max_pool2d of %v gives %v", in[1], in[0], d.Shape)
	}
	return in[0], nil
}

func conv2dGrad(b *Builder, a *GradArgs, g T) []T {
	c, _ := AttrsAs[Conv2dAttrs]("conv2d", a.Attrs)
	x, w := a.X[0], a.X[1]
	dt := a.OutMeta.DType
	out := []T{
		needed(a, 0, func() T {
			return b.Op(Conv2dBackwardInput, Conv2dBackwardAttrs{Conv: c, Shape: a.In[0].Shape}, g, b.Cast(w, dt))
		}),
		needed(a, 1, func() T {
			return b.Op(Conv2dBackwardWeight, Conv2dBackwardAttrs{Conv: c, Shape: a.In[1].Shape}, b.Cast(x, dt), g)
		}),
	}
	if len(a.In) == 3 {
		dims := []int{0, 2, 3}
		if len(a.OutMeta.Shape) == 3 {
			dims = []int{1, 2}
		}
		out = append(out, needed(a, 2, func() T { return b.Sum(g, dims, false) }))
	}
	return out
}
