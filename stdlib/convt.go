package stdlib

import (
	"fmt"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// conv1d, conv_transpose2d and bmm, with torch.nn.functional's argument
// names and defaults. conv1d runs as conv2d over images of height 1, bmm
// as matmul after torch's stricter shape checks.
func init() {
	register("conv1d", "conv1d(input, weight, bias=none, stride=1, padding=0, dilation=1, groups=1): 1-d convolution of [N, C, L] (or [C, L]) by weight [Cout, C/groups, k], as torch's F.conv1d; padding may be an int, \"same\" or \"valid\"", builtinConv1d)
	register("conv_transpose2d", "conv_transpose2d(input, weight, bias=none, stride=1, padding=0, output_padding=0, groups=1, dilation=1): transposed 2-d convolution of [N, C, H, W] (or [C, H, W]) by weight [C, Cout/groups, kh, kw], as torch's F.conv_transpose2d", builtinConvTranspose2d)
	register("bmm", "bmm(input, mat2): batched matrix product of [B, n, m] and [B, m, p], giving [B, n, p] (no broadcasting, as torch.bmm)", builtinBmm)
}

// conv1dPadding reads conv1d's padding: an int, a list of one int,
// "valid", or "same" (stride 1 only; an odd total puts the extra element
// at the end, as torch does).
func conv1dPadding(th *eval.Thread, v eval.Value, stride, dilation, k int) (lo, hi int, err error) {
	if s, ok := v.(eval.String); ok {
		switch s {
		case "valid":
			return 0, 0, nil
		case "same":
			if stride != 1 {
				return 0, 0, fmt.Errorf("conv1d: padding=\"same\" needs stride 1, got stride %d", stride)
			}
			total := dilation * (k - 1)
			return total / 2, total - total/2, nil
		}
		return 0, 0, fmt.Errorf("conv1d: padding must be an int, \"same\" or \"valid\", got %q", string(s))
	}
	var p []int
	if err := eval.UnpackArgs(th, "conv1d", []eval.Value{v}, nil, "padding", &p); err != nil {
		return 0, 0, err
	}
	if len(p) != 1 {
		return 0, 0, fmt.Errorf("conv1d: padding must be an int or a list of 1 int, got %v", tensor.Shape(p))
	}
	return p[0], p[0], nil
}

func oneInt(fname, param string, v []int) (int, error) {
	if len(v) != 1 {
		return 0, fmt.Errorf("%s: %s must be an int or a list of 1 int, got %v", fname, param, tensor.Shape(v))
	}
	return v[0], nil
}

// convArgs are the arguments of conv1d and conv3d, torch's names and
// defaults: padding an int, a list or "same"/"valid", stride and
// dilation an int or a list, bias none or a tensor.
type convArgs struct {
	x, w             *refs.Ref
	bias, padding    eval.Value
	stride, dilation []int
	groups           int
}

// unpackConv reads convArgs for the builtin fname.
func unpackConv(th *eval.Thread, fname string, args []eval.Value, kwargs []eval.Kwarg) (convArgs, error) {
	a := convArgs{bias: eval.None, padding: eval.Int(0), stride: []int{1}, dilation: []int{1}, groups: 1}
	err := eval.UnpackArgs(th, fname, args, kwargs, "input", &a.x, "weight", &a.w, "bias?", &a.bias,
		"stride?", &a.stride, "padding?", &a.padding, "dilation?", &a.dilation, "groups?", &a.groups)
	return a, err
}

func builtinConv1d(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	const fname = "conv1d"
	ca, err := unpackConv(th, fname, args, kwargs)
	if err != nil {
		return nil, err
	}
	x, w, bias, padding, stride, dilation, groups := ca.x, ca.w, ca.bias, ca.padding, ca.stride, ca.dilation, ca.groups
	s, err := oneInt(fname, "stride", stride)
	if err != nil {
		return nil, err
	}
	dil, err := oneInt(fname, "dilation", dilation)
	if err != nil {
		return nil, err
	}
	xs, ws := x.Shape(), w.Shape()
	if len(xs) != 2 && len(xs) != 3 {
		return nil, fmt.Errorf("conv1d: expected an input of shape [N, C, L] or [C, L], got %v", xs)
	}
	if len(ws) != 3 {
		return nil, fmt.Errorf("conv1d: expected a weight of shape [Cout, Cin/groups, k], got %v", ws)
	}
	lo, hi, err := conv1dPadding(th, padding, s, dil, ws[2])
	if err != nil {
		return nil, err
	}
	a := ops.Conv2dAttrs{Stride: [2]int{1, s}, Dilation: [2]int{1, dil}, PadLo: [2]int{0, lo}, PadHi: [2]int{0, hi}, Groups: groups}
	// Check in conv1d's terms before lowering to conv2d.
	x4 := append(append(xs[:len(xs)-1:len(xs)-1].Clone(), 1), xs[len(xs)-1])
	w4 := tensor.Shape{ws[0], ws[1], 1, ws[2]}
	var b4 *tensor.Shape
	if bt, ok := bias.(eval.Tensor); ok {
		bs := bt.Ref.Shape()
		b4 = &bs
	}
	if _, err := ops.Conv2dLayout(x4, w4, b4, a); err != nil {
		return nil, fmt.Errorf("conv1d over %v with weight %v: %v", xs, ws, err)
	}
	c := newChain(th)
	ins, err := withOptional(th, fname, "bias", []*refs.Ref{c.Op(ops.Reshape, ops.ReshapeAttrs{Shape: x4}, x), c.Op(ops.Reshape, ops.ReshapeAttrs{Shape: w4}, w)}, bias)
	if err != nil {
		c.Release()
		return nil, err
	}
	y := c.Op(ops.Conv2d, a, ins...)
	if c.Err() != nil {
		return c.Result(nil)
	}
	ys := y.Shape()
	return c.Result(c.Op(ops.Reshape, ops.ReshapeAttrs{Shape: append(ys[:len(ys)-2:len(ys)-2].Clone(), ys[len(ys)-1])}, y))
}

// convTArgs are the arguments of conv_transpose2d and conv_transpose3d,
// torch's names and defaults: stride, padding, output_padding and
// dilation an int or a list, bias none or a tensor.
type convTArgs struct {
	x, w                              *refs.Ref
	bias                              eval.Value
	stride, padding, outPad, dilation []int
	groups                            int
}

// unpackConvTranspose reads convTArgs for the builtin fname.
func unpackConvTranspose(th *eval.Thread, fname string, args []eval.Value, kwargs []eval.Kwarg) (convTArgs, error) {
	a := convTArgs{bias: eval.None, stride: []int{1}, padding: []int{0}, outPad: []int{0}, dilation: []int{1}, groups: 1}
	err := eval.UnpackArgs(th, fname, args, kwargs, "input", &a.x, "weight", &a.w, "bias?", &a.bias,
		"stride?", &a.stride, "padding?", &a.padding, "output_padding?", &a.outPad, "groups?", &a.groups, "dilation?", &a.dilation)
	return a, err
}

// windowParam is a window parameter as given: an int or a list.
type windowParam struct {
	name string
	v    []int
}

// params are stride, padding, output_padding and dilation with their
// names, for the builtin's own reader of an int or a list (intPair,
// intTriple).
func (a convTArgs) params() [4]windowParam {
	return [4]windowParam{{"stride", a.stride}, {"padding", a.padding}, {"output_padding", a.outPad}, {"dilation", a.dilation}}
}

func builtinConvTranspose2d(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	const fname = "conv_transpose2d"
	ca, err := unpackConvTranspose(th, fname, args, kwargs)
	if err != nil {
		return nil, err
	}
	a := ops.ConvTranspose2dAttrs{Groups: ca.groups}
	dsts := []*[2]int{&a.Stride, &a.Padding, &a.OutputPadding, &a.Dilation}
	for i, p := range ca.params() {
		if *dsts[i], err = intPair(fname, p.name, p.v); err != nil {
			return nil, err
		}
	}
	ins, err := withOptional(th, fname, "bias", []*refs.Ref{ca.x, ca.w}, ca.bias)
	if err != nil {
		return nil, err
	}
	return th.Submit(ops.ConvTranspose2d, a, ins...)
}

func builtinBmm(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var a, b *refs.Ref
	if err := eval.UnpackArgs(th, "bmm", args, kwargs, "input", &a, "mat2", &b); err != nil {
		return nil, err
	}
	as, bs := a.Shape(), b.Shape()
	switch {
	case len(as) != 3 || len(bs) != 3:
		return nil, fmt.Errorf("bmm: expected two 3-d tensors [B, n, m] and [B, m, p], got %v and %v", as, bs)
	case as[0] != bs[0]:
		return nil, fmt.Errorf("bmm: batch sizes differ: %v and %v (bmm does not broadcast; matmul does)", as, bs)
	case as[2] != bs[1]:
		return nil, fmt.Errorf("bmm: shapes %v and %v do not align (%d != %d)", as, bs, as[2], bs[1])
	}
	return th.Submit(ops.Matmul, nil, a, b)
}
