package onnx

import (
	"fmt"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Reductions and normalizations.

func init() {
	lower([]string{"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2", "ReduceSumSquare", "ReduceLogSum", "ReduceLogSumExp"}, lowerReduce)
	lower([]string{"ArgMax", "ArgMin"}, lowerArg)
	lower([]string{"BatchNormalization"}, lowerBatchNorm)
	lower([]string{"InstanceNormalization"}, lowerInstanceNorm)
	lower([]string{"LayerNormalization"}, lowerLayerNorm)
}

// reduceAxes reads the axes of a reduction: an attribute until the op's
// version moved it to an input (ReduceSum at opset 13, the others at 18).
// With none, every axis is reduced, or none under noop_with_empty_axes.
func (c *ctx) reduceAxes(ins []*value, rank int) (dims []int, noop bool, err error) {
	axes, given, err := c.axesOf(ins, 1)
	if err != nil {
		return nil, false, err
	}
	if !given || len(axes) == 0 {
		if c.attrInt("noop_with_empty_axes", 0) != 0 {
			return nil, true, nil
		}
		dims = make([]int, rank)
		for i := range dims {
			dims[i] = i
		}
		return dims, false, nil
	}
	for _, a := range axes {
		ax, err := axis(a, rank)
		if err != nil {
			return nil, false, err
		}
		dims = append(dims, ax)
	}
	return dims, false, nil
}

func lowerReduce(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0); err != nil {
		return nil, err
	}
	x := ins[0]
	dims, noop, err := c.reduceAxes(ins, len(x.meta.Shape))
	if err != nil {
		return nil, err
	}
	if noop {
		return []*value{x}, nil
	}
	a := ops.ReduceAttrs{Dims: dims, Keepdim: c.attrInt("keepdims", 1) != 0}
	if len(x.meta.Shape) == 0 {
		a.Dims = nil
	}
	red := func(op ops.Op, v *value) (*value, error) { return c.op(op, a, v) }
	switch c.node.OpType {
	case "ReduceSum":
		return one(red(ops.Sum, x))
	case "ReduceMean":
		return one(red(ops.Mean, x))
	case "ReduceMax":
		return one(red(ops.Max, x))
	case "ReduceMin":
		return one(red(ops.Min, x))
	case "ReduceProd":
		return one(red(ops.Prod, x))
	case "ReduceL1":
		ax, err := c.op(ops.Abs, nil, x)
		if err != nil {
			return nil, err
		}
		return one(red(ops.Sum, ax))
	case "ReduceL2", "ReduceSumSquare":
		sq, err := c.op(ops.Mul, nil, x, x)
		if err != nil {
			return nil, err
		}
		s, err := red(ops.Sum, sq)
		if err != nil || c.node.OpType == "ReduceSumSquare" {
			return one(s, err)
		}
		if !s.meta.DType.IsFloat() {
			// sqrt of an integer sum, truncated back, as the reference.
			f, err := c.op(ops.Sqrt, nil, s)
			if err != nil {
				return nil, err
			}
			return one(c.cast(f, s.meta.DType))
		}
		return one(c.op(ops.Sqrt, nil, s))
	case "ReduceLogSum":
		s, err := red(ops.Sum, x)
		if err != nil {
			return nil, err
		}
		return one(c.op(ops.Log, nil, s))
	case "ReduceLogSumExp":
		// max + log(sum(exp(x - max))), the max kept for broadcasting.
		keep := a
		keep.Keepdim = true
		m, err := c.op(ops.Max, keep, x)
		if err != nil {
			return nil, err
		}
		d, err := c.op(ops.Sub, nil, x, m)
		if err != nil {
			return nil, err
		}
		e, err := c.op(ops.Exp, nil, d)
		if err != nil {
			return nil, err
		}
		s, err := red(ops.Sum, e)
		if err != nil {
			return nil, err
		}
		l, err := c.op(ops.Log, nil, s)
		if err != nil {
			return nil, err
		}
		if !a.Keepdim {
			if m, err = c.reshape(m, l.meta.Shape); err != nil {
				return nil, err
			}
		}
		return one(c.op(ops.Add, nil, l, m))
	}
	return nil, fmt.Errorf("no reduction %s", c.node.OpType)
}

func lowerArg(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0); err != nil {
		return nil, err
	}
	x := ins[0]
	r := len(x.meta.Shape)
	ax, err := axis(c.attrInt("axis", 0), max(r, 1))
	if err != nil {
		return nil, err
	}
	op := map[string]ops.Op{"ArgMax": ops.Argmax, "ArgMin": ops.Argmin}[c.node.OpType]
	keep := c.attrInt("keepdims", 1) != 0
	if c.attrInt("select_last_index", 0) == 0 {
		return one(c.op(op, ops.ReduceAttrs{Dims: []int{ax}, Keepdim: keep}, x))
	}
	// The last index: flip the axis, take the first, map i to n-1-i.
	n := x.meta.Shape[ax]
	f, err := c.slice(x, ax, n-1, -1, -1)
	if err != nil {
		return nil, err
	}
	i, err := c.op(op, ops.ReduceAttrs{Dims: []int{ax}, Keepdim: keep}, f)
	if err != nil {
		return nil, err
	}
	return one(c.op(ops.Sub, nil, c.scalar(tensor.Int64, float64(n-1)), i))
}

// channel reshapes a per-channel parameter [C] to [C, 1, ...] so that it
// broadcasts over x [N, C, ...].
func (c *ctx) channel(p *value, x *value) (*value, error) {
	r := len(x.meta.Shape)
	if r < 2 {
		return p, nil
	}
	return c.reshape(p, alongAxis(r-1, 0, p.meta.Shape.Numel()))
}

// normalize is (x - mean) / sqrt(var + eps) * scale + bias with every
// operand broadcast against x.
func (c *ctx) normalize(x, mean, variance, scale, bias *value, eps float64) (*value, error) {
	d, err := c.op(ops.Sub, nil, x, mean)
	if err != nil {
		return nil, err
	}
	inv, err := c.invStd(variance, eps)
	if err != nil {
		return nil, err
	}
	if scale != nil {
		if inv, err = c.op(ops.Mul, nil, inv, scale); err != nil {
			return nil, err
		}
	}
	y, err := c.op(ops.Mul, nil, d, inv)
	if err != nil || bias == nil {
		return y, err
	}
	return c.op(ops.Add, nil, y, bias)
}

// lowerBatchNorm is inference-mode batch normalization with the stored
// mean and variance, or from opset 14 training mode (batchNormTraining;
// the training forms of earlier opsets are not supported).
func lowerBatchNorm(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0, 1, 2, 3, 4); err != nil {
		return nil, err
	}
	x := ins[0]
	eps := c.attrFloat("epsilon", 1e-5)
	if c.opset >= 14 && c.attrInt("training_mode", 0) != 0 {
		return c.batchNormTraining(ins, eps)
	}
	if c.attrInt("training_mode", 0) != 0 || (c.opset < 7 && c.attr("is_test") != nil && c.attrInt("is_test", 0) == 0) || len(c.node.Outputs) > 1 {
		return nil, fmt.Errorf("training mode before opset 14 is not supported")
	}
	if x.meta.DType.IsFloat() && len(x.meta.Shape) >= 2 {
		ok := true
		for _, p := range ins[1:5] {
			ok = ok && p.meta.DType == x.meta.DType && len(p.meta.Shape) == 1 && p.meta.Shape[0] == x.meta.Shape[1]
		}
		if ok {
			a := ops.BatchNormAttrs{Eps: eps, HasWeight: true, HasBias: true}
			return one(c.op(ops.BatchNorm, a, x, ins[3], ins[4], ins[1], ins[2]))
		}
	}
	p := make([]*value, 4)
	for i := range p {
		v, err := c.channel(ins[1+i], x)
		if err != nil {
			return nil, err
		}
		p[i] = v
	}
	return one(c.normalize(x, p[2], p[3], p[0], p[1], eps))
}

// batchNormTraining normalizes x with the batch's own mean and biased
// variance over every axis but 1, and gives the updated running
// statistics as the optional outputs: stored·momentum + batch·(1 -
// momentum), as ONNX's reference.
func (c *ctx) batchNormTraining(ins []*value, eps float64) ([]*value, error) {
	x := ins[0]
	r := len(x.meta.Shape)
	if r < 2 {
		return nil, fmt.Errorf("needs an input of rank 2 or more, got %v", x.meta.Shape)
	}
	dims := []int{0}
	for i := 2; i < r; i++ {
		dims = append(dims, i)
	}
	y, mean, variance, err := c.normalizeOver(x, dims, ins[1], ins[2], eps)
	if err != nil {
		return nil, err
	}
	outs := []*value{y}
	m := c.attrFloat("momentum", 0.9)
	for i, batch := range []*value{mean, variance} {
		if len(c.node.Outputs) <= 1+i {
			break
		}
		stored := ins[3+i]
		b, err := c.reshape(batch, stored.meta.Shape)
		if err != nil {
			return nil, err
		}
		sm, err := c.op(ops.Mul, nil, stored, c.scalar(stored.meta.DType, m))
		if err != nil {
			return nil, err
		}
		bm, err := c.op(ops.Mul, nil, b, c.scalar(b.meta.DType, 1-m))
		if err != nil {
			return nil, err
		}
		run, err := c.op(ops.Add, nil, sm, bm)
		if err != nil {
			return nil, err
		}
		outs = append(outs, run)
	}
	return outs, nil
}

// invStd is 1 / sqrt(variance + eps).
func (c *ctx) invStd(variance *value, eps float64) (*value, error) {
	ve, err := c.op(ops.Add, nil, variance, c.scalar(variance.meta.DType, eps))
	if err != nil {
		return nil, err
	}
	return c.op(ops.Rsqrt, nil, ve)
}

// moments are the mean and the biased variance of x over dims, kept.
func (c *ctx) moments(x *value, dims []int) (mean, variance *value, err error) {
	a := ops.ReduceAttrs{Dims: dims, Keepdim: true}
	if mean, err = c.op(ops.Mean, a, x); err != nil {
		return nil, nil, err
	}
	d, err := c.op(ops.Sub, nil, x, mean)
	if err != nil {
		return nil, nil, err
	}
	sq, err := c.op(ops.Mul, nil, d, d)
	if err != nil {
		return nil, nil, err
	}
	variance, err = c.op(ops.Mean, a, sq)
	return mean, variance, err
}

func lowerInstanceNorm(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0, 1, 2); err != nil {
		return nil, err
	}
	x := ins[0]
	dims := []int{}
	for i := 2; i < len(x.meta.Shape); i++ {
		dims = append(dims, i)
	}
	y, _, _, err := c.normalizeOver(x, dims, ins[1], ins[2], c.attrFloat("epsilon", 1e-5))
	return one(y, err)
}

// normalizeOver normalizes x by its own mean and biased variance over
// dims, then scales and shifts it per channel (axis 1) by scale and bias;
// it gives the moments too.
func (c *ctx) normalizeOver(x *value, dims []int, scale, bias *value, eps float64) (y, mean, variance *value, err error) {
	if mean, variance, err = c.moments(x, dims); err != nil {
		return nil, nil, nil, err
	}
	if scale, err = c.channel(scale, x); err != nil {
		return nil, nil, nil, err
	}
	if bias, err = c.channel(bias, x); err != nil {
		return nil, nil, nil, err
	}
	y, err = c.normalize(x, mean, variance, scale, bias, eps)
	return y, mean, variance, err
}

// lowerLayerNorm normalizes over the axes from axis on; the optional
// outputs Mean and InvStdDev are computed when asked for.
func lowerLayerNorm(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0, 1); err != nil {
		return nil, err
	}
	x, scale, bias := ins[0], ins[1], input(ins, 2)
	r := len(x.meta.Shape)
	ax, err := axis(c.attrInt("axis", -1), r)
	if err != nil {
		return nil, err
	}
	eps := c.attrFloat("epsilon", 1e-5)
	extra := len(c.node.Outputs) > 1
	last := x.meta.Shape[r-1]
	if ax == r-1 && !extra && x.meta.DType.IsFloat() && scale.meta.Shape.Numel() == last && len(scale.meta.Shape) == 1 && (bias == nil || bias.meta.Shape.Equal(scale.meta.Shape)) {
		a := ops.NormAttrs{Eps: eps, HasWeight: true, HasBias: bias != nil}
		if bias != nil {
			return one(c.op(ops.LayerNorm, a, x, scale, bias))
		}
		return one(c.op(ops.LayerNorm, a, x, scale))
	}
	dims := []int{}
	for i := ax; i < r; i++ {
		dims = append(dims, i)
	}
	mean, variance, err := c.moments(x, dims)
	if err != nil {
		return nil, err
	}
	y, err := c.normalize(x, mean, variance, scale, bias, eps)
	if err != nil || !extra {
		return one(y, err)
	}
	inv, err := c.invStd(variance, eps)
	if err != nil {
		return nil, err
	}
	return []*value{y, mean, inv}, nil
}
