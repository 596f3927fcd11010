package stdlib

import (
	"fmt"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Convolution and pooling builtins over NCHW images.
func init() {
	register("conv2d", "conv2d(x, w, b=none, stride=1, padding=0, dilation=1, groups=1) (torch's names input, weight, bias work too): 2-d convolution of [N, C, H, W] (or [C, H, W]) by w [Cout, C/groups, kh, kw]; padding may be \"same\" or \"valid\"", builtinConv2d)
	register("max_pool2d", "max_pool2d(x, kernel, stride=kernel, padding=0, dilation=1, ceil_mode=false) (torch's input=, kernel_size= too): maximum over 2-d windows of [N, C, H, W] (or [C, H, W])", builtinMaxPool2d)
}

func builtinConv2d(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	const fname = "conv2d"
	var x, w *refs.Ref
	var bias, padding eval.Value = eval.None, eval.Int(0)
	stride, dilation := []int{1}, []int{1}
	groups := 1
	if err := eval.UnpackArgs(th, fname, args, kwargs, "x|input", &x, "w|weight", &w, "b|bias?", &bias,
		"stride?", &stride, "padding?", &padding, "dilation?", &dilation, "groups?", &groups); err != nil {
		return nil, err
	}
	a := ops.Conv2dAttrs{Groups: groups}
	var err error
	if a.Stride, err = intPair(fname, "stride", stride); err != nil {
		return nil, err
	}
	if a.Dilation, err = intPair(fname, "dilation", dilation); err != nil {
		return nil, err
	}
	if s, ok := padding.(eval.String); ok {
		switch s {
		case "valid":
		case "same":
			if a.Stride != [2]int{1, 1} {
				return nil, fmt.Errorf("conv2d: padding=\"same\" needs stride 1, got stride %v", tensor.Shape(stride))
			}
			// The extra pixel of an even kernel goes to the bottom and
			// right, as in PyTorch.
			wshape := w.Shape()
			if len(wshape) == 4 {
				for i := range 2 {
					total := a.Dilation[i] * (wshape[2+i] - 1)
					a.PadLo[i], a.PadHi[i] = total/2, total-total/2
				}
			}
		default:
			return nil, fmt.Errorf("conv2d: padding must be an int, a list of 2 ints, \"same\" or \"valid\", got %q", string(s))
		}
	} else {
		var p []int
		if err := eval.UnpackArgs(th, fname, []eval.Value{padding}, nil, "padding", &p); err != nil {
			return nil, err
		}
		if a.PadLo, err = intPair(fname, "padding", p); err != nil {
			return nil, err
		}
		a.PadHi = a.PadLo
	}
	ins, err := withOptional(th, fname, "b", []*refs.Ref{x, w}, bias)
	if err != nil {
		return nil, err
	}
	return th.Submit(ops.Conv2d, a, ins...)
}

func builtinMaxPool2d(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	const fname = "max_pool2d"
	var x *refs.Ref
	var kernel, padding, dilation []int = nil, []int{0}, []int{1}
	var stride eval.Value = eval.None
	ceil := false
	if err := eval.UnpackArgs(th, fname, args, kwargs, "x|input", &x, "kernel|kernel_size", &kernel, "stride?", &stride,
		"padding?", &padding, "dilation?", &dilation, "ceil_mode?", &ceil); err != nil {
		return nil, err
	}
	var a ops.Pool2dAttrs
	var err error
	a.CeilMode = ceil
	if a.Kernel, err = intPair(fname, "kernel", kernel); err != nil {
		return nil, err
	}
	if a.Stride, err = poolStride(th, fname, stride, a.Kernel, intPair); err != nil {
		return nil, err
	}
	if a.Padding, err = intPair(fname, "padding", padding); err != nil {
		return nil, err
	}
	if a.Dilation, err = intPair(fname, "dilation", dilation); err != nil {
		return nil, err
	}
	return th.Submit(ops.MaxPool2d, a, x)
}

// intPair reads an int or a list of two ints as a (height, width) pair.
func intPair(fname, param string, v []int) ([2]int, error) {
	switch len(v) {
	case 1:
		return [2]int{v[0], v[0]}, nil
	case 2:
		return [2]int{v[0], v[1]}, nil
	}
	return [2]int{}, fmt.Errorf("%s: %s must be an int or a list of 2 ints, got %v", fname, param, tensor.Shape(v))
}
