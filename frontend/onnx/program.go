package onnx

import (
	"fmt"
	"sort"
	"strings"

	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Program is an ONNX model ready to run on a tref runtime: its graph
// checked against the ops tref can run, its initializers and large
// Constant tensors held as lazy refs that read the mapped file on first
// use, small integer constants (shapes, axes) read at once so that the
// graph's shape arithmetic folds on the host.
type Program struct {
	File  *File
	Opset int64
	// Inputs are the graph inputs the caller gives (initializers that are
	// also listed as inputs are left out: they keep their stored value);
	// Outputs the graph's results, in graph order.
	Inputs  []*ValueInfo
	Outputs []*ValueInfo
	graph   *Graph
	// consts are the initializers and Constant outputs, by name.
	consts map[string]*value
	// tensors are the stored tensors of the constants that have one;
	// loaders read the constants folding made (foldAffine), by value.
	tensors map[string]*Tensor
	loaders map[*value]func() (*tensor.Dense, error)
	// lastUse is the index of the last node that reads each name.
	lastUse map[string]int
	holders int
	// small caches the refs of small host constants ops take (smallRef).
	small smallRefs
	// plans are the recorded lowerings of the signatures run so far.
	plans []*plan
}

// foldLimit bounds the elements of a constant read at load time and of
// the results computed on the host while a graph is lowered (shape
// arithmetic); anything larger is a lazy ref or a runtime op.
const foldLimit = 1 << 12

// Compile prepares f's graph to run on rt. Initializer refs are made at
// site; each holds the file open until it is loaded or freed. The Program
// holds one reference: Release it.
func Compile(rt *refs.Runtime, site refs.Site, f *File) (*Program, error) {
	return compile(rt, site, f, true)
}

// compile is Compile, with the affine maps after convolutions folded
// into them (foldAffine), hard-swish chains fused (fuseHardswish) and the
// affine maps before unpadded convolutions folded (foldAffineBefore) when
// fold is set.
func compile(rt *refs.Runtime, site refs.Site, f *File, fold bool) (*Program, error) {
	g := f.Model.Graph
	opset, ok := f.Model.Opsets[""]
	if !ok {
		opset = 1
	}
	if bad := Unsupported(f.Model); len(bad) > 0 {
		return nil, fmt.Errorf("%s: tref cannot run %s", f.Path, strings.Join(bad, "; "))
	}
	p := &Program{File: f, Opset: opset, graph: g, consts: map[string]*value{}, tensors: map[string]*Tensor{}, loaders: map[*value]func() (*tensor.Dense, error){}, lastUse: map[string]int{}, holders: 1}
	fail := func(err error) (*Program, error) {
		p.Release(rt)
		return nil, fmt.Errorf("%s: %w", f.Path, err)
	}
	if err := uniqueInitializers(g); err != nil {
		return fail(err)
	}
	for _, t := range g.Initializers {
		v, err := p.constant(rt, site, t)
		if err != nil {
			return fail(err)
		}
		p.consts[t.Name] = v
		p.tensors[t.Name] = t
	}
	for _, in := range g.Inputs {
		if _, ok := p.consts[in.Name]; !ok {
			p.Inputs = append(p.Inputs, in)
		}
	}
	p.Outputs = g.Outputs
	for _, vi := range append(append([]*ValueInfo(nil), p.Inputs...), p.Outputs...) {
		if k := vi.Type.Kind; k != TypeTensor && k != TypeNone {
			return fail(fmt.Errorf("%q is not a tensor: tref runs tensor inputs only", vi.Name))
		}
		if _, ok := vi.Type.Elem.DType(); !ok && vi.Type.Kind == TypeTensor {
			return fail(fmt.Errorf("%q holds %s: tref has no such tensors", vi.Name, vi.Type.Elem))
		}
	}
	for _, n := range g.Nodes {
		if n.OpType != "Constant" || n.Domain != "" {
			continue
		}
		v, err := p.constantNode(rt, site, n)
		if err != nil {
			return fail(fmt.Errorf("node %q (Constant): %w", n.Name, err))
		}
		if len(n.Outputs) == 0 || n.Outputs[0] == "" {
			releaseConst(rt, v) // nothing reads it
			continue
		}
		if _, dup := p.consts[n.Outputs[0]]; dup {
			releaseConst(rt, v)
			return fail(fmt.Errorf("node %q (Constant): %q is already defined", n.Name, n.Outputs[0]))
		}
		p.consts[n.Outputs[0]] = v
		if a := n.Attrs[0]; a.Name == "value" {
			p.tensors[n.Outputs[0]] = a.T
		}
	}
	if fold {
		if err := p.foldAffine(rt, site); err != nil {
			return fail(err)
		}
		p.fuseHardswish(rt)
		if err := p.foldAffineBefore(rt, site); err != nil {
			return fail(err)
		}
	}
	for i, n := range p.graph.Nodes {
		if n.OpType == "Constant" && n.Domain == "" {
			continue
		}
		for _, name := range n.Inputs {
			p.lastUse[name] = i
		}
		if n.OpType == "Gradient" {
			// It reads every value computed before it.
			for _, m := range p.graph.Nodes[:i] {
				for _, name := range append(m.Inputs, m.Outputs...) {
					p.lastUse[name] = i
				}
			}
		}
		subgraphReads(n, func(name string) { p.lastUse[name] = i })
	}
	return p, nil
}

// subgraphReads calls f with every name the subgraphs of n's attributes
// (an If's branches, a Loop's body) read, at any depth.
func subgraphReads(n *Node, f func(name string)) {
	for _, a := range n.Attrs {
		for _, g := range append([]*Graph{a.G}, a.Graphs...) {
			if g == nil {
				continue
			}
			for _, m := range g.Nodes {
				for _, name := range m.Inputs {
					f(name)
				}
				subgraphReads(m, f)
			}
		}
	}
}

// constant makes the value of a stored tensor: small integer and bool
// tensors are read now (they are shapes, axes and indices, which the
// lowering folds), everything else becomes a lazy ref.
func (p *Program) constant(rt *refs.Runtime, site refs.Site, t *Tensor) (*value, error) {
	m, err := t.Meta()
	if err != nil {
		return nil, err
	}
	if m.Shape.Numel() <= foldLimit && (!m.DType.IsFloat() || m.Shape.Numel() <= 16) {
		d, err := p.File.Load(t)
		if err != nil {
			return nil, err
		}
		return &value{meta: m, c: d, uses: 1}, nil
	}
	p.File.Retain()
	r := rt.LazyWithDone(site, m, func() (*tensor.Dense, error) { return p.File.Load(t) }, func() { p.File.Release() })
	return &value{meta: m, ref: r, owned: true, uses: 1}, nil
}

// constantNode is the value of a Constant node, from whichever attribute
// holds it (value, value_float(s), value_int(s)).
func (p *Program) constantNode(rt *refs.Runtime, site refs.Site, n *Node) (*value, error) {
	if len(n.Attrs) != 1 {
		return nil, fmt.Errorf("needs exactly one value attribute, has %d", len(n.Attrs))
	}
	a := n.Attrs[0]
	switch a.Name {
	case "value":
		if a.T == nil {
			return nil, fmt.Errorf("attribute value holds no tensor")
		}
		return p.constant(rt, site, a.T)
	case "value_float":
		return constOf(tensor.Float32, nil, float64(a.F)), nil
	case "value_int":
		return constOf(tensor.Int64, nil, float64(a.I)), nil
	case "value_floats":
		d := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{len(a.Floats)}, DType: tensor.Float32})
		copy(d.F32(), a.Floats)
		return &value{meta: d.Meta, c: d, uses: 1}, nil
	case "value_ints":
		d := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{len(a.Ints)}, DType: tensor.Int64})
		copy(d.I64(), a.Ints)
		return &value{meta: d.Meta, c: d, uses: 1}, nil
	}
	return nil, fmt.Errorf("attribute %s (%s) is not supported", a.Name, a.Type)
}

// Retain adds a holder of the program.
func (p *Program) Retain() { p.holders++ }

// Release drops a holder; the last frees the constants' refs and the
// program's hold on the file.
func (p *Program) Release(rt *refs.Runtime) {
	if p.holders--; p.holders > 0 {
		return
	}
	for _, v := range p.consts {
		releaseConst(rt, v)
	}
	p.consts = nil
	p.plans = nil
	p.releaseSmall()
	p.File.Release()
}

// releaseConst frees a constant's ref when the program owns it.
func releaseConst(rt *refs.Runtime, v *value) {
	if v.owned && v.ref != nil {
		rt.Release(v.ref)
	}
	v.ref = nil
}

// Unsupported lists the nodes of m that tref cannot run, one entry per op
// type and domain: "Foo (opset 13, node "n1" and 2 more)".
func Unsupported(m *Model) []string {
	type miss struct {
		first string
		count int
	}
	missing := map[string]*miss{}
	var visit func(g *Graph)
	visit = func(g *Graph) {
		for _, n := range g.Nodes {
			for _, a := range n.Attrs {
				if a.G != nil {
					visit(a.G)
				}
				for _, sub := range a.Graphs {
					visit(sub)
				}
			}
			if Supported(n.Domain, n.OpType) {
				continue
			}
			key := n.OpType
			if n.Domain != "" {
				key = n.Domain + "." + n.OpType
			}
			if missing[key] == nil {
				missing[key] = &miss{first: n.Name}
			}
			missing[key].count++
		}
	}
	visit(m.Graph)
	keys := make([]string, 0, len(missing))
	for k := range missing {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	opset := m.Opsets[""]
	out := make([]string, len(keys))
	for i, k := range keys {
		ms := missing[k]
		more := ""
		if ms.count > 1 {
			more = fmt.Sprintf(" and %d more", ms.count-1)
		}
		out[i] = fmt.Sprintf("%s (opset %d, node %q%s)", k, opset, ms.first, more)
	}
	return out
}

// uniqueInitializers rejects a graph whose initializers repeat a name (the
// format has one value per name; a second would hide the first).
func uniqueInitializers(g *Graph) error {
	seen := make(map[string]bool, len(g.Initializers))
	for i, t := range g.Initializers {
		if seen[t.Name] {
			return fmt.Errorf("initializer %d: %q is already defined by an earlier initializer", i, t.Name)
		}
		seen[t.Name] = true
	}
	return nil
}
