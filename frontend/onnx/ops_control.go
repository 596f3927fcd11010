package onnx

import (
	"fmt"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Control flow: If and Loop run their subgraphs as part of the graph.
// Their conditions and trip counts are read on the host (a condition
// computed by the graph is forced, running the window up to it); the
// subgraphs' ops are submitted like the rest.

func init() {
	lower([]string{"If"}, lowerIf)
	lower([]string{"Loop"}, lowerLoop)
}

// runSubgraph runs g with the outer values visible by name and bound
// giving its inputs; it returns g's outputs. Every value the subgraph
// made, and its hold on bound, is dropped; the outputs survive with the
// uses they had outside (0 for new values).
func (c *ctx) runSubgraph(g *Graph, outer map[string]*value, bound map[string]*value) ([]*value, error) {
	env := make(map[string]*value, len(outer)+len(g.Nodes))
	for k, v := range outer {
		env[k] = v
	}
	inner := map[string]bool{}
	bind := func(name string, v *value) {
		v.uses++
		env[name] = v
		inner[name] = true
	}
	for name, v := range bound {
		bind(name, v)
	}
	child := &ctx{rt: c.rt, opset: c.opset, prog: c.prog}
	defer func() {
		for name := range inner {
			if v, ok := env[name]; ok {
				drop(c.rt, v)
			}
		}
	}()
	if err := uniqueInitializers(g); err != nil {
		return nil, err
	}
	for _, t := range g.Initializers {
		v, err := c.prog.constant(c.rt.rt, c.rt.site, t)
		if err != nil {
			return nil, err
		}
		if v.ref != nil {
			c.rt.unplannable() // a plan cannot remake a lazy ref
		}
		v.uses = 0
		bind(t.Name, v)
	}
	// Names the subgraph's nodes bind are its own; they may not hide an
	// outer value (graphs are in SSA form).
	for _, n := range g.Nodes {
		for _, o := range n.Outputs {
			if _, ok := outer[o]; ok && o != "" {
				return nil, fmt.Errorf("node %q redefines %q of the enclosing graph", n.Name, o)
			}
			inner[o] = true
		}
	}
	if err := child.runNodes(g.Nodes, env, nil, nil); err != nil {
		return nil, err
	}
	outs := make([]*value, len(g.Outputs))
	for i, o := range g.Outputs {
		v, ok := env[o.Name]
		if !ok {
			return nil, fmt.Errorf("subgraph output %q is computed by no node", o.Name)
		}
		outs[i] = v
	}
	// Keep the outputs through the drops above, then give the hold back.
	for _, v := range outs {
		v.uses++
	}
	for name := range inner {
		if v, ok := env[name]; ok {
			drop(c.rt, v)
		}
		delete(inner, name)
	}
	for _, v := range outs {
		v.uses--
		c.keep(v)
	}
	return outs, nil
}

func lowerIf(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0); err != nil {
		return nil, err
	}
	cond, err := c.scalarOf(ins[0], "cond")
	if err != nil {
		return nil, err
	}
	branch := "else_branch"
	if cond != 0 {
		branch = "then_branch"
	}
	a := c.attr(branch)
	if a == nil || a.G == nil {
		return nil, fmt.Errorf("no %s", branch)
	}
	outs, err := c.runSubgraph(a.G, c.env, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", branch, err)
	}
	return outs, nil
}

// maxLoopIterations bounds a Loop without a trip count.
const maxLoopIterations = 1 << 20

func lowerLoop(c *ctx, ins []*value) ([]*value, error) {
	a := c.attr("body")
	if a == nil || a.G == nil {
		return nil, fmt.Errorf("no body")
	}
	body := a.G
	trips := int64(-1)
	if m := input(ins, 0); m != nil {
		v, err := c.ints(m, "M")
		if err != nil {
			return nil, err
		}
		if len(v) != 1 {
			return nil, fmt.Errorf("M must have one element")
		}
		trips = v[0]
	}
	cond := true
	if cv := input(ins, 1); cv != nil {
		v, err := c.scalarOf(cv, "cond")
		if err != nil {
			return nil, err
		}
		cond = v != 0
	}
	carried := append([]*value(nil), ins[min(2, len(ins)):]...)
	for _, v := range carried {
		if v == nil {
			return nil, fmt.Errorf("loop-carried values may not be omitted")
		}
	}
	nc := len(carried)
	if len(body.Inputs) != 2+nc || len(body.Outputs) < 1+nc {
		return nil, fmt.Errorf("the body takes %d inputs and gives %d outputs for %d loop-carried values", len(body.Inputs), len(body.Outputs), nc)
	}
	nscan := len(body.Outputs) - 1 - nc
	scans := make([][]*value, nscan)
	// The values of the current iteration hold one use each, so that
	// they outlive the body's run that made them.
	holdAll(carried)
	defer func() { dropLoop(c.rt, carried, scans) }()
	for i := int64(0); cond && (trips < 0 || i < trips); i++ {
		if i >= maxLoopIterations {
			return nil, fmt.Errorf("more than %d iterations", maxLoopIterations)
		}
		if c.rt.interrupted() {
			return nil, fmt.Errorf("iteration %d: %w", i, refs.ErrInterrupted)
		}
		bound := map[string]*value{
			body.Inputs[0].Name: c.keep(constOf(tensor.Int64, nil, float64(i))),
			body.Inputs[1].Name: c.keep(constOf(tensor.Bool, nil, b2f(cond))),
		}
		for j, v := range carried {
			bound[body.Inputs[2+j].Name] = v
		}
		outs, err := c.runSubgraph(body, c.env, bound)
		if err != nil {
			return nil, fmt.Errorf("iteration %d: %w", i, err)
		}
		holdAll(outs)
		dropAll(c.rt, carried)
		cv, err := c.scalarOf(outs[0], "cond")
		if err != nil {
			dropAll(c.rt, outs)
			return nil, err
		}
		cond = cv != 0
		drop(c.rt, outs[0])
		carried = outs[1 : 1+nc]
		for k := range scans {
			scans[k] = append(scans[k], outs[1+nc+k])
		}
	}
	res := append([]*value(nil), carried...)
	for k, s := range scans {
		if len(s) == 0 {
			return nil, fmt.Errorf("scan output %d of a loop that ran no iteration", k)
		}
		v, err := c.op(ops.Stack, ops.CatAttrs{Dim: 0}, s...)
		if err != nil {
			return nil, err
		}
		res = append(res, v)
	}
	leaveLoop(c.rt, res, carried, scans)
	carried, scans = nil, nil // left: the deferred drop has nothing to do
	return res, nil
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
