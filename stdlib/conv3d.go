package stdlib

import (
	"fmt"
	"math"
	"slices"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// The 3-d convolution and pools of volumes [N, C, D, H, W], composed of
// the 2-d ops: a strided slice of the (padded) input per kernel depth
// index gives, for every output depth, the input planes that kernel depth
// reads, and the 2-d op does the rest over height and width. So the
// number of ops grows with the kernel's depth, not the input's, gradients
// come from the ops' own rules, and every backend runs them as they are.
// (max_pool3d's return_indices gathers every window's elements instead,
// and adaptive_avg_pool3d averages the depths of the 2-d pool's planes
// with a matrix product.)
func init() {
	register("conv3d", "conv3d(input, weight, bias=none, stride=1, padding=0, dilation=1, groups=1): 3-d convolution of [N, C, D, H, W] (or [C, D, H, W]) by weight [Cout, C/groups, kd, kh, kw], as torch's F.conv3d; stride, padding and dilation are an int or a list of 3 (depth, height, width), padding also \"same\" (stride 1; an odd total puts the extra element at the end) or \"valid\"; it runs as one conv2d over the kd depth-shifted slices of the input stacked as channels", builtinConv3d)
	register("max_pool3d", "max_pool3d(input, kernel_size, stride=kernel_size, padding=0, dilation=1, ceil_mode=false, return_indices=false): maximum over 3-d windows of [N, C, D, H, W] (or [C, D, H, W]), float32 or float64, as torch's F.max_pool3d: padding is -inf, the gradient goes to each window's first maximum in (depth, height, width) order (a NaN wins: the last one); with return_indices the record (values, indices), the indices flat within each D×H×W volume (found from every window's kd·kh·kw elements, so that call holds that many times the result's memory)", builtinMaxPool3d)
	register("avg_pool3d", "avg_pool3d(input, kernel_size, stride=kernel_size, padding=0, ceil_mode=false, count_include_pad=true, divisor_override=none): mean over 3-d windows of [N, C, D, H, W] (or [C, D, H, W]), as torch's F.avg_pool3d: each window's sum over the input and its zero padding, divided by divisor_override (any nonzero int) or by the window's size clipped to the padded input (count_include_pad) or to the input; as torch's avg_pool3d the input without padding must hold the kernel", builtinAvgPool3d)
	register("adaptive_avg_pool3d", "adaptive_avg_pool3d(input, output_size): mean over the windows that cut [N, C, D, H, W] (or [C, D, H, W]) into output_size (an int, or [d, h, w] where none keeps that size), output depth i averaging input depths floor(i·D/d) to ceil((i+1)·D/d), as torch's F.adaptive_avg_pool3d", builtinAdaptiveAvgPool3d)
}

// axes3 names the three window axes in messages.
var axes3 = [3]string{"depth", "height", "width"}

// intTriple reads an int or a list of 1 or 3 ints as (depth, height,
// width).
func intTriple(fname, param string, v []int) ([3]int, error) {
	switch len(v) {
	case 1:
		return [3]int{v[0], v[0], v[0]}, nil
	case 3:
		return [3]int{v[0], v[1], v[2]}, nil
	}
	return [3]int{}, fmt.Errorf("%s: %s must be an int or a list of 3 ints, got %v", fname, param, tensor.Shape(v))
}

func tripleString(p [3]int) string { return fmt.Sprintf("(%d, %d, %d)", p[0], p[1], p[2]) }

// volume checks that x is [N, C, D, H, W] or [C, D, H, W] and gives its
// batched shape.
func volume(fname string, x *refs.Ref) (tensor.Shape, error) {
	xs := x.Shape()
	switch len(xs) {
	case 5:
		return xs.Clone(), nil
	case 4:
		return append(tensor.Shape{1}, xs...), nil
	}
	return nil, fmt.Errorf("%s: expected an input of shape [N, C, D, H, W] or [C, D, H, W], got %v", fname, xs)
}

// window3 is the layout of a 3-d convolution or pool along depth, height
// and width (0, 1, 2): the input's size, the kernel, stride, dilation and
// padding before and after, and (from layout) the number of windows.
type window3 struct {
	in, kernel, stride, dilation, padLo, padHi [3]int
	ceil                                       bool
	out                                        [3]int
}

// layout counts the windows along each axis as torch does (with ceil_mode
// the last window may overhang the input, but must start inside it or in
// the padding before it), failing when there are none, and before the
// arithmetic could wrap.
func (g *window3) layout(fname string) error {
	const most = tensor.MaxElements
	for i := range 3 {
		n, k, d := g.in[i], g.kernel[i], g.dilation[i]
		if k > 1 && d > (most-1)/(k-1) {
			return fmt.Errorf("%s: kernel size %s with dilation %s spans more than %d elements", fname, tripleString(g.kernel), tripleString(g.dilation), most)
		}
		if g.padLo[i] > most-n || g.padHi[i] > most-n-g.padLo[i] {
			return fmt.Errorf("%s: the %s %d with padding (%d, %d) is longer than %d elements", fname, axes3[i], n, g.padLo[i], g.padHi[i], most)
		}
		// A longer stride gives the same single window, and keeps
		// (out-1)·stride from wrapping.
		g.stride[i] = min(g.stride[i], most+1)
		s, span, padded := g.stride[i], d*(k-1)+1, n+g.padLo[i]+g.padHi[i]
		room := padded - span
		if g.ceil {
			room += s - 1
		}
		if room < 0 {
			return fmt.Errorf("%s: the input's %s %d (padded to %d) is smaller than the kernel's extent %d", fname, axes3[i], n, padded, span)
		}
		out := room/s + 1
		if g.ceil && (out-1)*s >= n+g.padLo[i] {
			out--
		}
		if out < 1 {
			return fmt.Errorf("%s: the input's %s %d with kernel %d, stride %d and padding %d has no window", fname, axes3[i], n, k, s, g.padLo[i])
		}
		g.out[i] = out
	}
	return nil
}

// overhang is how far the windows along axis i reach past the padded
// input (ceil_mode's last window), 0 when they do not.
func (g *window3) overhang(i int) int {
	need := (g.out[i]-1)*g.stride[i] + g.dilation[i]*(g.kernel[i]-1) + 1
	return max(0, need-(g.in[i]+g.padLo[i]+g.padHi[i]))
}

// padded is x [N, C, D, H, W] padded with v: lo[i] before and hi[i] after
// axis i (x itself when there is nothing to add).
func (c *chain) padded(x *refs.Ref, lo, hi [3]int, v float64) *refs.Ref {
	if lo == [3]int{} && hi == [3]int{} {
		return x
	}
	return c.Op(ops.Pad, ops.PadAttrs{Pads: []int{lo[2], hi[2], lo[1], hi[1], lo[0], hi[0]}, Value: v}, x)
}

// depthTaps is, for each kernel depth index kd, the input planes it reads
// for every output depth: xp[:, :, kd·dil : kd·dil + (out-1)·stride + 1 :
// stride], each [N, C, out, H, W], from xp [N, C, D, H, W] padded in
// depth by the window's padding.
func (c *chain) depthTaps(xp *refs.Ref, g window3) []*refs.Ref {
	taps := make([]*refs.Ref, g.kernel[0])
	if c.Err() != nil {
		return taps
	}
	depth := xp.Shape()[2]
	for kd := range taps {
		start := kd * g.dilation[0]
		stop := start + (g.out[0]-1)*g.stride[0] + 1
		if start == 0 && g.stride[0] == 1 && stop == depth {
			taps[kd] = xp
			continue
		}
		items := ops.FullSlices(3)
		items[2] = ops.IndexItem{Kind: ops.IndexSlice, Start: start, Stop: stop, Step: g.stride[0], HasStart: true, HasStop: true}
		taps[kd] = c.Op(ops.Index, ops.IndexAttrs{Items: items}, xp)
	}
	return taps
}

// permuted is x with its dimensions in the order dims, a reshape when the
// dimensions longer than 1 keep their order.
func (c *chain) permuted(x *refs.Ref, dims []int) *refs.Ref {
	if x == nil {
		return nil
	}
	xs := x.Shape()
	out := make(tensor.Shape, len(dims))
	last, moves := -1, false
	for i, d := range dims {
		out[i] = xs[d]
		if xs[d] != 1 {
			moves = moves || d < last
			last = d
		}
	}
	if !moves {
		return c.Reshape(x, out)
	}
	return c.Op(ops.Permute, ops.PermuteAttrs{Dims: dims}, x)
}

// unbatched drops the batch dimension of y when the input had none.
func (c *chain) unbatched(y *refs.Ref, x *refs.Ref) *refs.Ref {
	if y == nil || len(x.Shape()) == 5 {
		return y
	}
	return c.Reshape(y, y.Shape()[1:])
}

// convBias reads the bias argument of conv3d and conv_transpose3d: none
// (nil) or a tensor [channels], one value per output channel.
func convBias(fname string, v eval.Value, channels int) (*refs.Ref, error) {
	if _, none := v.(eval.NoneType); none {
		return nil, nil
	}
	t, ok := v.(eval.Tensor)
	if !ok {
		return nil, fmt.Errorf("%s: argument \"bias\" must be a tensor or none, not %s", fname, eval.Describe(v))
	}
	if bs := t.Ref.Shape(); len(bs) != 1 || bs[0] != channels {
		return nil, fmt.Errorf("%s: bias of shape %v, expected [%d]", fname, bs, channels)
	}
	return t.Ref, nil
}

func builtinConv3d(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	const fname = "conv3d"
	ca, err := unpackConv(th, fname, args, kwargs)
	if err != nil {
		return nil, err
	}
	x, w, bias, padding, stride, dilation, groups := ca.x, ca.w, ca.bias, ca.padding, ca.stride, ca.dilation, ca.groups
	xs, err := volume(fname, x)
	if err != nil {
		return nil, err
	}
	ws := w.Shape()
	if len(ws) != 5 {
		return nil, fmt.Errorf("conv3d: expected a weight of shape [Cout, C/groups, kd, kh, kw], got %v", ws)
	}
	g := window3{in: [3]int{xs[2], xs[3], xs[4]}, kernel: [3]int{ws[2], ws[3], ws[4]}}
	if g.stride, err = intTriple(fname, "stride", stride); err != nil {
		return nil, err
	}
	if g.dilation, err = intTriple(fname, "dilation", dilation); err != nil {
		return nil, err
	}
	switch {
	case min(g.stride[0], g.stride[1], g.stride[2]) < 1:
		return nil, fmt.Errorf("conv3d: stride must be at least 1, got %s", tripleString(g.stride))
	case min(g.dilation[0], g.dilation[1], g.dilation[2]) < 1:
		return nil, fmt.Errorf("conv3d: dilation must be at least 1, got %s", tripleString(g.dilation))
	case groups < 1:
		return nil, fmt.Errorf("conv3d: groups must be at least 1, got %d", groups)
	case xs[1]%groups != 0 || ws[0]%groups != 0:
		return nil, fmt.Errorf("conv3d: %d input and %d output channels are not divisible by groups=%d", xs[1], ws[0], groups)
	case ws[1] != xs[1]/groups:
		return nil, fmt.Errorf("conv3d: input %v has %d channels, weight %v expects %d (×%d groups)", x.Shape(), xs[1], ws, ws[1], groups)
	case slices.Contains(ws[2:], 0):
		return nil, fmt.Errorf("conv3d: the kernel of weight %v is empty", ws)
	}
	if s, ok := padding.(eval.String); ok {
		switch s {
		case "valid":
		case "same":
			if g.stride != [3]int{1, 1, 1} {
				return nil, fmt.Errorf("conv3d: padding=\"same\" needs stride 1, got stride %s", tripleString(g.stride))
			}
			for i := range 3 {
				if g.kernel[i] > 1 && g.dilation[i] > (tensor.MaxElements-1)/(g.kernel[i]-1) {
					continue // layout refuses it
				}
				total := g.dilation[i] * (g.kernel[i] - 1)
				g.padLo[i], g.padHi[i] = total/2, total-total/2
			}
		default:
			return nil, fmt.Errorf("conv3d: padding must be an int, a list of 3 ints, \"same\" or \"valid\", got %q", string(s))
		}
	} else {
		var p []int
		if err := eval.UnpackArgs(th, fname, []eval.Value{padding}, nil, "padding", &p); err != nil {
			return nil, err
		}
		if g.padLo, err = intTriple(fname, "padding", p); err != nil {
			return nil, err
		}
		if min(g.padLo[0], g.padLo[1], g.padLo[2]) < 0 {
			return nil, fmt.Errorf("conv3d: padding must be non-negative, got %s", tripleString(g.padLo))
		}
		g.padHi = g.padLo
	}
	metas := []tensor.Meta{x.Meta(), w.Meta()}
	b, err := convBias(fname, bias, ws[0])
	if err != nil {
		return nil, err
	}
	if b != nil {
		metas = append(metas, b.Meta())
	}
	if _, err := ops.FloatDType(fname, metas); err != nil {
		return nil, err
	}
	if err := g.layout(fname); err != nil {
		return nil, err
	}
	n, ch, kd, dout := xs[0], xs[1], g.kernel[0], g.out[0]
	cg := ch / groups
	// The kd depth slices of the input, stacked as channels: for each
	// output depth an image of kd·C channels, group-major so that conv2d's
	// groups take theirs: [N·Dout, groups·kd·C/groups, H, W].
	in2 := tensor.Shape{n * dout, kd * ch, xs[3], xs[4]}
	if _, err := tensor.CheckedNumel(in2); err != nil {
		return nil, fmt.Errorf("conv3d: the %d depth slices of input %v: %v", kd, x.Shape(), err)
	}
	a := ops.Conv2dAttrs{Groups: groups,
		Stride: [2]int{g.stride[1], g.stride[2]}, Dilation: [2]int{g.dilation[1], g.dilation[2]},
		PadLo: [2]int{g.padLo[1], g.padLo[2]}, PadHi: [2]int{g.padHi[1], g.padHi[2]}}
	w2 := tensor.Shape{ws[0], kd * cg, ws[3], ws[4]}
	var b2 *tensor.Shape
	if b != nil {
		bs := b.Shape()
		b2 = &bs
	}
	if _, err := ops.Conv2dLayout(in2, w2, b2, a); err != nil {
		return nil, fmt.Errorf("conv3d over %v with weight %v: %v", x.Shape(), ws, err)
	}
	c := newChain(th)
	xp := c.padded(c.Reshape(x, xs), [3]int{g.padLo[0]}, [3]int{g.padHi[0]}, 0)
	taps := c.depthTaps(xp, g)
	st := taps[0]
	if kd > 1 {
		st = c.Op(ops.Stack, ops.CatAttrs{Dim: 2}, taps...) // [N, C, kd, Dout, H, W]
	}
	st = c.Reshape(st, tensor.Shape{n, groups, cg, kd, dout, xs[3], xs[4]})
	st = c.permuted(st, []int{0, 4, 1, 3, 2, 5, 6}) // [N, Dout, groups, kd, C/groups, H, W]
	// The weight alike: [Cout, kd·C/groups, kh, kw].
	wt := c.Reshape(c.permuted(w, []int{0, 2, 1, 3, 4}), w2)
	ins := []*refs.Ref{c.Reshape(st, in2), wt}
	if b != nil {
		ins = append(ins, b)
	}
	y := c.Op(ops.Conv2d, a, ins...) // [N·Dout, Cout, Hout, Wout]
	y = c.Reshape(y, tensor.Shape{n, dout, ws[0], g.out[1], g.out[2]})
	return c.Result(c.unbatched(c.permuted(y, []int{0, 2, 1, 3, 4}), x))
}

// poolWindow3 reads a 3-d pool's kernel_size, stride (none, or an empty
// list as torch allows, is the kernel), padding (at most half the kernel)
// and dilation for the input x (batched: xs), checked as torch does, and lays
// the windows out.
func poolWindow3(th *eval.Thread, fname string, x *refs.Ref, xs tensor.Shape, kernel []int, stride eval.Value, padding, dilation []int, ceil bool) (window3, error) {
	g := window3{in: [3]int{xs[2], xs[3], xs[4]}, ceil: ceil}
	var err error
	if g.kernel, err = intTriple(fname, "kernel_size", kernel); err != nil {
		return g, err
	}
	if g.stride, err = poolStride(th, fname, stride, g.kernel, intTriple); err != nil {
		return g, err
	}
	if g.padLo, err = intTriple(fname, "padding", padding); err != nil {
		return g, err
	}
	g.padHi = g.padLo
	if g.dilation, err = intTriple(fname, "dilation", dilation); err != nil {
		return g, err
	}
	for _, p := range []struct {
		name string
		v    [3]int
		min  int
	}{{"kernel_size", g.kernel, 1}, {"stride", g.stride, 1}, {"padding", g.padLo, 0}, {"dilation", g.dilation, 1}} {
		if min(p.v[0], p.v[1], p.v[2]) < p.min {
			return g, fmt.Errorf("%s: %s must be at least %d, got %s", fname, p.name, p.min, tripleString(p.v))
		}
	}
	for i := range 3 {
		if g.padLo[i] > g.kernel[i]/2 {
			return g, fmt.Errorf("%s: padding %s must be at most half of the kernel_size %s", fname, tripleString(g.padLo), tripleString(g.kernel))
		}
	}
	if slices.Contains(xs[1:], 0) {
		return g, fmt.Errorf("%s: the input %v has an empty non-batch dimension", fname, x.Shape())
	}
	return g, g.layout(fname)
}

func builtinMaxPool3d(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	const fname = "max_pool3d"
	var x *refs.Ref
	var kernel, padding, dilation []int = nil, []int{0}, []int{1}
	var stride eval.Value = eval.None
	ceil, withIndices := false, false
	if err := eval.UnpackArgs(th, fname, args, kwargs, "input", &x, "kernel_size", &kernel, "stride?", &stride,
		"padding?", &padding, "dilation?", &dilation, "ceil_mode?", &ceil, "return_indices?", &withIndices); err != nil {
		return nil, err
	}
	xs, err := volume(fname, x)
	if err != nil {
		return nil, err
	}
	if dt := x.DType(); dt != tensor.Float32 && dt != tensor.Float64 {
		return nil, fmt.Errorf("max_pool3d: expected a float32 or float64 tensor, got %s", dt)
	}
	g, err := poolWindow3(th, fname, x, xs, kernel, stride, padding, dilation, ceil)
	if err != nil {
		return nil, err
	}
	outShape := tensor.Shape{xs[0], xs[1], g.out[0], g.out[1], g.out[2]}
	if withIndices {
		return named(fname)(maxPool3dWithIndices(th, x, xs, g))
	}
	if _, err := tensor.CheckedNumel(append(tensor.Shape{g.kernel[0]}, outShape...)); err != nil {
		return nil, fmt.Errorf("max_pool3d: the %d depth slices of the result %v: %v", g.kernel[0], outShape, err)
	}
	// Depth is padded here with -inf, and so are height and width where
	// a ceil_mode window overhangs the padded input entirely (max_pool2d
	// wants its kernel inside); max_pool2d pads the rest.
	lo, hi := [3]int{g.padLo[0]}, [3]int{g.padHi[0] + g.overhang(0)}
	a := ops.Pool2dAttrs{CeilMode: ceil,
		Kernel: [2]int{g.kernel[1], g.kernel[2]}, Stride: [2]int{g.stride[1], g.stride[2]},
		Padding: [2]int{g.padLo[1], g.padLo[2]}, Dilation: [2]int{g.dilation[1], g.dilation[2]}}
	for i := 1; i < 3; i++ {
		hi[i] = max(0, g.dilation[i]*(g.kernel[i]-1)+1-g.in[i]-g.padLo[i]-g.padHi[i])
	}
	c := newChain(th)
	xp := c.padded(c.Reshape(x, xs), lo, hi, math.Inf(-1))
	taps := c.depthTaps(xp, g)
	for i, t := range taps {
		if c.Err() != nil {
			break
		}
		ts := t.Shape()
		y := c.Op(ops.MaxPool2d, a, c.Reshape(t, tensor.Shape{ts[0], ts[1] * ts[2], ts[3], ts[4]}))
		taps[i] = c.Reshape(y, outShape)
	}
	if len(taps) == 1 {
		return c.Result(c.unbatched(taps[0], x))
	}
	// The first depth slice holding the window's maximum (torch's first
	// maximum, max_pool2d having taken the first within each slice), or
	// the last holding a NaN (torch takes every NaN it meets); the values
	// are gathered from there, so the gradient goes to that element.
	st := c.Op(ops.Stack, ops.CatAttrs{Dim: 0}, taps...) // [kd, N, C, Dout, Hout, Wout]
	slot := c.detached(func() *refs.Ref {
		keep := ops.ReduceAttrs{Dims: []int{0}, Keepdim: true}
		first := c.Op(ops.Argmax, keep, st)
		if g.padLo[0] > 0 {
			// A window of -inf alone: torch's index is its first element
			// inside the input, not a slice of padding.
			fv := make([]int64, g.out[0])
			for od := range fv {
				start := od*g.stride[0] - g.padLo[0]
				for start < 0 {
					start += g.dilation[0]
					fv[od]++
				}
			}
			top := c.Op(ops.Gather, ops.DimAttrs{Dim: 0}, st, first)
			isLow := c.Op(ops.Eq, nil, top, c.scalar(math.Inf(-1), x.DType()))
			first = c.Op(ops.Where, nil, isLow, c.hostInts(fv, tensor.Shape{g.out[0], 1, 1}), first)
		}
		kds := make([]int64, g.kernel[0])
		for i := range kds {
			kds[i] = int64(i)
		}
		lastNaN := c.Op(ops.Max, keep, c.Op(ops.Where, nil, c.Op(ops.Isnan, nil, st),
			c.hostInts(kds, tensor.Shape{g.kernel[0], 1, 1, 1, 1, 1}), c.Constant(ops.IntScalar(-1))))
		return c.Op(ops.Where, nil, c.Op(ops.Ge, nil, lastNaN, c.Constant(ops.IntScalar(0))), lastNaN, first)
	})
	y := c.Op(ops.Gather, ops.DimAttrs{Dim: 0}, st, slot)
	return c.Result(c.unbatched(c.Reshape(y, outShape), x))
}

// maxPool3dWithIndices is max_pool3d with return_indices: every window's
// elements gathered from the flattened volume (im2col, kd·kh·kw slots a
// window, so it holds that many times the result), the slot torch's
// kernel takes found with the gradient tape paused, and the values read
// there with gather.
func maxPool3dWithIndices(th *eval.Thread, x *refs.Ref, xs tensor.Shape, g window3) (eval.Value, error) {
	const fname = "max_pool3d"
	vol := xs[2] * xs[3] * xs[4]
	nOut := g.out[0] * g.out[1] * g.out[2]
	k := g.kernel[0] * g.kernel[1] * g.kernel[2]
	planes := xs[0] * xs[1]
	if _, err := tensor.CheckedNumel(tensor.Shape{planes, nOut, k}); err != nil {
		return nil, fmt.Errorf("%s: the %d windows of %d elements of each of %d volumes: %v", fname, nOut, k, planes, err)
	}
	// The Go tables and their tensors (positions, mask); per window slot
	// of each volume its element, the masked copy (8 bytes each at most),
	// the NaN mask and slots (10); per window some ten int64 results.
	need := float64(nOut)*float64(k)*26 + float64(planes)*float64(nOut)*(float64(k)*26+96)
	if err := th.RT.HostPool().Check(int64(min(need, 1<<62))); err != nil {
		return nil, fmt.Errorf("%s: return_indices: %d windows of %d elements: %v", fname, nOut, k, err)
	}
	// Per output position and slot, the element's flat position (0 where
	// it is in the padding) and whether it is inside the input; per output
	// position the flat position of its first slot, and torch's index for
	// a window of -inf alone: the first coordinate >= 0 along each axis
	// (past the input for a window of padding alone, whose value is -inf).
	pos := make([]int64, 0, nOut*k)
	valid := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{nOut, k}, DType: tensor.Bool})
	empty := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{nOut}, DType: tensor.Bool})
	base, fallback := make([]int64, 0, nOut), make([]int64, 0, nOut)
	anyEmpty := false
	strides := [3]int{xs[3] * xs[4], xs[4], 1}
	flat := func(p [3]int) int64 { return int64(p[0]*strides[0] + p[1]*strides[1] + p[2]) }
	var o [3]int
	for o[0] = 0; o[0] < g.out[0]; o[0]++ {
		for o[1] = 0; o[1] < g.out[1]; o[1]++ {
			for o[2] = 0; o[2] < g.out[2]; o[2]++ {
				var start, first [3]int
				hasReal := true
				for i := range 3 {
					start[i] = o[i]*g.stride[i] - g.padLo[i]
					first[i] = start[i]
					for first[i] < 0 {
						first[i] += g.dilation[i]
					}
					end := min(start[i]+g.dilation[i]*(g.kernel[i]-1)+1, g.in[i])
					hasReal = hasReal && first[i] < end
				}
				if !hasReal {
					empty.Buf[len(base)] = 1
					anyEmpty = true
				}
				base, fallback = append(base, flat(start)), append(fallback, flat(first))
				for a := range g.kernel[0] {
					for b := range g.kernel[1] {
						for e := range g.kernel[2] {
							p := [3]int{start[0] + a*g.dilation[0], start[1] + b*g.dilation[1], start[2] + e*g.dilation[2]}
							inside := true
							for i := range 3 {
								inside = inside && p[i] >= 0 && p[i] < g.in[i]
							}
							at := int64(0)
							if inside {
								at = flat(p)
								valid.Buf[len(pos)] = 1
							}
							pos = append(pos, at)
						}
					}
				}
			}
		}
	}
	// Each slot's offset from its window's first slot.
	offsets := make([]int64, 0, k)
	for a := range g.kernel[0] {
		for b := range g.kernel[1] {
			for e := range g.kernel[2] {
				offsets = append(offsets, flat([3]int{a * g.dilation[0], b * g.dilation[1], e * g.dilation[2]}))
			}
		}
	}
	c := newChain(th)
	plane := c.Reshape(x, tensor.Shape{xs[0], xs[1], vol})
	dt := x.DType()
	flatShape := tensor.Shape{xs[0], xs[1], nOut}
	idx := c.detached(func() *refs.Ref {
		win := c.Reshape(c.Op(ops.IndexSelect, ops.DimAttrs{Dim: 2}, plane, c.hostInts(pos, tensor.Shape{len(pos)})), tensor.Shape{xs[0], xs[1], nOut, k})
		ok := c.Host(valid)
		masked := c.Op(ops.Where, nil, ok, win, c.scalar(math.Inf(-1), dt))
		last := ops.ReduceAttrs{Dims: []int{-1}, Keepdim: true}
		slot := c.Op(ops.Argmax, last, masked)
		// torch's kernel takes every NaN it meets: the last one wins.
		slots := make([]int64, k)
		for s := range slots {
			slots[s] = int64(s)
		}
		isNaN := c.Op(ops.BitwiseAnd, nil, c.Op(ops.Isnan, nil, win), ok)
		lastNaN := c.Op(ops.Max, last, c.Op(ops.Where, nil, isNaN, c.hostInts(slots, tensor.Shape{k}), c.Constant(ops.IntScalar(-1))))
		hasNaN := c.Op(ops.Ge, nil, lastNaN, c.Constant(ops.IntScalar(0)))
		// A window whose maximum is -inf: torch's index is its first
		// element inside the input (argmax found a NaN where there is one).
		top := c.Reshape(c.Op(ops.Gather, ops.DimAttrs{Dim: 3}, masked, slot), flatShape)
		low := c.Op(ops.Eq, nil, top, c.scalar(math.Inf(-1), dt))
		slot = c.Op(ops.Where, nil, hasNaN, lastNaN, slot)
		off := c.Op(ops.IndexSelect, ops.DimAttrs{Dim: 0}, c.hostInts(offsets, tensor.Shape{k}), c.Reshape(slot, tensor.Shape{flatShape.Numel()}))
		at := c.Op(ops.Add, nil, c.hostInts(base, tensor.Shape{nOut}), c.Reshape(off, flatShape))
		return c.Op(ops.Where, nil, low, c.hostInts(fallback, tensor.Shape{nOut}), at)
	})
	var vals *refs.Ref
	if anyEmpty {
		isEmpty := c.Host(empty)
		safe := c.Op(ops.Where, nil, isEmpty, c.Constant(ops.IntScalar(0)), idx)
		vals = c.Op(ops.Where, nil, isEmpty, c.scalar(math.Inf(-1), dt), c.Op(ops.Gather, ops.DimAttrs{Dim: 2}, plane, safe))
	} else {
		vals = c.Op(ops.Gather, ops.DimAttrs{Dim: 2}, plane, idx)
	}
	outShape := tensor.Shape{xs[0], xs[1], g.out[0], g.out[1], g.out[2]}
	vals, idx = c.unbatched(c.Reshape(vals, outShape), x), c.unbatched(c.Reshape(idx, outShape), x)
	return c.Record([]string{"values", "indices"}, vals, idx)
}

func builtinAvgPool3d(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	const fname = "avg_pool3d"
	var x *refs.Ref
	var kernel, padding []int = nil, []int{0}
	var stride, divisor eval.Value = eval.None, eval.None
	ceil, includePad := false, true
	if err := eval.UnpackArgs(th, fname, args, kwargs, "input", &x, "kernel_size", &kernel, "stride?", &stride,
		"padding?", &padding, "ceil_mode?", &ceil, "count_include_pad?", &includePad, "divisor_override?", &divisor); err != nil {
		return nil, err
	}
	xs, err := volume(fname, x)
	if err != nil {
		return nil, err
	}
	if !x.DType().IsFloat() {
		return nil, fmt.Errorf("avg_pool3d: expected a floating-point tensor, got %s", x.DType())
	}
	var div eval.OptInt
	if err := eval.UnpackArgs(th, fname, []eval.Value{divisor}, nil, "divisor_override", &div); err != nil {
		return nil, err
	}
	if div.Set && div.V == 0 {
		return nil, fmt.Errorf("avg_pool3d: divisor_override must not be zero")
	}
	g, err := poolWindow3(th, fname, x, xs, kernel, stride, padding, []int{1}, ceil)
	if err != nil {
		return nil, err
	}
	// As torch's avg_pool3d (not its max_pool3d nor avg_pool2d), which
	// checks the input before padding.
	for i := range 3 {
		if g.in[i] < g.kernel[i] {
			return nil, fmt.Errorf("avg_pool3d: the input's %s %d is smaller than the kernel_size %s (torch's avg_pool3d requires the input without its padding to hold the kernel)", axes3[i], g.in[i], tripleString(g.kernel))
		}
	}
	outShape := tensor.Shape{xs[0], xs[1], g.out[0], g.out[1], g.out[2]}
	// Each window's sum: the sums over height and width of the depth
	// slices (avg_pool2d with divisor 1, which pads with zeros), added;
	// then divided by torch's divisor, which is a product of one factor
	// per axis.
	divisors := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{g.out[0], g.out[1], g.out[2]}, DType: x.DType()})
	var factors [3][]int
	for i := range 3 {
		n, k, p := g.in[i], g.kernel[i], g.padLo[i]
		factors[i] = make([]int, g.out[i])
		for o := range factors[i] {
			start := o*g.stride[i] - p
			end := min(start+k, n+p)
			if !includePad {
				start, end = max(start, 0), min(end, n)
			}
			factors[i][o] = max(end-start, 0)
		}
	}
	for i := range divisors.Numel() {
		d := float64(div.V)
		if !div.Set {
			o0, o1, o2 := i/(g.out[1]*g.out[2]), i/g.out[2]%g.out[1], i%g.out[2]
			d = float64(factors[0][o0]) * float64(factors[1][o1]) * float64(factors[2][o2])
			if d == 0 { // a window of padding alone sums to 0, and torch gives 0
				d = 1
			}
		}
		divisors.Set(i, d)
	}
	a := ops.AvgPool2dAttrs{CeilMode: ceil, CountIncludePad: true, DivisorOverride: 1,
		Kernel: [2]int{g.kernel[1], g.kernel[2]}, Stride: [2]int{g.stride[1], g.stride[2]},
		Padding: [2]int{g.padLo[1], g.padLo[2]}}
	c := newChain(th)
	xp := c.padded(c.Reshape(x, xs), [3]int{g.padLo[0]}, [3]int{g.padHi[0] + g.overhang(0)}, 0)
	var sum *refs.Ref
	for _, t := range c.depthTaps(xp, g) {
		if c.Err() != nil {
			break
		}
		ts := t.Shape()
		y := c.Reshape(c.Op(ops.AvgPool2d, a, c.Reshape(t, tensor.Shape{ts[0], ts[1] * ts[2], ts[3], ts[4]})), outShape)
		if sum == nil {
			sum = y
		} else {
			sum = c.Op(ops.Add, nil, sum, y)
		}
	}
	return c.Result(c.unbatched(c.Op(ops.Div, nil, sum, c.Host(divisors)), x))
}

// adaptive3dSize reads a 3-d adaptive pool's output_size for the batched
// input xs: an int, or a list of 1 or 3 (ints or none, none keeping that
// size), none of them negative.
func adaptive3dSize(th *eval.Thread, fname string, size eval.Value, xs tensor.Shape) ([3]int, error) {
	var out [3]int
	items := []eval.Value{size, size, size}
	if l, ok := size.(*eval.List); ok {
		items = l.Elems
		if len(items) == 1 {
			items = []eval.Value{items[0], items[0], items[0]}
		}
	}
	if len(items) != 3 {
		return out, fmt.Errorf("%s: output_size must be an int or a list of 3 (ints or none), got %d values", fname, len(items))
	}
	for i, v := range items {
		var n eval.OptInt
		if err := eval.UnpackArgs(th, fname, []eval.Value{v}, nil, "output_size", &n); err != nil {
			return out, err
		}
		out[i] = xs[2+i] // none keeps the input's size
		if n.Set {
			out[i] = n.V
		}
	}
	if min(out[0], out[1], out[2]) < 0 {
		return out, fmt.Errorf("%s: output_size must be non-negative, got %s", fname, tripleString(out))
	}
	return out, nil
}

func builtinAdaptiveAvgPool3d(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	const fname = "adaptive_avg_pool3d"
	var x *refs.Ref
	var size eval.Value
	if err := eval.UnpackArgs(th, fname, args, kwargs, "input", &x, "output_size", &size); err != nil {
		return nil, err
	}
	xs, err := volume(fname, x)
	if err != nil {
		return nil, err
	}
	if !x.DType().IsFloat() {
		return nil, fmt.Errorf("adaptive_avg_pool3d: the input must be floating point, got %s", x.DType())
	}
	out, err := adaptive3dSize(th, fname, size, xs)
	if err != nil {
		return nil, err
	}
	if slices.Contains(xs[1:], 0) {
		return nil, fmt.Errorf("adaptive_avg_pool3d: the input %v has an empty non-batch dimension", x.Shape())
	}
	outShape := tensor.Shape{xs[0], xs[1], out[0], out[1], out[2]}
	mid := tensor.Shape{xs[0] * xs[1], xs[2], out[1] * out[2]}
	for _, s := range []tensor.Shape{outShape, mid, {out[0], xs[2]}} {
		if _, err := tensor.CheckedNumel(s); err != nil {
			return nil, fmt.Errorf("adaptive_avg_pool3d: %v", err)
		}
	}
	// Every depth plane pooled to out[1]×out[2], then averaged over the
	// depths of each output depth: summed by a product with the [out[0],
	// D] matrix of the windows, and divided by their lengths.
	// The windows' matrix and lengths, and the pooled planes, checked
	// before any is made.
	mm := tensor.Meta{Shape: tensor.Shape{out[0], xs[2]}, DType: x.DType()}
	planes := tensor.Meta{Shape: mid, DType: x.DType()}
	if err := th.RT.HostPool().Check(mm.Bytes() + planes.Bytes() + int64(outShape.Numel())*int64(x.DType().Size())); err != nil {
		return nil, fmt.Errorf("adaptive_avg_pool3d: %v", err)
	}
	m := tensor.NewDense(mm)
	lengths := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{out[0], 1}, DType: x.DType()})
	for od := range out[0] {
		lo, hi := ops.AdaptiveRange(od, out[0], xs[2])
		for d := lo; d < hi; d++ {
			m.Set(od*xs[2]+d, 1)
		}
		lengths.Set(od, float64(hi-lo))
	}
	c := newChain(th)
	y := c.Op(ops.AdaptiveAvgPool2d, ops.AdaptivePool2dAttrs{Out: [2]int{out[1], out[2]}},
		c.Reshape(x, tensor.Shape{xs[0], xs[1] * xs[2], xs[3], xs[4]}))
	y = c.Op(ops.Div, nil, c.Op(ops.Matmul, nil, c.Host(m), c.Reshape(y, mid)), c.Host(lengths))
	return c.Result(c.unbatched(c.Reshape(y, outShape), x))
}
