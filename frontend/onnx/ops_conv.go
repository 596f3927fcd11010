package onnx

import (
	"fmt"
	"math"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Convolutions and pooling in 1, 2 and 3 spatial dimensions. The runtime
// has 2-d conv2d and max_pool2d: 1-d inputs run as 2-d of height 1, 3-d
// ones as a sum (max) of 2-d ones over the kernel's depth, a transposed
// convolution as a convolution of the input spread out by the stride.

func init() {
	lower([]string{"Conv"}, lowerConv)
	lower([]string{"ConvTranspose"}, lowerConvTranspose)
	lower([]string{"MaxPool", "AveragePool"}, lowerPool)
	lower([]string{"GlobalAveragePool", "GlobalMaxPool"}, lowerGlobalPool)
}

// window is the geometry of a convolution or pooling over n spatial dims.
type window struct {
	kernel, stride, dil, lo, hi []int
}

// windowOf reads kernel_shape, strides, dilations, pads and auto_pad for
// an input of spatial size in.
func (c *ctx) windowOf(in []int, kernel []int) (window, error) {
	n := len(in)
	w := window{kernel: kernel, stride: ones(n), dil: ones(n), lo: make([]int, n), hi: make([]int, n)}
	if k, ok := c.attrInts("kernel_shape"); ok {
		if len(k) != n {
			return w, fmt.Errorf("kernel_shape %v for %d spatial dimensions", k, n)
		}
		w.kernel = toInts(k)
	}
	if len(w.kernel) != n {
		return w, fmt.Errorf("needs kernel_shape")
	}
	for name, dst := range map[string][]int{"strides": w.stride, "dilations": w.dil} {
		if v, ok := c.attrInts(name); ok {
			if len(v) != n {
				return w, fmt.Errorf("%s %v for %d spatial dimensions", name, v, n)
			}
			copy(dst, toInts(v))
		}
	}
	for i := range n {
		if w.kernel[i] < 1 || w.stride[i] < 1 || w.dil[i] < 1 {
			return w, fmt.Errorf("kernel %v, strides %v and dilations %v must be positive", w.kernel, w.stride, w.dil)
		}
	}
	switch pad := c.attrString("auto_pad", "NOTSET"); pad {
	case "NOTSET", "":
		if p, ok := c.attrInts("pads"); ok {
			if len(p) != 2*n {
				return w, fmt.Errorf("pads %v for %d spatial dimensions", p, n)
			}
			for i := range n {
				w.lo[i], w.hi[i] = int(p[i]), int(p[n+i])
				if w.lo[i] < 0 || w.hi[i] < 0 {
					return w, fmt.Errorf("negative pads %v", p)
				}
			}
		}
	case "VALID":
	case "SAME_UPPER", "SAME_LOWER":
		for i := range n {
			out := (in[i] + w.stride[i] - 1) / w.stride[i]
			total := max((out-1)*w.stride[i]+(w.kernel[i]-1)*w.dil[i]+1-in[i], 0)
			small := total / 2
			if pad == "SAME_UPPER" {
				w.lo[i], w.hi[i] = small, total-small
			} else {
				w.lo[i], w.hi[i] = total-small, small
			}
		}
	default:
		return w, fmt.Errorf("auto_pad %q is not supported", pad)
	}
	return w, nil
}

// ones is n ones (a window's unit strides).
func ones(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = 1
	}
	return s
}

// alongAxis is the rank-r shape whose axis ax has n elements and every
// other axis one: n values laid along ax of a rank-r tensor,
// broadcasting over the others.
func alongAxis(r, ax, n int) tensor.Shape {
	s := tensor.Shape(ones(r))
	s[ax] = n
	return s
}

// outSize is the number of windows along dim i (ceil rounds up, as
// ceil_mode does, without starting a window in the end padding).
func (w window) outSize(in, i int, ceil bool) int {
	span := w.dil[i]*(w.kernel[i]-1) + 1
	room := in + w.lo[i] + w.hi[i] - span
	if room < 0 {
		return 0
	}
	if !ceil {
		return room/w.stride[i] + 1
	}
	out := (room+w.stride[i]-1)/w.stride[i] + 1
	if (out-1)*w.stride[i] >= in+w.lo[i] {
		out--
	}
	return out
}

func lowerConv(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0, 1); err != nil {
		return nil, err
	}
	x, w, b := ins[0], ins[1], input(ins, 2)
	n, err := spatial(x)
	if err != nil {
		return nil, err
	}
	if len(w.meta.Shape) != n+2 {
		return nil, fmt.Errorf("weight of shape %v for input %v", w.meta.Shape, x.meta.Shape)
	}
	win, err := c.windowOf(x.meta.Shape[2:], []int(w.meta.Shape[2:]))
	if err != nil {
		return nil, err
	}
	return one(c.conv(x, w, b, win, int(c.attrInt("group", 1))))
}

// conv is an n-d convolution (n = 1, 2, 3) of x [N, C, ...] by w [M, C/g,
// ...] with an optional bias b [M].
func (c *ctx) conv(x, w, b *value, win window, groups int) (*value, error) {
	n := len(x.meta.Shape) - 2
	xs, ws := x.meta.Shape, w.meta.Shape
	switch n {
	case 1:
		x2, err := c.reshape(x, tensor.Shape{xs[0], xs[1], 1, xs[2]})
		if err != nil {
			return nil, err
		}
		w2, err := c.reshape(w, tensor.Shape{ws[0], ws[1], 1, ws[2]})
		if err != nil {
			return nil, err
		}
		w2d := window{kernel: []int{1, win.kernel[0]}, stride: []int{1, win.stride[0]}, dil: []int{1, win.dil[0]}, lo: []int{0, win.lo[0]}, hi: []int{0, win.hi[0]}}
		y, err := c.conv(x2, w2, b, w2d, groups)
		if err != nil {
			return nil, err
		}
		ys := y.meta.Shape
		return c.reshape(y, tensor.Shape{ys[0], ys[1], ys[3]})
	case 2:
		a := ops.Conv2dAttrs{Groups: groups}
		for i := range 2 {
			a.Stride[i], a.Dilation[i], a.PadLo[i], a.PadHi[i] = win.stride[i], win.dil[i], win.lo[i], win.hi[i]
		}
		if b != nil {
			return c.op(ops.Conv2d, a, x, w, b)
		}
		return c.op(ops.Conv2d, a, x, w)
	case 3:
		return c.conv3d(x, w, b, win, groups)
	}
	return nil, fmt.Errorf("%d spatial dimensions", n)
}

// conv3d sums 2-d convolutions over the kernel's depth: output plane d
// is the sum over kd of conv2d(x plane d*stride + kd*dil, w[:, :, kd]).
func (c *ctx) conv3d(x, w, b *value, win window, groups int) (*value, error) {
	lo, hi := make([]int, 5), make([]int, 5)
	lo[2], hi[2] = win.lo[0], win.hi[0]
	xp, err := c.pad(x, lo, hi, "constant", 0)
	if err != nil {
		return nil, err
	}
	depth := xp.meta.Shape[2]
	span := win.dil[0]*(win.kernel[0]-1) + 1
	if depth < span {
		return nil, fmt.Errorf("kernel depth %d (dilated %d) exceeds the padded input depth %d", win.kernel[0], span, depth)
	}
	od := (depth-span)/win.stride[0] + 1
	w2d := window{kernel: win.kernel[1:], stride: win.stride[1:], dil: win.dil[1:], lo: win.lo[1:], hi: win.hi[1:]}
	taps := make([]*value, win.kernel[0])
	for kd := range taps {
		if taps[kd], err = c.plane(w, 2, kd); err != nil {
			return nil, err
		}
	}
	return c.overDepth(xp, win, od, ops.Add, func(plane *value, kd int) (*value, error) {
		bias := b
		if kd > 0 {
			bias = nil
		}
		return c.conv(plane, taps[kd], bias, w2d, groups)
	})
}

// overDepth builds a 3-d result from 2-d ones: output plane d combines
// (adds, or takes the maximum of) f over the kernel's depth taps kd,
// applied to input plane d*stride + kd*dil of x (already padded).
func (c *ctx) overDepth(x *value, win window, out int, combine ops.Op, f func(plane *value, kd int) (*value, error)) (*value, error) {
	planes := make([]*value, out)
	for d := range out {
		var acc *value
		for kd := range win.kernel[0] {
			p, err := c.plane(x, 2, d*win.stride[0]+kd*win.dil[0])
			if err != nil {
				return nil, err
			}
			y, err := f(p, kd)
			if err != nil {
				return nil, err
			}
			if acc == nil {
				acc = y
			} else if acc, err = c.op(combine, nil, acc, y); err != nil {
				return nil, err
			}
		}
		planes[d] = acc
	}
	return c.op(ops.Stack, ops.CatAttrs{Dim: 2}, planes...)
}

// plane is x[:, ..., i] along axis ax, the axis removed.
func (c *ctx) plane(x *value, ax, i int) (*value, error) {
	return c.op(ops.Index, ops.IndexAttrs{Items: ops.AtAlong(ax, i)}, x)
}

// lowerConvTranspose runs the transposed convolution as a convolution:
// the input spread out by the stride (zeros between), padded by
// dil*(k-1) - pad on each side (plus output_padding at the end), with the
// kernel flipped and its channel axes swapped per group.
func lowerConvTranspose(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0, 1); err != nil {
		return nil, err
	}
	x, w, b := ins[0], ins[1], input(ins, 2)
	n, err := spatial(x)
	if err != nil {
		return nil, err
	}
	ws := w.meta.Shape
	if len(ws) != n+2 {
		return nil, fmt.Errorf("weight of shape %v for input %v", ws, x.meta.Shape)
	}
	g := int(c.attrInt("group", 1))
	if g < 1 || ws[0]%g != 0 || x.meta.Shape[1] != ws[0] {
		return nil, fmt.Errorf("weight %v does not fit input %v with %d groups", ws, x.meta.Shape, g)
	}
	in := x.meta.Shape[2:]
	win, err := c.windowOf(in, []int(ws[2:]))
	if err != nil {
		return nil, err
	}
	outPad := make([]int, n)
	if v, ok := c.attrInts("output_padding"); ok && len(v) == n {
		outPad = toInts(v)
	}
	// output_shape fixes the padding (SAME-like) when given.
	if os, ok := c.attrInts("output_shape"); ok {
		if len(os) > n {
			os = os[len(os)-n:]
		}
		for i := range n {
			total := win.stride[i]*(in[i]-1) + outPad[i] + (win.kernel[i]-1)*win.dil[i] + 1 - int(os[i])
			if c.attrString("auto_pad", "NOTSET") == "SAME_LOWER" {
				win.lo[i], win.hi[i] = total-total/2, total/2
			} else {
				win.lo[i], win.hi[i] = total/2, total-total/2
			}
		}
	} else if ap := c.attrString("auto_pad", "NOTSET"); ap == "SAME_UPPER" || ap == "SAME_LOWER" {
		for i := range n {
			total := max(win.stride[i]*(in[i]-1)+outPad[i]+(win.kernel[i]-1)*win.dil[i]+1-in[i]*win.stride[i], 0)
			if ap == "SAME_UPPER" {
				win.lo[i], win.hi[i] = total/2, total-total/2
			} else {
				win.lo[i], win.hi[i] = total-total/2, total/2
			}
		}
	}
	if y, ok, err := c.convTranspose2d(x, w, b, win, outPad, g); ok || err != nil {
		return one(y, err)
	}
	// Spread x: insert stride-1 zeros after each element of each axis.
	xs := x
	for i := range n {
		if xs, err = c.spread(xs, 2+i, win.stride[i]); err != nil {
			return nil, err
		}
	}
	lo, hi := make([]int, n+2), make([]int, n+2)
	for i := range n {
		k := win.dil[i]*(win.kernel[i]-1) + 1
		lo[2+i] = k - 1 - win.lo[i]
		hi[2+i] = k - 1 - win.hi[i] + outPad[i]
	}
	if xs, err = c.pad(xs, lo, hi, "constant", 0); err != nil {
		return nil, err
	}
	// Weight [C, M/g, k...] -> [M, C/g, k...] flipped.
	cin, mg := ws[0], ws[1]
	split := append(tensor.Shape{g, cin / g, mg}, ws[2:]...)
	wv, err := c.reshape(w, split)
	if err != nil {
		return nil, err
	}
	perm := []int{0, 2, 1}
	for i := range n {
		perm = append(perm, 3+i)
	}
	if wv, err = c.permute(wv, perm); err != nil {
		return nil, err
	}
	if wv, err = c.reshape(wv, append(tensor.Shape{g * mg, cin / g}, ws[2:]...)); err != nil {
		return nil, err
	}
	items := ops.FullSlices(n + 2)
	for i := 2; i < len(items); i++ {
		items[i].Step = -1
	}
	if wv, err = c.op(ops.Index, ops.IndexAttrs{Items: items}, wv); err != nil {
		return nil, err
	}
	cw := window{kernel: []int(ws[2:]), stride: ones(n), dil: win.dil, lo: make([]int, n), hi: make([]int, n)}
	return one(c.conv(xs, wv, b, cw, g))
}

// convTranspose2d runs a 1-d or 2-d transposed convolution as the
// runtime's conv_transpose2d when its padding is symmetric; ok is false
// when the op does not take the geometry.
func (c *ctx) convTranspose2d(x, w, b *value, win window, outPad []int, g int) (*value, bool, error) {
	n := len(win.kernel)
	if n > 2 || !x.meta.DType.IsFloat() {
		return nil, false, nil
	}
	for i := range n {
		if win.lo[i] != win.hi[i] {
			return nil, false, nil
		}
	}
	a := ops.ConvTranspose2dAttrs{Groups: g}
	xv, wv := x, w
	xs, ws := x.meta.Shape, w.meta.Shape
	var err error
	if n == 1 {
		a.Stride, a.Padding, a.OutputPadding, a.Dilation = [2]int{1, win.stride[0]}, [2]int{0, win.lo[0]}, [2]int{0, outPad[0]}, [2]int{1, win.dil[0]}
		if xv, err = c.reshape(x, tensor.Shape{xs[0], xs[1], 1, xs[2]}); err != nil {
			return nil, true, err
		}
		if wv, err = c.reshape(w, tensor.Shape{ws[0], ws[1], 1, ws[2]}); err != nil {
			return nil, true, err
		}
	} else {
		for i := range 2 {
			a.Stride[i], a.Padding[i], a.OutputPadding[i], a.Dilation[i] = win.stride[i], win.lo[i], outPad[i], win.dil[i]
		}
	}
	ins := []*value{xv, wv}
	metas := []tensor.Meta{xv.meta, wv.meta}
	if b != nil {
		ins, metas = append(ins, b), append(metas, b.meta)
	}
	if _, err := ops.ConvTranspose2d.Def().Infer(metas, a); err != nil {
		return nil, false, nil
	}
	y, err := c.op(ops.ConvTranspose2d, a, ins...)
	if err != nil || n == 2 {
		return y, true, err
	}
	ys := y.meta.Shape
	y, err = c.reshape(y, tensor.Shape{ys[0], ys[1], ys[3]})
	return y, true, err
}

// spread puts s-1 zeros after each element along axis ax (none after the
// last): [a, b] with s = 2 gives [a, 0, b].
func (c *ctx) spread(x *value, ax, s int) (*value, error) {
	if s == 1 {
		return x, nil
	}
	sh := x.meta.Shape
	n := sh[ax]
	// [..., n, 1, ...] cat zeros [..., n, s-1, ...] on ax+1, then merge.
	col := append(append(sh[:ax+1].Clone(), 1), sh[ax+1:]...)
	xc, err := c.reshape(x, col)
	if err != nil {
		return nil, err
	}
	zs := col.Clone()
	zs[ax+1] = s - 1
	z, err := c.op(ops.Expand, ops.ExpandAttrs{Shape: zs}, c.scalar(x.meta.DType, 0))
	if err != nil {
		return nil, err
	}
	j, err := c.op(ops.Cat, ops.CatAttrs{Dim: ax + 1}, xc, z)
	if err != nil {
		return nil, err
	}
	merged := sh.Clone()
	merged[ax] = n * s
	if j, err = c.reshape(j, merged); err != nil {
		return nil, err
	}
	return c.slice(j, ax, 0, (n-1)*s+1, 1)
}

func lowerPool(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0); err != nil {
		return nil, err
	}
	withIndices := len(c.node.Outputs) > 1 && c.node.Outputs[1] != ""
	x := ins[0]
	n, err := spatial(x)
	if err != nil {
		return nil, err
	}
	ceil := c.attrInt("ceil_mode", 0) != 0
	win, err := c.windowOf(x.meta.Shape[2:], nil)
	if err != nil {
		return nil, err
	}
	out := make([]int, n)
	for i := range n {
		if out[i] = win.outSize(x.meta.Shape[2+i], i, ceil); out[i] < 1 {
			return nil, fmt.Errorf("the window does not fit input %v", x.meta.Shape)
		}
	}
	if c.node.OpType == "MaxPool" {
		y, err := c.maxPool(x, win, out)
		if err != nil || !withIndices {
			return one(y, err)
		}
		idx, err := c.maxPoolIndices(x, y, win, out)
		if err != nil {
			return nil, err
		}
		return []*value{y, idx}, nil
	}
	include := c.attrInt("count_include_pad", 0) != 0
	if v, ok, err := c.avgPool2d(x, win, out, ceil, include); ok || err != nil {
		return one(v, err)
	}
	return one(c.avgPool(x, win, out, include))
}

// maxPoolIndices is MaxPool's Indices output for a 2-d pool: the flat
// position in x ((n·C + c)·H·W + h·W + w, or + w·H + h with storage_order
// 1) of each window's maximum y, the
// first in the window's row-major order where several are equal. Each tap
// of the window compares its strided view of the padded input with y.
func (c *ctx) maxPoolIndices(x, y *value, win window, out []int) (*value, error) {
	if len(win.kernel) != 2 {
		return nil, fmt.Errorf("the Indices output of a %d-d pool is not supported", len(win.kernel))
	}
	colMajor := c.attrInt("storage_order", 0) != 0
	xs := x.meta.Shape
	h, w := xs[2], xs[3]
	xp, lo, hi, err := c.padForMax(x, win, out)
	if err != nil {
		return nil, err
	}
	// pos: the in-plane position over the padded plane, -1 in the padding.
	hp, wp := h+lo[2]+hi[2], w+lo[3]+hi[3]
	pd := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{1, 1, hp, wp}, DType: tensor.Int64})
	for i := range hp {
		for j := range wp {
			v := int64(-1)
			if r, q := i-lo[2], j-lo[3]; r >= 0 && r < h && q >= 0 && q < w {
				v = int64(r*w + q)
				if colMajor {
					v = int64(q*h + r)
				}
			}
			pd.I64()[i*wp+j] = v
		}
	}
	pos := c.keep(&value{meta: pd.Meta, c: pd})
	tap := func(v *value, kh, kw int) (*value, error) {
		s0, s1 := win.stride[0], win.stride[1]
		a0, a1 := kh*win.dil[0], kw*win.dil[1]
		v, err := c.slice(v, 2, a0, a0+(out[0]-1)*s0+1, s0)
		if err != nil {
			return nil, err
		}
		return c.slice(v, 3, a1, a1+(out[1]-1)*s1+1, s1)
	}
	var idx, found *value
	for kh := range win.kernel[0] {
		for kw := range win.kernel[1] {
			xv, err := tap(xp, kh, kw)
			if err != nil {
				return nil, err
			}
			pv, err := tap(pos, kh, kw)
			if err != nil {
				return nil, err
			}
			eq, err := c.op(ops.Eq, nil, xv, y)
			if err != nil {
				return nil, err
			}
			if idx == nil {
				if idx, err = c.op(ops.Where, nil, eq, pv, c.scalar(tensor.Int64, -1)); err != nil {
					return nil, err
				}
				found = eq
				continue
			}
			// the first tap equal to the maximum keeps its position
			if idx, err = c.op(ops.Where, nil, found, idx, pv); err != nil {
				return nil, err
			}
			if found, err = c.op(ops.Where, nil, found, found, eq); err != nil {
				return nil, err
			}
		}
	}
	// (n·C + c)·H·W added to the in-plane positions.
	nc := xs[0] * xs[1]
	base, err := c.reshape(c.iota(nc, 0, 1), tensor.Shape{xs[0], xs[1], 1, 1})
	if err != nil {
		return nil, err
	}
	off, err := c.op(ops.Mul, nil, base, c.scalar(tensor.Int64, float64(h*w)))
	if err != nil {
		return nil, err
	}
	return c.op(ops.Add, nil, idx, off)
}

// extraHi is how much padding beyond hi the windows of out need (ceil
// mode's last window may run past it).
func (w window) extraHi(in []int, out []int) []int {
	e := make([]int, len(in))
	for i := range in {
		need := (out[i]-1)*w.stride[i] + w.dil[i]*(w.kernel[i]-1) + 1
		e[i] = max(need-(in[i]+w.lo[i]+w.hi[i]), 0)
	}
	return e
}

// padForMax pads x's spatial dims for the pooling window win with a value
// below every element (-inf, or the dtype's low end for integers), so the
// padding never wins a maximum; lo and hi are the pads per dim of x.
func (c *ctx) padForMax(x *value, win window, out []int) (xp *value, lo, hi []int, err error) {
	n := len(win.kernel)
	extra := win.extraHi(x.meta.Shape[2:], out)
	lo, hi = make([]int, n+2), make([]int, n+2)
	for i := range n {
		lo[2+i], hi[2+i] = win.lo[i], win.hi[i]+extra[i]
	}
	fill := math.Inf(-1)
	if !x.meta.DType.IsFloat() {
		fill = math.MinInt64 / 2
		if x.meta.DType == tensor.Uint8 {
			fill = 0
		}
	}
	xp, err = c.pad(x, lo, hi, "constant", fill)
	return xp, lo, hi, err
}

// maxPool pads x with -inf explicitly (the runtime's max_pool2d pads
// symmetrically) and takes maxima of 2-d pools; depth is reduced with
// maximum over the kernel's planes.
func (c *ctx) maxPool(x *value, win window, out []int) (*value, error) {
	n := len(win.kernel)
	xp, _, _, err := c.padForMax(x, win, out)
	if err != nil {
		return nil, err
	}
	pool2 := func(v *value, k, s, d [2]int) (*value, error) {
		return c.op(ops.MaxPool2d, ops.Pool2dAttrs{Kernel: k, Stride: s, Dilation: d}, v)
	}
	xs := xp.meta.Shape
	switch n {
	case 1:
		v, err := c.reshape(xp, tensor.Shape{xs[0], xs[1], 1, xs[2]})
		if err != nil {
			return nil, err
		}
		y, err := pool2(v, [2]int{1, win.kernel[0]}, [2]int{1, win.stride[0]}, [2]int{1, win.dil[0]})
		if err != nil {
			return nil, err
		}
		return c.reshape(y, tensor.Shape{xs[0], xs[1], y.meta.Shape[3]})
	case 2:
		return pool2(xp, [2]int{win.kernel[0], win.kernel[1]}, [2]int{win.stride[0], win.stride[1]}, [2]int{win.dil[0], win.dil[1]})
	}
	return c.overDepth(xp, win, out[0], ops.Maximum, func(p *value, _ int) (*value, error) {
		return pool2(p, [2]int{win.kernel[1], win.kernel[2]}, [2]int{win.stride[1], win.stride[2]}, [2]int{win.dil[1], win.dil[2]})
	})
}

// avgPool2d runs a 1-d or 2-d average pool as the runtime's avg_pool2d
// when it fits that op (symmetric padding of at most half the kernel, no
// dilation, the same output size); ok is false otherwise.
func (c *ctx) avgPool2d(x *value, win window, out []int, ceil, include bool) (*value, bool, error) {
	n := len(win.kernel)
	if n > 2 || !x.meta.DType.IsFloat() {
		return nil, false, nil
	}
	for i := range n {
		if win.dil[i] != 1 || win.lo[i] != win.hi[i] || 2*win.lo[i] > win.kernel[i] {
			return nil, false, nil
		}
	}
	a := ops.AvgPool2dAttrs{CeilMode: ceil, CountIncludePad: include}
	v := x
	xs := x.meta.Shape
	if n == 1 {
		a.Kernel, a.Stride, a.Padding = [2]int{1, win.kernel[0]}, [2]int{1, win.stride[0]}, [2]int{0, win.lo[0]}
		var err error
		if v, err = c.reshape(x, tensor.Shape{xs[0], xs[1], 1, xs[2]}); err != nil {
			return nil, true, err
		}
	} else {
		a.Kernel, a.Stride, a.Padding = [2]int{win.kernel[0], win.kernel[1]}, [2]int{win.stride[0], win.stride[1]}, [2]int{win.lo[0], win.lo[1]}
	}
	m, err := ops.AvgPool2d.Def().Infer([]tensor.Meta{v.meta}, a)
	if err != nil || m.Shape[len(m.Shape)-1] != out[n-1] || (n == 2 && m.Shape[2] != out[0]) {
		return nil, false, nil
	}
	y, err := c.op(ops.AvgPool2d, a, v)
	if err != nil {
		return nil, true, err
	}
	if n == 1 {
		y, err = c.reshape(y, tensor.Shape{xs[0], xs[1], out[0]})
	}
	return y, true, err
}

// avgPool is a depthwise convolution with a kernel of ones divided by the
// count of the window's elements: the whole kernel with count_include_pad
// (the explicit pads counted, ceil mode's overhang not), else only the
// input's elements.
func (c *ctx) avgPool(x *value, win window, out []int, includePad bool) (*value, error) {
	n := len(win.kernel)
	xs := x.meta.Shape
	in := []int(xs[2:])
	extra := win.extraHi(in, out)
	flat := append(tensor.Shape{xs[0] * xs[1], 1}, in...)
	xf, err := c.reshape(x, flat)
	if err != nil {
		return nil, err
	}
	lo, hi := make([]int, n+2), make([]int, n+2)
	for i := range n {
		lo[2+i], hi[2+i] = win.lo[i], win.hi[i]+extra[i]
	}
	xp, err := c.pad(xf, lo, hi, "constant", 0)
	if err != nil {
		return nil, err
	}
	kshape := append(tensor.Shape{1, 1}, win.kernel...)
	k, err := c.op(ops.Expand, ops.ExpandAttrs{Shape: kshape}, c.scalar(x.meta.DType, 1))
	if err != nil {
		return nil, err
	}
	cw := window{kernel: win.kernel, stride: win.stride, dil: win.dil, lo: make([]int, n), hi: make([]int, n)}
	sum, err := c.conv(xp, k, nil, cw, 1)
	if err != nil {
		return nil, err
	}
	// The count of each window: a convolution of the mask of counted
	// positions (folded on the host when small).
	mshape := append(tensor.Shape{1, 1}, in...)
	mask, err := c.op(ops.Expand, ops.ExpandAttrs{Shape: mshape}, c.scalar(x.meta.DType, 1))
	if err != nil {
		return nil, err
	}
	if includePad {
		mlo, mhi := make([]int, n+2), make([]int, n+2)
		for i := range n {
			mlo[2+i], mhi[2+i] = win.lo[i], win.hi[i]
		}
		if mask, err = c.pad(mask, mlo, mhi, "constant", 1); err != nil {
			return nil, err
		}
		for i := range n {
			lo[2+i], hi[2+i] = 0, extra[i]
		}
	}
	if mask, err = c.pad(mask, lo, hi, "constant", 0); err != nil {
		return nil, err
	}
	count, err := c.conv(mask, k, nil, cw, 1)
	if err != nil {
		return nil, err
	}
	avg, err := c.op(ops.Div, nil, sum, count)
	if err != nil {
		return nil, err
	}
	return c.reshape(avg, append(tensor.Shape{xs[0], xs[1]}, out...))
}

func lowerGlobalPool(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0); err != nil {
		return nil, err
	}
	x := ins[0]
	dims := make([]int, 0, len(x.meta.Shape))
	for i := 2; i < len(x.meta.Shape); i++ {
		dims = append(dims, i)
	}
	op := ops.Mean
	if c.node.OpType == "GlobalMaxPool" {
		op = ops.Max
	}
	return one(c.op(op, ops.ReduceAttrs{Dims: dims, Keepdim: true}, x))
}
