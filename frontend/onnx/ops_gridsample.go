package onnx

import (
	"github.com/tref-lang/tref/runtime/compose"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// GridSample is runtime/compose's grid sample, the one stdlib's
// grid_sample runs: nearest, bilinear (linear, opset 20's name) and
// bicubic (cubic) over 4-d inputs, nearest and bilinear over 5-d ones.

func init() {
	lower([]string{"GridSample"}, lowerGridSample)
}

func lowerGridSample(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0, 1); err != nil {
		return nil, err
	}
	mode := c.attrString("mode", "bilinear")
	switch mode {
	case "linear":
		mode = "bilinear"
	case "cubic":
		mode = "bicubic"
	}
	padding := c.attrString("padding_mode", "zeros")
	if err := compose.CheckGridSample(ins[0].meta, ins[1].meta, mode, padding); err != nil {
		return nil, err
	}
	b := c.builder()
	out := compose.GridSample(b, ins[0], ins[1], mode, padding, c.attrInt("align_corners", 0) != 0)
	if err := b.Err(); err != nil {
		return nil, err
	}
	return []*value{out.(*value)}, nil
}

// Meta is v's meta: values are the tensors of the node's ops.Builder.
func (v *value) Meta() tensor.Meta { return v.meta }

// builder is an ops.Builder over the node's values, for the compositions
// of runtime/compose: its ops and constants are the node's intermediates.
func (c *ctx) builder() *ops.Builder {
	return ops.NewBuilder(func(op ops.Op, attrs any, ins []ops.T) (ops.T, error) {
		vs := make([]*value, len(ins))
		for i, in := range ins {
			vs[i] = in.(*value)
		}
		v, err := c.op(op, attrs, vs...)
		if err != nil {
			return nil, err
		}
		return v, nil
	}, func(d *tensor.Dense) ops.T { return c.keep(&value{meta: d.Meta, c: d}) })
}
