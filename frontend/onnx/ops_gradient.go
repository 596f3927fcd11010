package onnx

import (
	"fmt"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// The Gradient op of the ai.onnx.preview.training domain: the gradients
// of the graph's value y with respect to xs, by reverse accumulation over
// the nodes before it, with dy = 1. The ops it differentiates through are
// the elementwise ones below.

func init() {
	lower([]string{"ai.onnx.preview.training.Gradient"}, lowerGradient)
}

func lowerGradient(c *ctx, _ []*value) ([]*value, error) {
	y := c.attrString("y", "")
	xa := c.attr("xs")
	if y == "" || xa == nil {
		return nil, fmt.Errorf("needs the attributes xs and y")
	}
	yv, ok := c.env[y]
	if !ok {
		return nil, fmt.Errorf("y %q is not computed before this node", y)
	}
	ones, err := c.op(ops.Expand, ops.ExpandAttrs{Shape: yv.meta.Shape}, c.scalar(yv.meta.DType, 1))
	if err != nil {
		return nil, err
	}
	grads := map[string]*value{y: ones}
	add := func(name string, g *value) error {
		if old, ok := grads[name]; ok {
			s, err := c.op(ops.Add, nil, old, g)
			if err != nil {
				return err
			}
			g = s
		}
		grads[name] = g
		return nil
	}
	// Walk the nodes before this one backwards.
	end := 0
	for i, n := range c.nodes {
		if n == c.node {
			end = i
		}
	}
	for i := end - 1; i >= 0; i-- {
		n := c.nodes[i]
		if len(n.Outputs) != 1 {
			continue
		}
		g, ok := grads[n.Outputs[0]]
		if !ok {
			continue
		}
		ins := make([]*value, len(n.Inputs))
		for j, name := range n.Inputs {
			if ins[j] = c.env[name]; ins[j] == nil {
				return nil, fmt.Errorf("value %q is gone", name)
			}
		}
		dins, err := c.backward(n, ins, g)
		if err != nil {
			return nil, err
		}
		for j, d := range dins {
			if d == nil {
				continue
			}
			if d, err = c.unbroadcast(d, ins[j].meta.Shape); err != nil {
				return nil, err
			}
			if err := add(n.Inputs[j], d); err != nil {
				return nil, err
			}
		}
	}
	outs := make([]*value, len(xa.Strings))
	for i, x := range xa.Strings {
		g, ok := grads[string(x)]
		if !ok {
			xv, found := c.env[string(x)]
			if !found {
				return nil, fmt.Errorf("x %q is not computed before this node", x)
			}
			if g, err = c.op(ops.Expand, ops.ExpandAttrs{Shape: xv.meta.Shape}, c.scalar(xv.meta.DType, 0)); err != nil {
				return nil, err
			}
		}
		outs[i] = g
	}
	return outs, nil
}

// backward gives the gradients of node n's inputs from the gradient g of
// its output (nil for an input it does not depend on).
func (c *ctx) backward(n *Node, ins []*value, g *value) ([]*value, error) {
	mul := func(a, b *value) (*value, error) { return c.op(ops.Mul, nil, a, b) }
	switch n.OpType {
	case "Add", "Sum", "Identity":
		out := make([]*value, len(ins))
		for i := range out {
			out[i] = g
		}
		return out, nil
	case "Sub":
		ng, err := c.op(ops.Neg, nil, g)
		return []*value{g, ng}, err
	case "Neg":
		ng, err := c.op(ops.Neg, nil, g)
		return []*value{ng}, err
	case "Mul":
		da, err := mul(g, ins[1])
		if err != nil {
			return nil, err
		}
		db, err := mul(g, ins[0])
		return []*value{da, db}, err
	case "Div":
		// d(a/b) = g/b, -g a / b²
		da, err := c.op(ops.Div, nil, g, ins[1])
		if err != nil {
			return nil, err
		}
		q, err := c.op(ops.Div, nil, da, ins[1])
		if err != nil {
			return nil, err
		}
		db, err := mul(q, ins[0])
		if err != nil {
			return nil, err
		}
		ndb, err := c.op(ops.Neg, nil, db)
		return []*value{da, ndb}, err
	}
	return nil, fmt.Errorf("the gradient through %s is not supported", n.OpType)
}

// unbroadcast sums g down to shape s (the shape of an operand that was
// broadcast).
func (c *ctx) unbroadcast(g *value, s tensor.Shape) (*value, error) {
	if g.meta.Shape.Equal(s) {
		return g, nil
	}
	gs := g.meta.Shape
	lead := len(gs) - len(s)
	var dims []int
	for i := range gs {
		if i < lead || s[i-lead] == 1 && gs[i] != 1 {
			dims = append(dims, i)
		}
	}
	r, err := c.op(ops.Sum, ops.ReduceAttrs{Dims: dims, Keepdim: true}, g)
	if err != nil {
		return nil, err
	}
	return c.reshape(r, s)
}
