package onnx

import (
	"fmt"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// ConvInteger and MatMulInteger: the 8-bit operands less their zero points
// (scalars, or one per output channel of the weight; per row of A and per
// column of B for MatMulInteger), multiplied in float64, which holds every
// sum of 8-bit products exactly, and cast to int32. Padding with zeros
// after the shift is padding x with its zero point, as ONNX specifies.
// QLinearMatMul and QLinearConv are those accumulators (plus QLinearConv's
// int32 bias) requantized to the output's scale and zero point.

func init() {
	lower([]string{"ConvInteger"}, lowerConvInteger)
	lower([]string{"MatMulInteger"}, lowerMatMulInteger)
	lower([]string{"QLinearMatMul"}, lowerQLinearMatMul)
	lower([]string{"QLinearConv"}, lowerQLinearConv)
}

// shifted is v - zero in float64; zero (nil: 0) is reshaped to at when it
// has more than one element.
func (c *ctx) shifted(v, zero *value, at tensor.Shape) (*value, error) {
	if v.meta.DType != tensor.Uint8 && v.meta.DType != tensor.Int8 {
		return nil, fmt.Errorf("needs 8-bit integer inputs, got %s", v.meta)
	}
	f, err := c.cast(v, tensor.Float64)
	if err != nil || zero == nil {
		return f, err
	}
	z, err := c.cast(zero, tensor.Float64)
	if err != nil {
		return nil, err
	}
	if zn := zero.meta.Shape.Numel(); zn > 1 {
		if at == nil || at.Numel() != zn {
			return nil, fmt.Errorf("a zero point of shape %v does not fit input %v", zero.meta.Shape, v.meta.Shape)
		}
		if z, err = c.reshape(z, at); err != nil {
			return nil, err
		}
	} else if z, err = c.reshape(z, nil); err != nil {
		return nil, err
	}
	return c.op(ops.Sub, nil, f, z)
}

func lowerConvInteger(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0, 1); err != nil {
		return nil, err
	}
	x, w := ins[0], ins[1]
	n, err := spatial(x)
	if err != nil {
		return nil, err
	}
	ws := w.meta.Shape
	if len(ws) != n+2 {
		return nil, fmt.Errorf("weight of shape %v for input %v", ws, x.meta.Shape)
	}
	win, err := c.windowOf(x.meta.Shape[2:], []int(ws[2:]))
	if err != nil {
		return nil, err
	}
	xf, err := c.shifted(x, input(ins, 2), nil)
	if err != nil {
		return nil, err
	}
	wf, err := c.shifted(w, input(ins, 3), alongAxis(n+2, 0, ws[0]))
	if err != nil {
		return nil, err
	}
	y, err := c.conv(xf, wf, nil, win, int(c.attrInt("group", 1)))
	if err != nil {
		return nil, err
	}
	return one(c.cast(y, tensor.Int32))
}

func lowerMatMulInteger(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0, 1); err != nil {
		return nil, err
	}
	a, b := ins[0], ins[1]
	as, bs := a.meta.Shape, b.meta.Shape
	if len(as) < 1 || len(bs) < 1 {
		return nil, fmt.Errorf("needs operands of rank 1 or more, got %v and %v", as, bs)
	}
	var rows, cols tensor.Shape
	if len(as) >= 2 {
		rows = tensor.Shape{as[len(as)-2], 1}
	}
	if len(bs) >= 2 {
		cols = tensor.Shape{bs[len(bs)-1]}
	}
	af, err := c.shifted(a, input(ins, 2), rows)
	if err != nil {
		return nil, err
	}
	bf, err := c.shifted(b, input(ins, 3), cols)
	if err != nil {
		return nil, err
	}
	y, err := c.op(ops.Matmul, nil, af, bf)
	if err != nil {
		return nil, err
	}
	return one(c.cast(y, tensor.Int32))
}

// requantize is saturate(round(acc · xs·ws/ys) + yz) in yz's dtype, the
// int32 accumulator acc taken to float32 and scaled in float32 with
// rounding half to even, as onnxruntime's requantization; ws may hold one scale
// per output channel (reshaped to at).
func (c *ctx) requantize(acc, xs, ws, ys, yz *value, at tensor.Shape) (*value, error) {
	f32 := func(v *value) (*value, error) { return c.cast(v, tensor.Float32) }
	a, err := f32(acc)
	if err != nil {
		return nil, err
	}
	w, err := f32(ws)
	if err != nil {
		return nil, err
	}
	if w.meta.Shape.Numel() > 1 {
		if at == nil || at.Numel() != w.meta.Shape.Numel() {
			return nil, fmt.Errorf("a scale of shape %v does not fit the result %v", ws.meta.Shape, acc.meta.Shape)
		}
		if w, err = c.reshape(w, at); err != nil {
			return nil, err
		}
	}
	sx, err := f32(xs)
	if err != nil {
		return nil, err
	}
	scale, err := c.op(ops.Mul, nil, sx, w)
	if err != nil {
		return nil, err
	}
	yf, err := f32(ys)
	if err != nil {
		return nil, err
	}
	if scale, err = c.op(ops.Div, nil, scale, yf); err != nil {
		return nil, err
	}
	v, err := c.op(ops.Mul, nil, a, scale)
	if err != nil {
		return nil, err
	}
	if v, err = c.op(ops.Round, ops.RoundAttrs{}, v); err != nil {
		return nil, err
	}
	z, err := f32(yz)
	if err != nil {
		return nil, err
	}
	if v, err = c.op(ops.Add, nil, v, z); err != nil {
		return nil, err
	}
	return c.saturate(v, yz.meta.DType)
}

func lowerQLinearMatMul(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0, 1, 2, 3, 4, 5, 6, 7); err != nil {
		return nil, err
	}
	acc, err := lowerMatMulInteger(c, []*value{ins[0], ins[3], ins[2], ins[5]})
	if err != nil {
		return nil, err
	}
	return one(c.requantize(acc[0], ins[1], ins[4], ins[6], ins[7], nil))
}

func lowerQLinearConv(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0, 1, 2, 3, 4, 5, 6, 7); err != nil {
		return nil, err
	}
	acc, err := lowerConvInteger(c, []*value{ins[0], ins[3], ins[2], ins[5]})
	if err != nil {
		return nil, err
	}
	y := acc[0]
	if b := input(ins, 8); b != nil {
		bc, err := c.channel(b, y)
		if err != nil {
			return nil, err
		}
		if y, err = c.op(ops.Add, nil, y, bc); err != nil {
			return nil, err
		}
	}
	at := alongAxis(len(y.meta.Shape), 1, y.meta.Shape[1])
	return one(c.requantize(y, ins[1], ins[4], ins[6], ins[7], at))
}
