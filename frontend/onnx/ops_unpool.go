package onnx

import (
	"fmt"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// MaxUnpool: X's values written at the flat positions I (MaxPool's
// Indices, over the whole unpooled tensor) of a zero tensor of the
// unpooled shape, the rest zero: one scatter over the flattened output.
// The unpooled shape is (in - 1)·stride + kernel - pads along each spatial
// axis; output_shape, when given, pads it at the end of each axis.

func init() {
	lower([]string{"MaxUnpool"}, lowerMaxUnpool)
}

func lowerMaxUnpool(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0, 1); err != nil {
		return nil, err
	}
	x, idx := ins[0], ins[1]
	xs := x.meta.Shape
	if len(xs) < 3 || !idx.meta.Shape.Equal(xs) {
		return nil, fmt.Errorf("X %v and I %v must have one shape of rank 3 or more", xs, idx.meta.Shape)
	}
	win, err := c.windowOf(xs[2:], nil)
	if err != nil {
		return nil, err
	}
	out := append(tensor.Shape{xs[0], xs[1]}, make(tensor.Shape, len(xs)-2)...)
	for i := range len(xs) - 2 {
		out[2+i] = (xs[2+i]-1)*win.stride[i] + win.kernel[i] - win.lo[i] - win.hi[i]
	}
	// output_shape pads the default shape at the end of each axis (the
	// indices address the default shape).
	var padHi []int
	if v := input(ins, 2); v != nil {
		s, err := c.ints(v, "output_shape")
		if err != nil {
			return nil, err
		}
		if len(s) != len(xs) {
			return nil, fmt.Errorf("output_shape %v for an input of rank %d", s, len(xs))
		}
		padHi = make([]int, len(xs))
		for i, d := range s {
			if padHi[i] = int(d) - out[i]; padHi[i] < 0 || (i < 2 && padHi[i] != 0) {
				return nil, fmt.Errorf("output_shape %v is smaller than the unpooled shape %v or changes batch or channels", s, out)
			}
		}
	}
	numel, err := tensor.CheckedNumel(out)
	if err != nil {
		return nil, err
	}
	for _, d := range out {
		if d < 1 {
			return nil, fmt.Errorf("the output shape %v is empty", out)
		}
	}
	if err := c.checkIndices(idx, numel); err != nil {
		return nil, err
	}
	n := xs.Numel()
	xf, err := c.reshape(x, tensor.Shape{n})
	if err != nil {
		return nil, err
	}
	ixf, err := c.reshape(idx, tensor.Shape{n})
	if err != nil {
		return nil, err
	}
	z := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{numel}, DType: x.meta.DType})
	zeros := c.keep(&value{meta: z.Meta, c: z})
	y, err := c.op(ops.Scatter, ops.DimAttrs{Dim: 0}, zeros, ixf, xf)
	if err != nil {
		return nil, err
	}
	if y, err = c.reshape(y, out); err != nil || padHi == nil {
		return one(y, err)
	}
	return one(c.pad(y, make([]int, len(xs)), padHi, "constant", 0))
}
