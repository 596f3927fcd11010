package onnx

import (
	"fmt"

	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// value is one tensor of a running graph: a runtime ref, or a constant
// known on the host (c) that the lowering can read (shapes, axes) and that
// becomes a ref only when a runtime op takes it.
type value struct {
	meta tensor.Meta
	ref  *refs.Ref
	c    *tensor.Dense
	// owned says the value holds one reference to ref.
	owned bool
	// uses counts the names bound to the value in a run (Identity binds
	// two names to one value) and the sequences holding it.
	uses int
	// seq is set for a sequence (SequenceConstruct, SplitToSequence):
	// its elements, each holding one use.
	seq   []*value
	isSeq bool
	seqDT tensor.DType
}

// ctx lowers one node: it submits runtime ops, folds ops on constants
// on the host, and keeps the intermediate values the node makes so that
// they are released when it is done.
type ctx struct {
	rt    *runner
	opset int64
	node  *Node
	temps []*value
	prog  *Program
	// env and nodes are the graph being run, for the Gradient op, which
	// reads the values its graph computed before it.
	env   map[string]*value
	nodes []*Node
}

// op runs the runtime op name over ins. When every input is a host
// constant and the inputs are small, the op is computed at once on the
// host with the cpu kernels, and the result is a constant too; otherwise
// it is submitted to the runtime.
func (c *ctx) op(op ops.Op, attrs any, ins ...*value) (*value, error) {
	def := op.Def()
	fold := true
	metas := make([]tensor.Meta, len(ins))
	for i, in := range ins {
		if in.isSeq {
			return nil, fmt.Errorf("%s takes tensors, got a sequence", op)
		}
		metas[i] = in.meta
		if in.c == nil || in.meta.Shape.Numel() > foldLimit {
			fold = false
		}
	}
	if fold {
		m, err := def.Infer(metas, attrs)
		if err != nil {
			return nil, err
		}
		if m.Shape.Numel() <= foldLimit {
			out := tensor.NewDense(m)
			dense := make([]*tensor.Dense, len(ins))
			for i, in := range ins {
				dense[i] = in.c
			}
			if err := cpu.Run(op, out, dense, attrs); err != nil {
				return nil, err
			}
			return c.keep(&value{meta: m, c: out}), nil
		}
	}
	rs := make([]*refs.Ref, len(ins))
	var tmp []*refs.Ref
	for i, in := range ins {
		if in.ref == nil {
			in = c.materialize(in)
			tmp = append(tmp, in.ref)
		}
		rs[i] = in.ref
	}
	r, err := c.rt.Submit(op, attrs, rs...)
	for _, t := range tmp {
		c.rt.Release(t)
	}
	if err != nil {
		return nil, err
	}
	return c.keep(&value{meta: r.Meta(), ref: r, owned: true}), nil
}

// materialize returns a value holding a ref to constant v's data (the
// program's cached one for a small constant, else a new one) with one
// reference for the caller, who releases it.
func (c *ctx) materialize(v *value) *value {
	if r := c.prog.smallRef(c.rt.rt, c.rt.site, v.c); r != nil {
		if c.rt.rec != nil {
			// A replay takes the cached ref as the lowering did.
			c.rt.rec.refStep(stepRetain, r)
		}
		return &value{meta: v.meta, ref: r, owned: true}
	}
	return &value{meta: v.meta, ref: c.rt.FromHost(v.c.Clone()), owned: true}
}

// keep records v as the node's intermediate, released when the node is
// done unless it becomes one of the node's outputs.
func (c *ctx) keep(v *value) *value {
	c.temps = append(c.temps, v)
	return v
}

// release drops the temporaries of the node except those in outs.
func (c *ctx) release(outs []*value) {
	for _, t := range c.temps {
		isOut := false
		for _, o := range outs {
			if o == t {
				isOut = true
				break
			}
		}
		if !isOut && t.uses == 0 && t.owned && t.ref != nil {
			c.rt.Release(t.ref)
			t.ref = nil
		}
	}
	c.temps = c.temps[:0]
}

// host returns v's data on the host: a constant's, or the data of a ref,
// which forces it (the window runs up to it). Lowerings call it for
// inputs that must be known to build the ops (shapes, axes, pads).
func (c *ctx) host(v *value) (*tensor.Dense, error) {
	if v.c != nil {
		return v.c, nil
	}
	return c.rt.Read(v.ref)
}

// ints reads an integer input (a shape, axes) as int64s.
func (c *ctx) ints(v *value, what string) ([]int64, error) {
	if v.meta.DType.IsFloat() {
		return nil, fmt.Errorf("%s must be an integer tensor, got %s", what, v.meta)
	}
	d, err := c.host(v)
	if err != nil {
		return nil, err
	}
	out := make([]int64, d.Numel())
	for i := range out {
		out[i] = d.IntAt(i)
	}
	return out, nil
}

// scalarOf reads a one-element input as a float64.
func (c *ctx) scalarOf(v *value, what string) (float64, error) {
	if v.meta.Shape.Numel() != 1 {
		return 0, fmt.Errorf("%s must have one element, got %s", what, v.meta)
	}
	d, err := c.host(v)
	if err != nil {
		return 0, err
	}
	return d.At(0), nil
}

// constOf is a host constant of dtype dt and shape (nil: 0-d) filled with x.
func constOf(dt tensor.DType, shape tensor.Shape, x float64) *value {
	d := tensor.NewDense(tensor.Meta{Shape: shape, DType: dt})
	for i := range d.Numel() {
		d.Set(i, x)
	}
	return &value{meta: d.Meta, c: d, uses: 1}
}

// scalar is a 0-d host constant of v's dtype, for composing ops.
func (c *ctx) scalar(dt tensor.DType, x float64) *value {
	return c.keep(constOf(dt, nil, x))
}

// intsConst is a 1-d int64 host constant.
func (c *ctx) intsConst(xs []int64) *value {
	d := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{len(xs)}, DType: tensor.Int64})
	copy(d.I64(), xs)
	return c.keep(&value{meta: d.Meta, c: d})
}

// Run executes the program on inputs (in p.Inputs order, all given) and
// returns one owned ref per graph output. Ops are submitted at site
// under refs.Runtime.Hold: the whole graph is queued before any of it
// runs, so the placement engine sees every tensor's future in its window.
// The first run with a signature of inputs lowers the graph node by node
// and records what it submits; later runs with that signature replay the
// record (plan.go).
func (p *Program) Run(rt *refs.Runtime, site refs.Site, inputs []*refs.Ref) ([]*refs.Ref, error) {
	if len(inputs) != len(p.Inputs) {
		return nil, fmt.Errorf("the model takes %d inputs, got %d", len(p.Inputs), len(inputs))
	}
	for i, in := range p.Inputs {
		if err := checkInput(in, inputs[i].Meta()); err != nil {
			return nil, err
		}
	}
	pl := p.planFor(rt, inputs)
	if pl != nil && !pl.dynamic {
		if res, ok := pl.replay(rt, site, inputs); ok {
			return res, nil
		}
	}
	var rec *recording
	if pl == nil {
		rec = p.record(rt, inputs)
	}
	res, err := p.lower(&runner{rt: rt, site: site, rec: rec}, inputs)
	if err == nil && rec != nil {
		p.finish(rec, res)
	}
	return res, err
}

// lower runs the graph node by node on inputs, through r.
func (p *Program) lower(r *runner, inputs []*refs.Ref) ([]*refs.Ref, error) {
	env := make(map[string]*value, len(p.graph.Nodes)+len(p.consts))
	for name, v := range p.consts {
		env[name] = v
	}
	for i, in := range p.Inputs {
		env[in.Name] = &value{meta: inputs[i].Meta(), ref: inputs[i], uses: 1}
	}
	c := &ctx{rt: r, opset: p.Opset, prog: p}
	defer r.rt.Hold()()
	defer func() {
		for name, v := range env {
			if !p.isConst(name, v) {
				drop(r, v)
			}
		}
	}()
	outputs := map[string]bool{}
	for _, o := range p.Outputs {
		outputs[o.Name] = true
	}
	if err := c.runNodes(p.graph.Nodes, env, p.lastUse, outputs); err != nil {
		return nil, err
	}
	res := make([]*refs.Ref, 0, len(p.Outputs))
	for _, o := range p.Outputs {
		v, ok := env[o.Name]
		if !ok {
			for _, x := range res {
				r.Release(x)
			}
			return nil, fmt.Errorf("graph output %q is computed by no node", o.Name)
		}
		if v.isSeq {
			for _, x := range res {
				r.Release(x)
			}
			return nil, fmt.Errorf("graph output %q is a sequence; tref returns tensors only", o.Name)
		}
		if v.ref == nil {
			res = append(res, r.FromHost(v.c.Clone()))
			continue
		}
		r.Retain(v.ref)
		res = append(res, v.ref)
	}
	return res, nil
}

// isConst reports whether v is the program's constant called name (held
// by the program, not by a run).
func (p *Program) isConst(name string, v *value) bool { return p.consts[name] == v }

// drop releases one name's hold on v.
func drop(rt *runner, v *value) {
	if v.uses--; v.uses > 0 {
		return
	}
	if v.owned && v.ref != nil {
		rt.Release(v.ref)
		v.ref = nil
	}
	for _, e := range v.seq {
		drop(rt, e)
	}
	v.seq = nil
}

// runNodes lowers nodes in order, binding their outputs in env and
// dropping each value after the last node that reads it (lastUse), unless
// it is in keep.
func (c *ctx) runNodes(nodes []*Node, env map[string]*value, lastUse map[string]int, keep map[string]bool) error {
	c.env, c.nodes = env, nodes
	for i, n := range nodes {
		if n.OpType == "Constant" && n.Domain == "" && len(n.Outputs) == 1 {
			if _, ok := c.prog.consts[n.Outputs[0]]; ok {
				continue // bound by Compile
			}
		}
		ins := make([]*value, len(n.Inputs))
		for j, name := range n.Inputs {
			if name == "" {
				continue
			}
			v, ok := env[name]
			if !ok {
				return nodeErr(n, c.opset, fmt.Errorf("input %q is not computed before this node", name))
			}
			ins[j] = v
		}
		c.node = n
		outs, err := lowerNode(c, n, ins)
		if err != nil {
			c.release(nil)
			return nodeErr(n, c.opset, err)
		}
		c.release(outs)
		for j, o := range outs {
			if o == nil {
				continue
			}
			if j >= len(n.Outputs) || n.Outputs[j] == "" {
				// A result no name takes (an optional output left out).
				o.uses++
				drop(c.rt, o)
				continue
			}
			name := n.Outputs[j]
			o.uses++
			if old, ok := env[name]; ok && !c.prog.isConst(name, old) {
				drop(c.rt, old)
			}
			env[name] = o
		}
		for _, name := range n.Inputs {
			if lastUse != nil && lastUse[name] == i && !keep[name] {
				if v, ok := env[name]; ok && !c.prog.isConst(name, v) {
					drop(c.rt, v)
					delete(env, name)
				}
			}
		}
	}
	return nil
}

// nodeErr names the node an error happened in.
func nodeErr(n *Node, opset int64, err error) error {
	return fmt.Errorf("node %q (%s, opset %d): %w", n.Name, n.OpType, opset, err)
}

// checkInput compares a given tensor with the input's declared type.
func checkInput(in *ValueInfo, m tensor.Meta) error {
	t := in.Type
	if t.Kind != TypeTensor {
		return fmt.Errorf("input %q is not a tensor input; tref runs tensor inputs only", in.Name)
	}
	if want, ok := t.Elem.DType(); ok && want != m.DType {
		return fmt.Errorf("input %q must be %s, got %s", in.Name, t.Elem, m)
	}
	if !t.HasShape {
		return nil
	}
	if len(t.Shape) != len(m.Shape) {
		return fmt.Errorf("input %q must have shape %s, got %s", in.Name, ShapeString(t.Shape), m.Shape)
	}
	for i, d := range t.Shape {
		if d.HasValue && d.Value != int64(m.Shape[i]) {
			return fmt.Errorf("input %q must have shape %s, got %s", in.Name, ShapeString(t.Shape), m.Shape)
		}
	}
	return nil
}

// ShapeString writes a declared shape, symbols by name: [N, 3, 224, 224].
func ShapeString(dims []Dim) string {
	s := "["
	for i, d := range dims {
		if i > 0 {
			s += ", "
		}
		switch {
		case d.HasValue:
			s += fmt.Sprint(d.Value)
		case d.Param != "":
			s += d.Param
		default:
			s += "?"
		}
	}
	return s + "]"
}
