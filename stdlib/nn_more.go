package stdlib

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// More of torch.nn.functional as compositions of tref's ops: the 1-d
// transposed convolution and adaptive pools over the 2-d ones, adaptive
// max pooling (the window's maximum picked with torch's kernel's rule,
// then read with gather, so the gradient goes where torch's does), and
// im2col / col2im (unfold, fold) as index_select / scatter_add over a
// table of positions built on the host.
func init() {
	register("conv_transpose1d", "conv_transpose1d(input, weight, bias=none, stride=1, padding=0, output_padding=0, groups=1, dilation=1): transposed 1-d convolution of [N, C, L] (or [C, L]) by weight [C, Cout/groups, k], as F.conv_transpose1d", builtinConvTranspose1d)
	register("adaptive_avg_pool1d", "adaptive_avg_pool1d(input, output_size): mean over the windows that cut [N, C, L] (or [C, L]) into output_size (an int or a list of 1), as F.adaptive_avg_pool1d", builtinAdaptiveAvgPool1d)
	register("adaptive_max_pool1d", "adaptive_max_pool1d(input, output_size, return_indices=false): maximum over the windows [floor(i·L/out), ceil((i+1)·L/out)) of [N, C, L] (or [C, L]), the first maximum (a NaN wins: the last one); with return_indices the record (values, indices), the indices into L, as F.adaptive_max_pool1d", adaptiveMaxPoolBuiltin(1))
	register("adaptive_max_pool2d", "adaptive_max_pool2d(input, output_size, return_indices=false): maximum over the windows that cut [N, C, H, W] (or [C, H, W]) into output_size (an int, or [h, w] where none keeps that size), the first maximum in row-major order (a NaN wins: the last one); with return_indices the record (values, indices), the indices flat within each H×W plane, as F.adaptive_max_pool2d", adaptiveMaxPoolBuiltin(2))
	register("unfold", "unfold(input, kernel_size, dilation=1, padding=0, stride=1): the sliding kh×kw blocks of [N, C, H, W] (or [C, H, W]) as the columns of [N, C·kh·kw, L] (im2col), as F.unfold and nn.Unfold; with exactly three more positional ints, or the keywords dimension, size, step, it is Tensor.unfold(dimension, size, step): the windows of size taken every step along dimension, as a new last dimension (copied, where torch returns a view; so pass F.unfold's dilation and padding by keyword)", unfoldBuiltin)
	register("fold", "fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1): the columns of [N, C·kh·kw, L] (or [C·kh·kw, L]) summed back into [N, C, H, W] at the blocks unfold takes them from, overlapping positions added (col2im), as F.fold and nn.Fold", foldBuiltin)
}

// stripOp drops the "op: " that an op's error starts with.
func stripOp(op string, err error) string {
	return strings.TrimPrefix(err.Error(), op+": ")
}

func builtinConvTranspose1d(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x, w *refs.Ref
	var bias eval.Value = eval.None
	stride, padding, outPad, dilation := []int{1}, []int{0}, []int{0}, []int{1}
	groups := 1
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input", &x, "weight", &w, "bias?", &bias,
		"stride?", &stride, "padding?", &padding, "output_padding?", &outPad, "groups?", &groups, "dilation?", &dilation); err != nil {
		return nil, err
	}
	a := ops.ConvTranspose2dAttrs{Groups: groups, Stride: [2]int{1, 1}, Dilation: [2]int{1, 1}}
	for _, p := range []struct {
		name string
		v    []int
		dst  *int
	}{{"stride", stride, &a.Stride[1]}, {"padding", padding, &a.Padding[1]}, {"output_padding", outPad, &a.OutputPadding[1]}, {"dilation", dilation, &a.Dilation[1]}} {
		v, err := oneInt(b.Name, p.name, p.v)
		if err != nil {
			return nil, err
		}
		*p.dst = v
	}
	xs, ws := x.Shape(), w.Shape()
	if len(xs) != 2 && len(xs) != 3 {
		return nil, fmt.Errorf("%s: expected an input of shape [N, C, L] or [C, L], got %v", b.Name, xs)
	}
	if len(ws) != 3 {
		return nil, fmt.Errorf("%s: expected a weight of shape [C, Cout/groups, k], got %v", b.Name, ws)
	}
	x4 := slices.Concat(xs[:len(xs)-1], tensor.Shape{1, xs[len(xs)-1]})
	w4 := tensor.Shape{ws[0], ws[1], 1, ws[2]}
	var b4 *tensor.Shape
	if bt, ok := bias.(eval.Tensor); ok {
		bs := bt.Ref.Shape()
		b4 = &bs
	}
	// Check in conv_transpose1d's terms before lowering to 2-d.
	if msg := convTranspose1dProblem(xs, ws, b4, a); msg != "" {
		return nil, fmt.Errorf("%s over %v with weight %v: %s", b.Name, xs, ws, msg)
	}
	if _, err := ops.ConvTranspose2dLayout(x4, w4, b4, a); err != nil {
		return nil, fmt.Errorf("%s over %v with weight %v: %s", b.Name, xs, ws, stripOp("conv_transpose2d", err))
	}
	c := newChain(th)
	ins, err := withOptional(th, b.Name, "bias", []*refs.Ref{c.Reshape(x, x4), c.Reshape(w, w4)}, bias)
	if err != nil {
		return c.Abort(err)
	}
	y := c.Op(ops.ConvTranspose2d, a, ins...)
	if c.Err() != nil {
		return c.Result(nil)
	}
	ys := y.Shape()
	return named(b.Name)(c.Result(c.Reshape(y, slices.Concat(ys[:len(ys)-2], ys[len(ys)-1:]))))
}

// convTranspose1dProblem is what is wrong with conv_transpose1d's input
// [N, C, L] or [C, L], weight [C, Cout/groups, k], bias and the width
// half of the 2-d attributes a, in 1-d terms ("" when nothing is); the
// checks of ops.ConvTranspose2dLayout, which speaks of 2-d shapes.
func convTranspose1dProblem(xs, ws tensor.Shape, bias *tensor.Shape, a ops.ConvTranspose2dAttrs) string {
	c, l, k := xs[len(xs)-2], xs[len(xs)-1], ws[2]
	s, p, op, d := a.Stride[1], a.Padding[1], a.OutputPadding[1], a.Dilation[1]
	switch {
	case s < 1:
		return fmt.Sprintf("stride must be at least 1, got %d", s)
	case p < 0:
		return fmt.Sprintf("padding must be at least 0, got %d", p)
	case d < 1:
		return fmt.Sprintf("dilation must be at least 1, got %d", d)
	case a.Groups < 1:
		return fmt.Sprintf("groups must be at least 1, got %d", a.Groups)
	case op < 0 || (op >= s && op >= d):
		return fmt.Sprintf("output_padding %d must be non-negative and smaller than either stride %d or dilation %d", op, s, d)
	case ws[0] != c:
		return fmt.Sprintf("input has %d channels, weight expects %d", c, ws[0])
	case c%a.Groups != 0:
		return fmt.Sprintf("%d input channels are not divisible by groups=%d", c, a.Groups)
	case k == 0:
		return "the kernel is empty"
	case bias != nil && (len(*bias) != 1 || (*bias)[0] != ws[1]*a.Groups):
		return fmt.Sprintf("bias of shape %v, expected [%d]", *bias, ws[1]*a.Groups)
	}
	if out := (l-1)*s - 2*p + d*(k-1) + op + 1; l > 0 && out <= 0 {
		return fmt.Sprintf("the output's length is %d; padding %d is too large", out, p)
	}
	return ""
}

// adaptive1dSize reads a 1-d adaptive pool's output_size: an int or a
// list of one int.
func adaptive1dSize(th *eval.Thread, fname string, size eval.Value) (int, error) {
	var v []int
	if err := eval.UnpackArgs(th, fname, []eval.Value{size}, nil, "output_size", &v); err != nil {
		return 0, err
	}
	if len(v) != 1 {
		return 0, fmt.Errorf("%s: output_size must be an int or a list of 1 int, got %d values", fname, len(v))
	}
	return v[0], nil
}

// check1dInput checks that x is [N, C, L] or [C, L] (of any sizes: the
// 2-d op that the 1-d builtin lowers to checks those), and gives its
// shape with a unit height before L.
func check1dInput(fname string, x *refs.Ref) (tensor.Shape, error) {
	xs := x.Shape()
	if len(xs) != 2 && len(xs) != 3 {
		return nil, fmt.Errorf("%s: expected an input of shape [N, C, L] or [C, L], got %v", fname, xs)
	}
	return slices.Concat(xs[:len(xs)-1], tensor.Shape{1, xs[len(xs)-1]}), nil
}

func builtinAdaptiveAvgPool1d(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	var size eval.Value
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input", &x, "output_size", &size); err != nil {
		return nil, err
	}
	out, err := adaptive1dSize(th, b.Name, size)
	if err != nil {
		return nil, err
	}
	x4, err := check1dInput(b.Name, x)
	if err != nil {
		return nil, err
	}
	if !x.DType().IsFloat() {
		return nil, fmt.Errorf("%s: the input must be floating point, got %s", b.Name, x.DType())
	}
	a := ops.AdaptivePool2dAttrs{Out: [2]int{1, out}}
	if _, err := ops.AdaptiveAvgPool2dLayout(x4, a); err != nil {
		return nil, fmt.Errorf("%s over %v: %s", b.Name, x.Shape(), stripOp("adaptive_avg_pool2d", err))
	}
	c := newChain(th)
	y := c.Op(ops.AdaptiveAvgPool2d, a, c.Reshape(x, x4))
	return c.Result(c.Reshape(y, slices.Concat(x.Shape()[:len(x4)-2], tensor.Shape{out})))
}

func adaptiveMaxPoolBuiltin(rank int) eval.BuiltinFunc {
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		var x *refs.Ref
		var size eval.Value
		withIndices := false
		if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input", &x, "output_size", &size, "return_indices?", &withIndices); err != nil {
			return nil, err
		}
		xs := x.Shape()
		var x4 tensor.Shape
		var out [2]int
		var err error
		if rank == 1 {
			if out[1], err = adaptive1dSize(th, b.Name, size); err != nil {
				return nil, err
			}
			out[0] = 1
			if x4, err = check1dInput(b.Name, x); err != nil {
				return nil, err
			}
		} else {
			if out, err = adaptiveOutputSize(th, b.Name, size, xs); err != nil {
				return nil, err
			}
			if len(xs) != 3 && len(xs) != 4 {
				return nil, fmt.Errorf("%s: expected an input of shape [N, C, H, W] or [C, H, W], got %v", b.Name, xs)
			}
			x4 = xs
		}
		switch {
		case !x.DType().IsFloat():
			return nil, fmt.Errorf("%s: the input must be floating point, got %s", b.Name, x.DType())
		case out[0] < 0 || out[1] < 0:
			return nil, fmt.Errorf("%s: output_size must not be negative, got %v", b.Name, tensor.Shape(out[2-rank:]))
		}
		// As torch, which checks every dimension of the 2-d pool's input
		// but the first: an unbatched input may have no channels.
		if slices.Contains(x4[1:], 0) {
			return nil, fmt.Errorf("%s: the input %v has an empty non-batch dimension", b.Name, xs)
		}
		if _, err := tensor.CheckedNumel(slices.Concat(x4[:len(x4)-2], tensor.Shape{out[0], out[1]})); err != nil {
			return nil, fmt.Errorf("%s: %v", b.Name, err)
		}
		c := newChain(th)
		vals, idx := c.adaptiveMax(c.Reshape(x, x4), out)
		os := slices.Concat(xs[:len(xs)-rank], tensor.Shape(out[2-rank:]))
		vals, idx = c.Reshape(vals, os), c.Reshape(idx, os)
		if !withIndices || c.Err() != nil {
			return named(b.Name)(c.Result(vals))
		}
		return named(b.Name)(c.Record([]string{"values", "indices"}, vals, idx))
	}
}

// adaptiveMax is torch's adaptive max pool of x [..., H, W] to out: each
// window's first maximum in row-major order, or its last NaN, found with
// the gradient tape paused; the values are x read there with gather, so
// the gradient goes to those elements (added where windows overlap). It
// gives the values and the flat indices within the H×W plane, both of
// shape [..., out[0]·out[1]].
func (c *chain) adaptiveMax(x *refs.Ref, out [2]int) (vals, idx *refs.Ref) {
	if c.Err() != nil {
		return nil, nil
	}
	xs := x.Shape()
	lead, h, w := xs[:len(xs)-2], xs[len(xs)-2], xs[len(xs)-1]
	nOut := out[0] * out[1]
	plane := c.Reshape(x, slices.Concat(lead, tensor.Shape{h * w}))
	if nOut == 0 { // before span, which walks every window of each axis
		none := c.hostInts(nil, tensor.Shape{0})
		return c.Op(ops.IndexSelect, ops.DimAttrs{Dim: len(lead)}, plane, none), c.Expand(none, slices.Concat(lead, tensor.Shape{0}))
	}
	// The longest window along each axis; shorter windows are padded
	// with slots that read their first element and are masked off.
	span := func(n, size int) int {
		k := 0
		for i := range n {
			lo, hi := ops.AdaptiveRange(i, n, size)
			k = max(k, hi-lo)
		}
		return k
	}
	kh, kw := span(out[0], h), span(out[1], w)
	k := kh * kw
	if err := c.Thread().RT.HostPool().Check(adaptiveMaxBytes(lead.Numel(), nOut, k, x.DType().Size())); err != nil {
		c.Fail(fmt.Errorf("%d windows of up to %d elements: %v", nOut, k, err))
		return nil, nil
	}
	pos := make([]int64, 0, nOut*k)
	valid := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{nOut, k}, DType: tensor.Bool})
	rowLo, colLo := make([]int64, 0, nOut), make([]int64, 0, nOut)
	for i := range out[0] {
		r0, r1 := ops.AdaptiveRange(i, out[0], h)
		for j := range out[1] {
			c0, c1 := ops.AdaptiveRange(j, out[1], w)
			rowLo, colLo = append(rowLo, int64(r0)), append(colLo, int64(c0))
			for a := range kh {
				for e := range kw {
					p := int64(r0*w + c0)
					if r0+a < r1 && c0+e < c1 {
						p = int64((r0+a)*w + c0 + e)
						valid.Buf[len(pos)] = 1
					}
					pos = append(pos, p)
				}
			}
		}
	}
	winShape := slices.Concat(lead, tensor.Shape{nOut, k})
	idx = c.detached(func() *refs.Ref {
		win := c.Reshape(c.Op(ops.IndexSelect, ops.DimAttrs{Dim: len(lead)}, plane, c.hostInts(pos, tensor.Shape{len(pos)})), winShape)
		ok := c.Host(valid)
		dt := x.DType()
		// The first maximum of the window's elements (padding is -inf and
		// comes after the window's first element, which wins a tie of -inf).
		first := c.Op(ops.Argmax, ops.ReduceAttrs{Dims: []int{-1}}, c.Op(ops.Where, nil, ok, win, c.scalar(math.Inf(-1), dt)))
		// torch's kernel takes every NaN it meets: the last one wins.
		slots := make([]int64, k)
		for s := range slots {
			slots[s] = int64(s)
		}
		isNaN := c.Op(ops.BitwiseAnd, nil, c.Op(ops.Isnan, nil, win), ok)
		lastNaN := c.Op(ops.Max, ops.ReduceAttrs{Dims: []int{-1}}, c.Op(ops.Where, nil, isNaN, c.hostInts(slots, tensor.Shape{k}), c.Constant(ops.IntScalar(-1))))
		slot := c.Op(ops.Where, nil, c.Op(ops.Ge, nil, lastNaN, c.Constant(ops.IntScalar(0))), lastNaN, first)
		row := c.Op(ops.Add, nil, c.hostInts(rowLo, tensor.Shape{nOut}), c.Op(ops.FloorDiv, nil, slot, c.Constant(ops.IntScalar(int64(kw)))))
		col := c.Op(ops.Add, nil, c.hostInts(colLo, tensor.Shape{nOut}), c.Op(ops.Mod, nil, slot, c.Constant(ops.IntScalar(int64(kw)))))
		return c.Op(ops.Add, nil, c.Op(ops.Mul, nil, row, c.Constant(ops.IntScalar(int64(w)))), col)
	})
	return c.Op(ops.Gather, ops.DimAttrs{Dim: len(lead)}, plane, idx), idx
}

// adaptiveMaxBytes is about the host memory that adaptiveMax holds for
// lead planes, nOut windows of k slots and elements of itemsize bytes,
// all of it live until the chain ends: the position table (a Go slice, its
// tensor and the runtime's copy) and the valid mask, 26 bytes a slot, and
// the row and column starts, 48 bytes a window; per slot of each plane the
// windows and their -inf-masked copy (itemsize each), the NaN masks (2)
// and the NaN slots (int64, 8); per window of each plane about ten int64
// results (argmax, max, the slot, row, column and flat index) and the
// values (itemsize). It saturates rather than wrapping.
func adaptiveMaxBytes(lead, nOut, k, itemsize int) int64 {
	f := float64(nOut)*(float64(k)*26+48) +
		float64(lead)*float64(nOut)*(float64(k)*float64(2*itemsize+10)+80+float64(itemsize))
	return int64(min(f, 1<<62))
}

// blockGeometry is the sliding-block layout shared by unfold and fold.
type blockGeometry struct {
	kernel, dilation, padding, stride [2]int
	blocks                            [2]int // the number of blocks along H and W
	h, w                              int    // the image's size, without padding
}

// readBlockGeometry checks unfold's or fold's input x (floating point, of
// rank batched or batched-1, described by layout) and reads kernel_size,
// dilation, padding and stride (ints or pairs), checked as torch does.
func readBlockGeometry(fname string, x *refs.Ref, batched int, layout string, kernel, dilation, padding, stride []int) (blockGeometry, error) {
	var g blockGeometry
	var err error
	if xs := x.Shape(); len(xs) != batched && len(xs) != batched-1 {
		return g, fmt.Errorf("%s: expected an input of shape %s, got %v", fname, layout, xs)
	}
	if !x.DType().IsFloat() {
		return g, fmt.Errorf("%s: the input must be floating point, got %s", fname, x.DType())
	}
	for _, p := range []struct {
		name string
		v    []int
		dst  *[2]int
		min  int
	}{{"kernel_size", kernel, &g.kernel, 1}, {"dilation", dilation, &g.dilation, 1}, {"padding", padding, &g.padding, 0}, {"stride", stride, &g.stride, 1}} {
		if *p.dst, err = intPair(fname, p.name, p.v); err != nil {
			return g, err
		}
		if p.dst[0] < p.min || p.dst[1] < p.min {
			word := "greater than zero"
			if p.min == 0 {
				word = "non-negative"
			}
			return g, fmt.Errorf("%s: %s must be %s, got %s", fname, p.name, word, pairString(*p.dst))
		}
	}
	if _, err := tensor.CheckedNumel(tensor.Shape{g.kernel[0], g.kernel[1]}); err != nil {
		return g, fmt.Errorf("%s: kernel_size %s: %v", fname, pairString(g.kernel), err)
	}
	return g, nil
}

func pairString(p [2]int) string { return fmt.Sprintf("(%d, %d)", p[0], p[1]) }

// layout fixes the geometry for an image of h×w and counts the blocks,
// failing (as torch) when there are none along an axis, and when a
// block's span or the padded image is longer than a tensor's dimension
// can be (tensor.MaxElements), before the arithmetic could wrap.
func (g *blockGeometry) layout(fname string, h, w int) error {
	size := [2]int{h, w}
	const most = tensor.MaxElements
	for i := range 2 {
		if g.kernel[i] > 1 && g.dilation[i] > (most-1)/(g.kernel[i]-1) {
			return fmt.Errorf("%s: kernel_size %s with dilation %s spans more than %d elements", fname, pairString(g.kernel), pairString(g.dilation), most)
		}
		if g.padding[i] > (most-size[i])/2 {
			return fmt.Errorf("%s: an image of %d×%d with padding %s is larger than %d elements along a side", fname, h, w, pairString(g.padding), most)
		}
		padded, span := size[i]+2*g.padding[i], g.dilation[i]*(g.kernel[i]-1)+1
		g.blocks[i] = (padded-span)/g.stride[i] + 1
		if padded < span {
			g.blocks[i] = 0
		}
	}
	g.h, g.w = h, w
	if g.blocks[0] < 1 || g.blocks[1] < 1 {
		return fmt.Errorf("%s: an image of %d×%d with kernel_size %s, dilation %s, padding %s and stride %s has %d×%d sliding blocks; it needs at least one",
			fname, h, w, pairString(g.kernel), pairString(g.dilation), pairString(g.padding), pairString(g.stride), max(g.blocks[0], 0), max(g.blocks[1], 0))
	}
	return nil
}

// positions is the flat position in the h×w image of every element of
// every block, in unfold's order: kernel row, kernel column, block; an
// element in the padding gets h·w, one slot past the image (unfold reads
// a zero there, fold adds into it and drops it), so the padded image is
// never made.
func (g *blockGeometry) positions(c *chain) *refs.Ref {
	kh, kw, l := g.kernel[0], g.kernel[1], g.blocks[0]*g.blocks[1]
	n := int64(kh) * int64(kw) * int64(l)
	// The Go slice, its tensor and the runtime's copy.
	if err := c.Thread().RT.HostPool().Check(n * 24); err != nil {
		c.Fail(err)
		return nil
	}
	pos := make([]int64, 0, n)
	for a := range kh {
		for e := range kw {
			for bi := range g.blocks[0] {
				r := bi*g.stride[0] + a*g.dilation[0] - g.padding[0]
				for bj := range g.blocks[1] {
					col := bj*g.stride[1] + e*g.dilation[1] - g.padding[1]
					p := int64(g.h * g.w)
					if r >= 0 && r < g.h && col >= 0 && col < g.w {
						p = int64(r*g.w + col)
					}
					pos = append(pos, p)
				}
			}
		}
	}
	return c.hostInts(pos, tensor.Shape{len(pos)})
}

func unfoldBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	tensorUnfold := len(args) == 4 && len(kwargs) == 0
	for _, kw := range kwargs {
		if kw.Name == "dimension" || kw.Name == "size" || kw.Name == "step" {
			tensorUnfold = true
		}
	}
	if tensorUnfold {
		return tensorUnfoldBuiltin(th, b, args, kwargs)
	}
	var x *refs.Ref
	var kernel []int
	dilation, padding, stride := []int{1}, []int{0}, []int{1}
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input", &x, "kernel_size", &kernel, "dilation?", &dilation,
		"padding?", &padding, "stride?", &stride); err != nil {
		return nil, err
	}
	g, err := readBlockGeometry(b.Name, x, 4, "[N, C, H, W] or [C, H, W] (Tensor.unfold takes dimension, size and step)", kernel, dilation, padding, stride)
	if err != nil {
		return nil, err
	}
	xs := x.Shape()
	if err := g.layout(b.Name, xs[len(xs)-2], xs[len(xs)-1]); err != nil {
		return nil, err
	}
	lead := xs[:len(xs)-3]
	ch := xs[len(xs)-3]
	k := g.kernel[0] * g.kernel[1]
	if _, err := tensor.CheckedNumel(slices.Concat(lead, tensor.Shape{ch, g.kernel[0], g.kernel[1], g.blocks[0], g.blocks[1]})); err != nil {
		return nil, fmt.Errorf("%s: %v", b.Name, err)
	}
	c := newChain(th)
	flat := c.Reshape(x, slices.Concat(lead, tensor.Shape{ch, g.h * g.w}))
	if g.padding != [2]int{} { // the zero slot that padding reads
		flat = c.Op(ops.Cat, ops.CatAttrs{Dim: len(lead) + 1}, flat, c.Expand(c.scalar(0, x.DType()), slices.Concat(lead, tensor.Shape{ch, 1})))
	}
	cols := c.Op(ops.IndexSelect, ops.DimAttrs{Dim: len(lead) + 1}, flat, g.positions(c))
	return named(b.Name)(c.Result(c.Reshape(cols, slices.Concat(lead, tensor.Shape{ch * k, g.blocks[0] * g.blocks[1]}))))
}

func foldBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	var outSize, kernel []int
	dilation, padding, stride := []int{1}, []int{0}, []int{1}
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input", &x, "output_size", &outSize, "kernel_size", &kernel,
		"dilation?", &dilation, "padding?", &padding, "stride?", &stride); err != nil {
		return nil, err
	}
	size, err := intPair(b.Name, "output_size", outSize)
	if err != nil {
		return nil, err
	}
	g, err := readBlockGeometry(b.Name, x, 3, "[N, C·kh·kw, L] or [C·kh·kw, L]", kernel, dilation, padding, stride)
	if err != nil {
		return nil, err
	}
	if size[0] < 1 || size[1] < 1 {
		return nil, fmt.Errorf("%s: output_size must be positive, got %s", b.Name, pairString(size))
	}
	xs := x.Shape()
	k := g.kernel[0] * g.kernel[1]
	lead := xs[:len(xs)-2]
	rows, l := xs[len(xs)-2], xs[len(xs)-1]
	if rows%k != 0 {
		return nil, fmt.Errorf("%s: the input's dimension %d (%d) must be divisible by the product of kernel_size %s", b.Name, len(xs)-2, rows, pairString(g.kernel))
	}
	if err := g.layout(b.Name, size[0], size[1]); err != nil {
		return nil, err
	}
	if l != g.blocks[0]*g.blocks[1] {
		return nil, fmt.Errorf("%s: output_size %s, kernel_size %s, dilation %s, padding %s and stride %s give %d * %d = %d sliding blocks, but the input's last dimension is %d",
			b.Name, pairString(size), pairString(g.kernel), pairString(g.dilation), pairString(g.padding), pairString(g.stride), g.blocks[0], g.blocks[1], g.blocks[0]*g.blocks[1], l)
	}
	ch := rows / k
	if _, err := tensor.CheckedNumel(slices.Concat(lead, tensor.Shape{ch, g.h*g.w + 1})); err != nil {
		return nil, fmt.Errorf("%s: %v", b.Name, err)
	}
	c := newChain(th)
	src := c.Reshape(x, slices.Concat(lead, tensor.Shape{ch, k * l}))
	at := slices.Repeat(tensor.Shape{1}, len(lead)+1)
	idx := c.Expand(c.Reshape(g.positions(c), append(at, k*l)), src.Shape())
	// One slot past the image takes what falls in the padding.
	zeros := c.Expand(c.scalar(0, x.DType()), slices.Concat(lead, tensor.Shape{ch, g.h*g.w + 1}))
	img := c.Op(ops.ScatterAdd, ops.DimAttrs{Dim: len(lead) + 1}, zeros, idx, src)
	img = c.Op(ops.Index, &ops.IndexAttrs{Items: ops.SliceAlong(len(lead)+1, 0, g.h*g.w)}, img)
	return named(b.Name)(c.Result(c.Reshape(img, slices.Concat(lead, tensor.Shape{ch, g.h, g.w}))))
}

// tensorUnfoldBuiltin is Tensor.unfold(dimension, size, step): the
// windows x[..., i·step : i·step + size, ...] along dimension, stacked in
// its place, their elements in a new last dimension.
func tensorUnfoldBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	var dim, size, step int
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input", &x, "dimension", &dim, "size", &size, "step", &step); err != nil {
		return nil, err
	}
	xs := x.Shape()
	d, err := tensor.NormDim(dim, max(len(xs), 1))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", b.Name, err)
	}
	n := 1
	if len(xs) > 0 {
		n = xs[d]
	}
	switch {
	case step <= 0:
		return nil, fmt.Errorf("%s: step is %d but must be > 0", b.Name, step)
	case size < 0:
		return nil, fmt.Errorf("%s: size is %d but must be >= 0", b.Name, size)
	case size > n:
		return nil, fmt.Errorf("%s: maximum size for tensor at dimension %d is %d but size is %d", b.Name, d, n, size)
	}
	windows := (n-size)/step + 1
	c := newChain(th)
	if len(xs) == 0 { // as torch: [size], size 0 or 1
		return c.Result(c.Op(ops.IndexSelect, ops.DimAttrs{Dim: 0}, c.Reshape(x, tensor.Shape{1}), c.hostInts(make([]int64, size), tensor.Shape{size})))
	}
	out := slices.Concat(xs[:d], tensor.Shape{windows}, xs[d+1:], tensor.Shape{size})
	numel, err := tensor.CheckedNumel(out)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", b.Name, err)
	}
	// The positions (a Go slice, its tensor and the runtime's copy) and
	// the windows, selected and then permuted: torch's view costs nothing,
	// tref's copies cost all of this up front.
	need := float64(windows)*float64(size)*24 + 2*float64(numel)*float64(x.DType().Size())
	if err := th.RT.HostPool().Check(int64(min(need, 1<<62))); err != nil {
		return nil, fmt.Errorf("%s: %d windows of %d elements: %v", b.Name, windows, size, err)
	}
	pos := make([]int64, 0, windows*size)
	for i := range windows {
		for j := range size {
			pos = append(pos, int64(i*step+j))
		}
	}
	sel := c.Op(ops.IndexSelect, ops.DimAttrs{Dim: d}, x, c.hostInts(pos, tensor.Shape{len(pos)}))
	split := c.Reshape(sel, slices.Concat(xs[:d], tensor.Shape{windows, size}, xs[d+1:]))
	perm := make([]int, 0, len(out))
	for i := range len(out) {
		if i != d+1 {
			perm = append(perm, i)
		}
	}
	return c.Result(c.Op(ops.Permute, ops.PermuteAttrs{Dims: append(perm, d+1)}, split))
}
