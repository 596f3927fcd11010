package onnx

import (
	"fmt"
	"math"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// DFT (opset 17) as products with the transform's cosine and sine
// matrices (host constants of the signal length, computed in float64):
// the signal axis moved last, zero-padded or cut to dft_length, the real
// and imaginary parts (the input's last axis, 1 or 2 long) multiplied
// through, the result [.., 2] with the axis back in place; inverse
// divides by the length, onesided keeps the first n/2 + 1 frequencies.

func init() {
	lower([]string{"DFT"}, lowerDFT)
	lower([]string{"STFT"}, lowerSTFT)
}

// maxDFT is the longest transform (its matrices 4096² elements each).
const maxDFT = 4096

func lowerDFT(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0); err != nil {
		return nil, err
	}
	x := ins[0]
	xs := x.meta.Shape
	r := len(xs)
	if r < 3 || (xs[r-1] != 1 && xs[r-1] != 2) || !x.meta.DType.IsFloat() {
		return nil, fmt.Errorf("needs a float signal [batch, .., 1 or 2], got %s", x.meta)
	}
	ax, err := axis(c.attrInt("axis", 1), r)
	if err != nil || ax == 0 || ax == r-1 {
		return nil, fmt.Errorf("axis %d of a signal of rank %d", c.attrInt("axis", 1), r)
	}
	n := xs[ax]
	size := n
	if v := input(ins, 1); v != nil {
		l, err := c.scalarOf(v, "dft_length")
		if err != nil {
			return nil, err
		}
		size = int(l)
	}
	// The matrices are size² elements: lengths past maxDFT are refused.
	if size < 1 || size > maxDFT {
		return nil, fmt.Errorf("a transform of length %d is not supported (1 to %d: tref multiplies by the transform's matrix)", size, maxDFT)
	}
	return one(c.dft(x, ax, size, c.attrInt("inverse", 0) != 0, c.attrInt("onesided", 0) != 0))
}

// dft transforms the signal x [.., 1 or 2] along ax to length size.
func (c *ctx) dft(x *value, ax, size int, inverse, onesided bool) (*value, error) {
	xs := x.meta.Shape
	r := len(xs)
	n := xs[ax]
	m := size
	if onesided {
		m = size/2 + 1
	}
	// the signal axis last, the complex axis dropped: [.., n]
	perm := make([]int, 0, r)
	for i := range r - 1 {
		if i != ax {
			perm = append(perm, i)
		}
	}
	perm = append(perm, ax, r-1)
	xp, err := c.permute(x, perm)
	if err != nil {
		return nil, err
	}
	part := func(k int) (*value, error) {
		p, err := c.slice(xp, r-1, k, k+1, 1)
		if err != nil {
			return nil, err
		}
		ps := p.meta.Shape[:r-1]
		if p, err = c.reshape(p, ps); err != nil {
			return nil, err
		}
		if size < n {
			return c.slice(p, r-2, 0, size, 1)
		}
		if size > n {
			lo, hi := make([]int, r-1), make([]int, r-1)
			hi[r-2] = size - n
			return c.pad(p, lo, hi, "constant", 0)
		}
		return p, nil
	}
	re, err := part(0)
	if err != nil {
		return nil, err
	}
	var im *value
	if xs[r-1] == 2 {
		if im, err = part(1); err != nil {
			return nil, err
		}
	}
	// cos and ±sin of 2π·j·k/size, [size, m]; e^{∓iθ}: the sine's sign.
	sign := -1.0
	if inverse {
		sign = 1
	}
	mat := func(f func(float64) float64, s float64) *value {
		d := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{size, m}, DType: x.meta.DType})
		for j := range size {
			for k := range m {
				d.Set(j*m+k, s*f(2*math.Pi*float64((j*k)%size)/float64(size)))
			}
		}
		return c.keep(&value{meta: d.Meta, c: d})
	}
	cos, sin := mat(math.Cos, 1), mat(math.Sin, sign)
	var ch chain
	ch.c = c
	// (re + i·im)(cos + i·sin) = re·cos - im·sin + i(re·sin + im·cos)
	outRe := ch.op(ops.Matmul, re, cos)
	outIm := ch.op(ops.Matmul, re, sin)
	if im != nil {
		outRe = ch.op(ops.Sub, outRe, ch.op(ops.Matmul, im, sin))
		outIm = ch.op(ops.Add, outIm, ch.op(ops.Matmul, im, cos))
	}
	if inverse {
		k := c.scalar(x.meta.DType, 1/float64(size))
		outRe, outIm = ch.op(ops.Mul, outRe, k), ch.op(ops.Mul, outIm, k)
	}
	if ch.err != nil {
		return nil, ch.err
	}
	y, err := c.op(ops.Stack, ops.CatAttrs{Dim: r - 1}, outRe, outIm)
	if err != nil {
		return nil, err
	}
	// perm moved ax to r-2 with the complex axis last: undo it
	inv := make([]int, r)
	for i, p := range perm {
		inv[p] = i
	}
	return c.permute(y, inv)
}

// lowerSTFT frames the signal [batch, length, 1 or 2] (frame_step apart,
// frame_length or the window's length long; a gather of host indices),
// weights each frame by the window and transforms the frames (onesided
// by default): [batch, frames, bins, 2].
func lowerSTFT(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0, 1); err != nil {
		return nil, err
	}
	x, window := ins[0], input(ins, 2)
	xs := x.meta.Shape
	if len(xs) != 3 || (xs[2] != 1 && xs[2] != 2) || !x.meta.DType.IsFloat() {
		return nil, fmt.Errorf("needs a float signal [batch, length, 1 or 2], got %s", x.meta)
	}
	step, err := c.scalarOf(ins[1], "frame_step")
	if err != nil {
		return nil, err
	}
	length := -1
	if v := input(ins, 3); v != nil {
		l, err := c.scalarOf(v, "frame_length")
		if err != nil {
			return nil, err
		}
		length = int(l)
	}
	if window != nil {
		if len(window.meta.Shape) != 1 || length >= 0 && window.meta.Shape[0] != length {
			return nil, fmt.Errorf("a window of shape %v for frames of %d", window.meta.Shape, length)
		}
		length = window.meta.Shape[0]
	}
	if length < 1 || length > xs[1] || length > maxDFT || step < 1 {
		return nil, fmt.Errorf("frames of %d every %v in a signal of %d", length, step, xs[1])
	}
	st := int(step)
	frames := (xs[1]-length)/st + 1
	d := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{frames * length}, DType: tensor.Int64})
	for f := range frames {
		for j := range length {
			d.I64()[f*length+j] = int64(f*st + j)
		}
	}
	idx := c.keep(&value{meta: d.Meta, c: d})
	g, err := c.op(ops.IndexSelect, ops.DimAttrs{Dim: 1}, x, idx)
	if err != nil {
		return nil, err
	}
	if g, err = c.reshape(g, tensor.Shape{xs[0], frames, length, xs[2]}); err != nil {
		return nil, err
	}
	if window != nil {
		w, err := c.reshape(window, tensor.Shape{1, 1, length, 1})
		if err != nil {
			return nil, err
		}
		if g, err = c.op(ops.Mul, nil, g, w); err != nil {
			return nil, err
		}
	}
	return one(c.dft(g, 2, length, false, c.attrInt("onesided", 1) != 0))
}
