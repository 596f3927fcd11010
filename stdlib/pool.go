package stdlib

import (
	"fmt"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Average pooling and padding, with torch.nn.functional's argument names,
// defaults and padding order.
func init() {
	register("avg_pool2d", "avg_pool2d(input, kernel_size, stride=kernel_size, padding=0, ceil_mode=false, count_include_pad=true, divisor_override=none): mean over 2-d windows of [N, C, H, W] (or [C, H, W]), as torch's F.avg_pool2d", builtinAvgPool2d)
	register("adaptive_avg_pool2d", "adaptive_avg_pool2d(input, output_size): mean over the windows that cut [N, C, H, W] (or [C, H, W]) into output_size (an int, or [h, w] where none keeps that size), as torch's F.adaptive_avg_pool2d", builtinAdaptiveAvgPool2d)
	register("pad", "pad(input, pad, mode=\"constant\", value=0): pad the last len(pad)/2 dimensions, pad = [last_before, last_after, prev_before, prev_after, ...] as torch's F.pad; mode \"constant\" (negative amounts crop), \"reflect\", \"replicate\" or \"circular\"", builtinPad)
}

func builtinAvgPool2d(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	const fname = "avg_pool2d"
	var x *refs.Ref
	var kernel, padding []int = nil, []int{0}
	var stride, divisor eval.Value = eval.None, eval.None
	ceil, includePad := false, true
	if err := eval.UnpackArgs(th, fname, args, kwargs, "input", &x, "kernel_size", &kernel, "stride?", &stride,
		"padding?", &padding, "ceil_mode?", &ceil, "count_include_pad?", &includePad, "divisor_override?", &divisor); err != nil {
		return nil, err
	}
	a := ops.AvgPool2dAttrs{CeilMode: ceil, CountIncludePad: includePad}
	var err error
	if a.Kernel, err = intPair(fname, "kernel_size", kernel); err != nil {
		return nil, err
	}
	if a.Stride, err = poolStride(th, fname, stride, a.Kernel, intPair); err != nil {
		return nil, err
	}
	if a.Padding, err = intPair(fname, "padding", padding); err != nil {
		return nil, err
	}
	var div eval.OptInt
	if err := eval.UnpackArgs(th, fname, []eval.Value{divisor}, nil, "divisor_override", &div); err != nil {
		return nil, err
	}
	if div.Set {
		if div.V <= 0 {
			return nil, fmt.Errorf("avg_pool2d: divisor_override must be positive, got %d", div.V)
		}
		a.DivisorOverride = div.V
	}
	return th.Submit(ops.AvgPool2d, a, x)
}

func builtinAdaptiveAvgPool2d(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	const fname = "adaptive_avg_pool2d"
	var x *refs.Ref
	var size eval.Value
	if err := eval.UnpackArgs(th, fname, args, kwargs, "input", &x, "output_size", &size); err != nil {
		return nil, err
	}
	var a ops.AdaptivePool2dAttrs
	var err error
	if a.Out, err = adaptiveOutputSize(th, fname, size, x.Shape()); err != nil {
		return nil, err
	}
	return th.Submit(ops.AdaptiveAvgPool2d, a, x)
}

// adaptiveOutputSize reads an adaptive 2-d pool's output_size: an int, or
// a list of 1 or 2 ints or nones, none keeping the size of the input xs.
func adaptiveOutputSize(th *eval.Thread, fname string, size eval.Value, xs tensor.Shape) ([2]int, error) {
	var out [2]int
	var items []eval.Value
	if l, ok := size.(*eval.List); ok {
		items = l.Elems
	} else {
		items = []eval.Value{size, size}
	}
	if len(items) == 1 {
		items = []eval.Value{items[0], items[0]}
	}
	if len(items) != 2 {
		return out, fmt.Errorf("%s: output_size must be an int or a list of 2 (ints or none), got %d values", fname, len(items))
	}
	for i, v := range items {
		var n eval.OptInt
		if err := eval.UnpackArgs(th, fname, []eval.Value{v}, nil, "output_size", &n); err != nil {
			return out, err
		}
		switch {
		case n.Set:
			out[i] = n.V
		case len(xs) >= 2:
			out[i] = xs[len(xs)-2+i] // none keeps the input's size
		}
	}
	return out, nil
}

func builtinPad(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	const fname = "pad"
	var x *refs.Ref
	var pads []int
	mode := "constant"
	var value eval.Value = eval.None
	if err := eval.UnpackArgs(th, fname, args, kwargs, "input", &x, "pad", &pads, "mode?", &mode, "value?", &value); err != nil {
		return nil, err
	}
	m, ok := ops.ParsePadMode(mode)
	if !ok {
		return nil, fmt.Errorf("pad: mode must be \"constant\", \"reflect\", \"replicate\" or \"circular\", got %q", mode)
	}
	a := ops.PadAttrs{Pads: pads, Mode: m}
	if _, none := value.(eval.NoneType); !none {
		v, ok := th.AsFloat(value)
		if !ok {
			return nil, fmt.Errorf("pad: argument \"value\" must be a number or none, not %s", eval.Describe(value))
		}
		if m != ops.PadConstant && v != 0 {
			return nil, fmt.Errorf("pad: a value (%v) applies to mode \"constant\" only, not %q", v, mode)
		}
		a.Value = v
	}
	return th.Submit(ops.Pad, a, x)
}

// poolStride reads a pool's stride: the kernel for none, or an empty
// list as torch allows; else the ints given, read by window (intPair,
// intTriple).
func poolStride[W any](th *eval.Thread, fname string, v eval.Value, kernel W, window func(fname, param string, v []int) (W, error)) (W, error) {
	if _, none := v.(eval.NoneType); none {
		return kernel, nil
	}
	var s []int
	if err := eval.UnpackArgs(th, fname, []eval.Value{v}, nil, "stride", &s); err != nil {
		return kernel, err
	}
	if len(s) == 0 {
		return kernel, nil
	}
	return window(fname, "stride", s)
}
