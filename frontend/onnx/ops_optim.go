package onnx

import (
	"fmt"
	"math"

	"github.com/tref-lang/tref/runtime/ops"
)

// The optimizers of the ai.onnx.preview.training domain (Adagrad,
// Momentum, Adam): one update of every tensor they are given, from its
// gradient and state; the learning rate and step count are read on the
// host.

func init() {
	for _, op := range []string{"Adagrad", "Momentum", "Adam"} {
		lower([]string{"ai.onnx.preview.training." + op}, lowerOptimizer)
	}
}

func lowerOptimizer(c *ctx, ins []*value) ([]*value, error) {
	kind := c.node.OpType
	states := map[string]int{"Adagrad": 1, "Momentum": 1, "Adam": 2}[kind]
	if err := need(ins, 0, 1); err != nil {
		return nil, err
	}
	rate, err := c.scalarOf(ins[0], "R")
	if err != nil {
		return nil, err
	}
	step, err := c.scalarOf(ins[1], "T")
	if err != nil {
		return nil, err
	}
	rest := ins[2:]
	if len(rest) == 0 || len(rest)%(2+states) != 0 {
		return nil, fmt.Errorf("%d tensors do not split into parameters, gradients and %d states each", len(rest), states)
	}
	n := len(rest) / (2 + states)
	outs := make([]*value, len(rest)-n)
	for i := range n {
		x, g := rest[i], rest[n+i]
		if x == nil || g == nil {
			return nil, fmt.Errorf("inputs may not be omitted")
		}
		s := func(v float64) *value { return c.scalar(x.meta.DType, v) }
		var ch chain
		ch.c = c
		// g += norm_coefficient * x
		if nc := c.attrFloat("norm_coefficient", 0); nc != 0 {
			g = ch.op(ops.Add, g, ch.op(ops.Mul, x, s(nc)))
		}
		switch kind {
		case "Adagrad":
			h := rest[2*n+i]
			r := rate / (1 + step*c.attrFloat("decay_factor", 0))
			hNew := ch.op(ops.Add, h, ch.op(ops.Mul, g, g))
			den := ch.op(ops.Add, ch.op(ops.Sqrt, hNew), s(c.attrFloat("epsilon", 1e-6)))
			outs[i] = ch.op(ops.Sub, x, ch.op(ops.Div, ch.op(ops.Mul, g, s(r)), den))
			outs[n+i] = hNew
		case "Momentum":
			v := rest[2*n+i]
			alpha, beta := c.attrFloat("alpha", 0), c.attrFloat("beta", 0)
			if step == 0 {
				beta = 1
			}
			vNew := ch.op(ops.Add, ch.op(ops.Mul, v, s(alpha)), ch.op(ops.Mul, g, s(beta)))
			dir := vNew
			if c.attrString("mode", "standard") == "nesterov" {
				dir = ch.op(ops.Add, g, ch.op(ops.Mul, vNew, s(alpha)))
			}
			outs[i] = ch.op(ops.Sub, x, ch.op(ops.Mul, dir, s(rate)))
			outs[n+i] = vNew
		default: // Adam
			v, h := rest[2*n+i], rest[3*n+i]
			alpha, beta := c.attrFloat("alpha", 0.9), c.attrFloat("beta", 0.999)
			vNew := ch.op(ops.Add, ch.op(ops.Mul, v, s(alpha)), ch.op(ops.Mul, g, s(1-alpha)))
			hNew := ch.op(ops.Add, ch.op(ops.Mul, h, s(beta)), ch.op(ops.Mul, ch.op(ops.Mul, g, g), s(1-beta)))
			den := ch.op(ops.Add, ch.op(ops.Sqrt, hNew), s(c.attrFloat("epsilon", 1e-6)))
			r := rate
			if step > 0 {
				r = rate * math.Sqrt(1-math.Pow(beta, step)) / (1 - math.Pow(alpha, step))
			}
			xNew := ch.op(ops.Sub, x, ch.op(ops.Div, ch.op(ops.Mul, vNew, s(r)), den))
			if post := c.attrFloat("norm_coefficient_post", 0); post != 0 {
				xNew = ch.op(ops.Mul, xNew, s(1-post))
			}
			outs[i], outs[n+i], outs[2*n+i] = xNew, vNew, hNew
		}
		if ch.err != nil {
			return nil, ch.err
		}
	}
	return outs, nil
}

// chain submits ops until one fails, keeping the first error: long
// formulas read as formulas.
type chain struct {
	c   *ctx
	err error
}

// op is c.op for ops without attributes, or nil after an error.
func (ch *chain) op(op ops.Op, ins ...*value) *value {
	if ch.err != nil {
		return nil
	}
	for _, in := range ins {
		if in == nil {
			return nil
		}
	}
	v, err := ch.c.op(op, nil, ins...)
	ch.err = err
	return v
}
