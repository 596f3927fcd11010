package onnx

import (
	"fmt"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Shape ops: reshapes, transposes, joins and splits, slices, and the
// shape arithmetic (Shape, Size, ConstantOfShape, Range), which folds on
// the host because every shape is known when the graph runs.

func init() {
	lower([]string{"Constant"}, func(c *ctx, _ []*value) ([]*value, error) {
		v, err := c.prog.constantNode(c.rt.rt, c.rt.site, c.node)
		if err != nil {
			return nil, err
		}
		if v.ref != nil {
			c.rt.unplannable() // a plan cannot remake a lazy ref
		}
		v.uses = 0
		return []*value{c.keep(v)}, nil
	})
	lower([]string{"Reshape"}, lowerReshape)
	lower([]string{"Flatten"}, lowerFlatten)
	lower([]string{"Transpose"}, lowerTranspose)
	lower([]string{"Squeeze", "Unsqueeze"}, lowerSqueeze)
	lower([]string{"Concat"}, lowerConcat)
	lower([]string{"Shape"}, lowerShape)
	lower([]string{"Size"}, func(c *ctx, ins []*value) ([]*value, error) {
		if err := need(ins, 0); err != nil {
			return nil, err
		}
		return []*value{c.keep(constOf(tensor.Int64, nil, float64(ins[0].meta.Shape.Numel())))}, nil
	})
	lower([]string{"Expand"}, lowerExpand)
	lower([]string{"Dropout"}, lowerDropout)
	lower([]string{"ConstantOfShape"}, lowerConstantOfShape)
}

// reshape is a reshape to shape (no op when the shape is already that).
func (c *ctx) reshape(v *value, shape tensor.Shape) (*value, error) {
	if v.meta.Shape.Equal(shape) {
		return v, nil
	}
	return c.op(ops.Reshape, ops.ReshapeAttrs{Shape: shape}, v)
}

func lowerReshape(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0); err != nil {
		return nil, err
	}
	var target []int64
	if c.opset < 5 {
		target, _ = c.attrInts("shape")
	} else {
		if err := need(ins, 1); err != nil {
			return nil, err
		}
		var err error
		if target, err = c.ints(ins[1], "shape"); err != nil {
			return nil, err
		}
	}
	x := ins[0]
	allowZero := c.attrInt("allowzero", 0) != 0
	shape := make(tensor.Shape, len(target))
	for i, d := range target {
		switch {
		case d == 0 && !allowZero:
			if i >= len(x.meta.Shape) {
				return nil, fmt.Errorf("shape %v copies dimension %d of %s, which has none", target, i, x.meta.Shape)
			}
			shape[i] = x.meta.Shape[i]
		case d < -1:
			return nil, fmt.Errorf("shape %v has a negative dimension", target)
		default:
			shape[i] = int(d)
		}
	}
	s, err := ops.ReshapeShape(x.meta.Shape, shape)
	if err != nil {
		return nil, err
	}
	return one(c.reshape(x, s))
}

func lowerFlatten(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0); err != nil {
		return nil, err
	}
	x := ins[0]
	r := len(x.meta.Shape)
	a := c.attrInt("axis", 1)
	if a < 0 {
		a += int64(r)
	}
	if a < 0 || a > int64(r) {
		return nil, fmt.Errorf("axis %d out of range for rank %d", c.attrInt("axis", 1), r)
	}
	outer := 1
	for _, d := range x.meta.Shape[:a] {
		outer *= d
	}
	inner := 1
	for _, d := range x.meta.Shape[a:] {
		inner *= d
	}
	return one(c.reshape(x, tensor.Shape{outer, inner}))
}

func lowerTranspose(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0); err != nil {
		return nil, err
	}
	x := ins[0]
	r := len(x.meta.Shape)
	perm, ok := c.attrInts("perm")
	if !ok {
		perm = make([]int64, r)
		for i := range perm {
			perm[i] = int64(r - 1 - i)
		}
	}
	return one(c.permute(x, toInts(perm)))
}

// permute is a permute (no op for the identity).
func (c *ctx) permute(x *value, perm []int) (*value, error) {
	ident := true
	for i, p := range perm {
		if p != i {
			ident = false
		}
	}
	if ident && len(perm) == len(x.meta.Shape) {
		return x, nil
	}
	return c.op(ops.Permute, ops.PermuteAttrs{Dims: perm}, x)
}

// axesOf reads the axes of Squeeze, Unsqueeze and the reductions: an
// attribute before opset 13 (18 for most reductions), an input after.
func (c *ctx) axesOf(ins []*value, i int) ([]int64, bool, error) {
	if a, ok := c.attrInts("axes"); ok {
		return a, true, nil
	}
	if v := input(ins, i); v != nil {
		a, err := c.ints(v, "axes")
		return a, true, err
	}
	return nil, false, nil
}

func lowerSqueeze(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0); err != nil {
		return nil, err
	}
	x := ins[0]
	axes, given, err := c.axesOf(ins, 1)
	if err != nil {
		return nil, err
	}
	in := x.meta.Shape
	if c.node.OpType == "Unsqueeze" {
		if !given {
			return nil, fmt.Errorf("needs axes")
		}
		r := len(in) + len(axes)
		ins := make([]bool, r)
		for _, a := range axes {
			ax, err := axis(a, r)
			if err != nil {
				return nil, err
			}
			if ins[ax] {
				return nil, fmt.Errorf("axis %d given twice", a)
			}
			ins[ax] = true
		}
		out := make(tensor.Shape, 0, r)
		j := 0
		for i := range r {
			if ins[i] {
				out = append(out, 1)
			} else {
				out = append(out, in[j])
				j++
			}
		}
		return one(c.reshape(x, out))
	}
	drop := make([]bool, len(in))
	if !given {
		for i, d := range in {
			drop[i] = d == 1
		}
	}
	for _, a := range axes {
		ax, err := axis(a, len(in))
		if err != nil {
			return nil, err
		}
		if in[ax] != 1 {
			return nil, fmt.Errorf("cannot squeeze dimension %d of size %d", ax, in[ax])
		}
		drop[ax] = true
	}
	out := tensor.Shape{}
	for i, d := range in {
		if !drop[i] {
			out = append(out, d)
		}
	}
	return one(c.reshape(x, out))
}

func lowerConcat(c *ctx, ins []*value) ([]*value, error) {
	if len(ins) == 0 {
		return nil, fmt.Errorf("needs inputs")
	}
	if err := need(ins, 0); err != nil {
		return nil, err
	}
	ax, err := axis(c.attrInt("axis", 0), len(ins[0].meta.Shape))
	if err != nil {
		return nil, err
	}
	var parts []*value
	for _, in := range ins {
		if in == nil {
			return nil, fmt.Errorf("inputs may not be omitted")
		}
		if in.meta.Shape.Numel() == 0 && len(ins) > 1 {
			continue // empty shape tensors join as nothing
		}
		parts = append(parts, in)
	}
	if len(parts) == 0 {
		parts = ins[:1]
	}
	if len(parts) == 1 {
		return lowerVariadic(c, parts)
	}
	return one(c.op(ops.Cat, ops.CatAttrs{Dim: ax}, parts...))
}

func lowerShape(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0); err != nil {
		return nil, err
	}
	s := shapeInts(ins[0].meta.Shape)
	r := int64(len(s))
	start, end := c.attrInt("start", 0), c.attrInt("end", r)
	clampAxis := func(a int64) int64 {
		if a < 0 {
			a += r
		}
		return min(max(a, 0), r)
	}
	start, end = clampAxis(start), clampAxis(end)
	if end < start {
		end = start
	}
	return []*value{c.intsConst(s[start:end])}, nil
}

func lowerExpand(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0, 1); err != nil {
		return nil, err
	}
	target, err := c.ints(ins[1], "shape")
	if err != nil {
		return nil, err
	}
	x := ins[0]
	// Expand broadcasts both ways: a dimension of 1 in the target keeps
	// x's.
	t := make(tensor.Shape, len(target))
	for i, d := range target {
		t[i] = int(d)
	}
	out, err := tensor.Broadcast(x.meta.Shape, t)
	if err != nil {
		return nil, err
	}
	if out.Equal(x.meta.Shape) {
		return []*value{x}, nil
	}
	return one(c.op(ops.Expand, ops.ExpandAttrs{Shape: out}, x))
}

// lowerDropout is the identity at inference (training_mode, an input
// from opset 12, must be false); the optional mask output is all true.
func lowerDropout(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0); err != nil {
		return nil, err
	}
	if tm := input(ins, 2); tm != nil {
		// Training with ratio 0 keeps everything, as inference does.
		on, err := c.scalarOf(tm, "training_mode")
		if err != nil {
			return nil, err
		}
		ratio := 0.5
		if r := input(ins, 1); r != nil {
			if ratio, err = c.scalarOf(r, "ratio"); err != nil {
				return nil, err
			}
		}
		if on != 0 && ratio != 0 {
			return nil, fmt.Errorf("training mode with a nonzero ratio is not supported (dropout draws random masks)")
		}
	}
	x := ins[0]
	outs := []*value{x}
	if len(c.node.Outputs) > 1 {
		mask, err := c.op(ops.Expand, ops.ExpandAttrs{Shape: x.meta.Shape}, c.scalar(tensor.Bool, 1))
		if err != nil {
			return nil, err
		}
		outs = append(outs, mask)
	}
	return outs, nil
}

func lowerConstantOfShape(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0); err != nil {
		return nil, err
	}
	dims, err := c.ints(ins[0], "shape")
	if err != nil {
		return nil, err
	}
	shape := make(tensor.Shape, len(dims))
	for i, d := range dims {
		if d < 0 {
			return nil, fmt.Errorf("negative dimension in %v", dims)
		}
		shape[i] = int(d)
	}
	if _, err := tensor.CheckedNumel(shape); err != nil {
		return nil, err
	}
	fill := constOf(tensor.Float32, nil, 0)
	if a := c.attr("value"); a != nil && a.T != nil {
		d, err := c.prog.File.Load(a.T)
		if err != nil {
			return nil, err
		}
		if d.Numel() != 1 {
			return nil, fmt.Errorf("value must have one element, has %d", d.Numel())
		}
		fill = &value{meta: tensor.Meta{DType: d.DType}, c: &tensor.Dense{Meta: tensor.Meta{DType: d.DType}, Buf: d.Buf}}
	}
	return one(c.op(ops.Expand, ops.ExpandAttrs{Shape: shape}, c.keep(fill)))
}
