package onnx

import (
	"fmt"
	"math"

	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Folding per-channel affine maps into convolutions, once per program.
//
// Exported models often follow a convolution with a per-channel affine
// map of its output: an inference BatchNormalization, or a Mul and an
// Add by constants (PaddleOCR's learnable scales, a ConvTranspose's bias
// added as a separate node). Computed as written, each is one more pass
// over the convolution's output on every call. When the convolution's
// weight and every parameter are constants and each intermediate result
// has no other reader, y = s·conv(x, W, b) + t is conv(x, W', b') with
// W'[o] = s[o]·W[o] and b' = s·b + t: the chain becomes the convolution
// alone, as onnxruntime does. For a BatchNormalization, s = γ/√(σ² + ε)
// and t = β - μ·s.

// affineChain is a convolution node and the affine nodes after it that
// fold into it, with the map they compose: y = s·conv + t per channel.
type affineChain struct {
	conv  int   // index of the Conv or ConvTranspose node
	nodes []int // the folded nodes, in order
	out   string
	s, t  []float64
}

// foldAffine rewrites p.graph: every convolution with a constant weight
// that an affine chain follows takes the chain's map in its weight and
// bias (new constants, the weight still read lazily from the file), and
// the chain's nodes are gone. The constants nothing reads any more are
// released.
func (p *Program) foldAffine(rt *refs.Runtime, site refs.Site) error {
	g := p.graph
	for _, n := range g.Nodes {
		if n.OpType == "Gradient" {
			return nil // it reads every value computed before it
		}
	}
	readers := readersOf(g)
	var chains []*affineChain
	for i, n := range g.Nodes {
		if ch, err := p.affineAfter(i, n, readers); err != nil {
			return fmt.Errorf("node %q (%s): folding the affine map after it: %w", n.Name, n.OpType, err)
		} else if ch != nil {
			chains = append(chains, ch)
		}
	}
	if len(chains) == 0 {
		return nil
	}
	fresh := p.namer()
	drop := map[int]bool{}
	replace := map[int]*Node{}
	for _, ch := range chains {
		n := g.Nodes[ch.conv]
		w, b, err := p.foldedParams(rt, site, n, ch)
		if err != nil {
			return fmt.Errorf("node %q (%s): folding the affine map after it: %w", n.Name, n.OpType, err)
		}
		wName, bName := fresh(ch.out+".folded_weight"), fresh(ch.out+".folded_bias")
		p.consts[wName], p.consts[bName] = w, b
		m := *n
		m.Inputs = []string{n.Inputs[0], wName, bName}
		m.Outputs = []string{ch.out}
		replace[ch.conv] = &m
		for _, j := range ch.nodes {
			drop[j] = true
		}
	}
	p.rewrite(rt, drop, replace)
	return nil
}

// namer returns a function making names no value of the program has.
func (p *Program) namer() func(base string) string {
	names := map[string]bool{}
	for name := range p.consts {
		names[name] = true
	}
	for _, n := range p.graph.Nodes {
		for _, name := range append(n.Inputs, n.Outputs...) {
			names[name] = true
		}
	}
	return func(base string) string {
		name := base
		for k := 1; names[name]; k++ {
			name = fmt.Sprintf("%s_%d", base, k)
		}
		names[name] = true
		return name
	}
}

// rewrite gives the program a copy of its graph without the nodes in
// drop and with those in replace swapped, and releases the constants
// nothing reads any more.
func (p *Program) rewrite(rt *refs.Runtime, drop map[int]bool, replace map[int]*Node) {
	g := p.graph
	ng := *g
	ng.Nodes = make([]*Node, 0, len(g.Nodes)-len(drop))
	for i, n := range g.Nodes {
		if drop[i] {
			continue
		}
		if m := replace[i]; m != nil {
			n = m
		}
		ng.Nodes = append(ng.Nodes, n)
	}
	p.graph = &ng
	p.dropUnread(rt)
}

// readersOf maps each name to the indices of g's nodes that read it
// (subgraphs included: the node holding them reads the name), -1 for a
// graph output.
func readersOf(g *Graph) map[string][]int {
	readers := map[string][]int{}
	for i, n := range g.Nodes {
		for _, name := range n.Inputs {
			readers[name] = append(readers[name], i)
		}
		subgraphReads(n, func(name string) { readers[name] = append(readers[name], i) })
	}
	for _, o := range g.Outputs {
		readers[o.Name] = append(readers[o.Name], -1)
	}
	return readers
}

// producersOf maps each value g's nodes compute to the node's index.
func producersOf(g *Graph) map[string]int {
	producer := map[string]int{}
	for i, n := range g.Nodes {
		for _, o := range n.Outputs {
			producer[o] = i
		}
	}
	return producer
}

// dropUnread releases the constants nothing reads any more, and removes
// the Constant nodes that made them.
func (p *Program) dropUnread(rt *refs.Runtime) {
	readers := readersOf(p.graph)
	gone := map[string]bool{}
	for name, v := range p.consts {
		if len(readers[name]) == 0 {
			releaseConst(rt, v)
			delete(p.consts, name)
			delete(p.tensors, name)
			delete(p.loaders, v)
			gone[name] = true
		}
	}
	nodes := p.graph.Nodes[:0:0]
	for _, n := range p.graph.Nodes {
		if n.OpType == "Constant" && n.Domain == "" && len(n.Outputs) == 1 && gone[n.Outputs[0]] {
			continue
		}
		nodes = append(nodes, n)
	}
	p.graph.Nodes = nodes
}

// affineAfter finds the affine chain after node i when it is a
// convolution that can take one; nil when there is none.
func (p *Program) affineAfter(i int, n *Node, readers map[string][]int) (*affineChain, error) {
	if (n.OpType != "Conv" && n.OpType != "ConvTranspose") || !n.standard() {
		return nil, nil
	}
	if len(n.Inputs) < 2 || len(n.Outputs) != 1 || n.Outputs[0] == "" {
		return nil, nil
	}
	w := p.consts[n.Inputs[1]]
	if w == nil || w.isSeq || (w.meta.DType != tensor.Float32 && w.meta.DType != tensor.Float64) || len(w.meta.Shape) < 3 {
		return nil, nil
	}
	ws := w.meta.Shape
	if ws.Numel() == 0 {
		return nil, nil
	}
	m := ws[0]
	if n.OpType == "ConvTranspose" {
		g := attrIntOf(n, "group", 1)
		if g < 1 || g > int64(ws[0]) || ws[0]%int(g) != 0 {
			return nil, nil // the lowering reports it
		}
		m = ws[1] * int(g)
	}
	if len(n.Inputs) > 2 && n.Inputs[2] != "" {
		b := p.consts[n.Inputs[2]]
		if b == nil || b.meta.DType != w.meta.DType || !b.meta.Shape.Equal(tensor.Shape{m}) {
			return nil, nil
		}
	}
	rank := len(ws)
	ch := &affineChain{conv: i, out: n.Outputs[0], s: make([]float64, m), t: make([]float64, m)}
	for o := range m {
		ch.s[o] = 1
	}
	for {
		rs := readers[ch.out]
		if len(rs) != 1 || rs[0] <= i {
			break
		}
		next := p.graph.Nodes[rs[0]]
		ok, err := p.composeAffine(ch, next, w.meta.DType, rank)
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		ch.nodes = append(ch.nodes, rs[0])
		ch.out = next.Outputs[0]
	}
	if len(ch.nodes) == 0 {
		return nil, nil
	}
	return ch, nil
}

// composeAffine composes node n, which reads ch.out, onto ch's map when
// it is an affine map of it per channel with constant parameters of
// dtype dt; it reports whether it was.
func (p *Program) composeAffine(ch *affineChain, n *Node, dt tensor.DType, rank int) (bool, error) {
	if !n.standard() || len(n.Outputs) < 1 || n.Outputs[0] == "" {
		return false, nil
	}
	m := len(ch.s)
	switch n.OpType {
	case "BatchNormalization":
		if len(n.Inputs) != 5 || n.Inputs[0] != ch.out || attrIntOf(n, "training_mode", 0) != 0 {
			return false, nil
		}
		if a := attrOf(n, "is_test"); a != nil && a.I == 0 {
			return false, nil
		}
		for _, o := range n.Outputs[1:] {
			if o != "" {
				return false, nil
			}
		}
		var ps [4][]float64
		for k, name := range n.Inputs[1:] {
			v := p.consts[name]
			if v == nil || v.meta.DType != dt || !v.meta.Shape.Equal(tensor.Shape{m}) {
				return false, nil
			}
			d, err := p.constData(name)
			if err != nil {
				return false, err
			}
			ps[k] = floats(d)
		}
		eps := 1e-5
		if a := attrOf(n, "epsilon"); a != nil {
			eps = float64(a.F)
		}
		gamma, beta, mean, variance := ps[0], ps[1], ps[2], ps[3]
		for o := range m {
			k := gamma[o] / math.Sqrt(variance[o]+eps)
			ch.s[o] *= k
			ch.t[o] = (ch.t[o]-mean[o])*k + beta[o]
		}
		return true, nil
	case "Mul", "Add", "Sub", "Div":
		if len(n.Inputs) != 2 || len(n.Outputs) != 1 {
			return false, nil
		}
		k := 1 // the constant's position
		if n.Inputs[1] == ch.out {
			if n.OpType == "Sub" || n.OpType == "Div" {
				return false, nil // c - y, c / y: not kept affine here
			}
			k = 0
		} else if n.Inputs[0] != ch.out {
			return false, nil
		}
		v := p.consts[n.Inputs[k]]
		if v == nil || v.isSeq || v.meta.DType != dt || !perChannel(v.meta.Shape, rank, m) {
			return false, nil
		}
		d, err := p.constData(n.Inputs[k])
		if err != nil {
			return false, err
		}
		c := floats(d)
		for o := range m {
			x := c[0]
			if len(c) > 1 {
				x = c[o]
			}
			switch n.OpType {
			case "Mul":
				ch.s[o] *= x
				ch.t[o] *= x
			case "Div":
				ch.s[o] /= x
				ch.t[o] /= x
			case "Add":
				ch.t[o] += x
			case "Sub":
				ch.t[o] -= x
			}
		}
		return true, nil
	}
	return false, nil
}

// perChannel reports whether a constant of shape s broadcast against a
// result of rank rank with m channels (axis 1) leaves its shape as it is
// and varies along the channels only: every axis 1 but the channel one,
// which is 1 or m.
func perChannel(s tensor.Shape, rank, m int) bool {
	if len(s) > rank {
		return false
	}
	for i, d := range s {
		ax := rank - len(s) + i
		if d != 1 && (ax != 1 || d != m) {
			return false
		}
	}
	return true
}

// foldedParams makes the folded convolution's weight (a lazy ref that
// loads the stored weight and scales it) and bias (s·b + t, at once),
// with their loaders for later folds (p.loaders).
func (p *Program) foldedParams(rt *refs.Runtime, site refs.Site, n *Node, ch *affineChain) (w, b *value, err error) {
	m := len(ch.s)
	bias, err := p.convBias(n, m)
	if err != nil {
		return nil, nil, err
	}
	for o := range m {
		bias[o] = bias[o]*ch.s[o] + ch.t[o]
	}
	groups := 1
	if n.OpType == "ConvTranspose" {
		groups = int(attrIntOf(n, "group", 1))
	}
	b = p.foldedConst(rt, site, p.consts[n.Inputs[1]].meta.DType, bias)
	s, transposed := ch.s, n.OpType == "ConvTranspose"
	w = p.changedConst(rt, site, n.Inputs[1], func(d *tensor.Dense) { scaleChannels(d, s, groups, transposed) })
	return w, b, nil
}

// convBias reads convolution n's bias (input 2) as m float64s, zeros
// when it has none.
func (p *Program) convBias(n *Node, m int) ([]float64, error) {
	bias := make([]float64, m)
	if len(n.Inputs) > 2 && n.Inputs[2] != "" {
		d, err := p.constData(n.Inputs[2])
		if err != nil {
			return nil, err
		}
		copy(bias, floats(d))
	}
	return bias, nil
}

// foldedConst makes a 1-d constant of dtype dt holding vals, with its
// loader for later folds (p.loaders).
func (p *Program) foldedConst(rt *refs.Runtime, site refs.Site, dt tensor.DType, vals []float64) *value {
	d := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{len(vals)}, DType: dt})
	for i, v := range vals {
		d.Set(i, v)
	}
	c := &value{meta: d.Meta, ref: rt.FromHost(site, d.Clone()), owned: true, uses: 1}
	p.loaders[c] = func() (*tensor.Dense, error) { return d, nil }
	return c
}

// changedConst makes a lazy constant that loads constant name's data
// and changes a copy of it with change, with its loader for later folds
// (p.loaders).
func (p *Program) changedConst(rt *refs.Runtime, site refs.Site, name string, change func(*tensor.Dense)) *value {
	orig := p.constLoader(name)
	load := func() (*tensor.Dense, error) {
		d, err := orig()
		if err != nil {
			return nil, err
		}
		d = d.Clone()
		change(d)
		return d, nil
	}
	c := p.lazyConst(rt, site, p.consts[name].meta, load)
	p.loaders[c] = load
	return c
}

// scaleChannels multiplies each output channel o of a convolution weight
// by s[o]: w [M, C/g, k...] along axis 0, or a transposed convolution's
// [C, M/g, k...], where channel o is group o/(M/g) and column o%(M/g).
func scaleChannels(w *tensor.Dense, s []float64, groups int, transposed bool) {
	sh := w.Shape
	inner := sh.Numel() / (sh[0] * sh[1])
	perGroup := sh[0] / groups // input channels per group (transposed)
	for a := range sh[0] {
		for c := range sh[1] {
			o := a
			if transposed {
				o = (a/perGroup)*sh[1] + c
			}
			base := (a*sh[1] + c) * inner
			for k := range inner {
				w.Set(base+k, w.At(base+k)*s[o])
			}
		}
	}
}

// constData reads constant name's data on the host: a small constant's
// host copy, else the stored tensor from the file (the ref is left
// unloaded).
func (p *Program) constData(name string) (*tensor.Dense, error) {
	return p.constLoader(name)()
}

// constLoader is a function reading constant name's data as constData.
func (p *Program) constLoader(name string) func() (*tensor.Dense, error) {
	v := p.consts[name]
	if v.c != nil {
		return func() (*tensor.Dense, error) { return v.c, nil }
	}
	if t := p.tensors[name]; t != nil {
		return func() (*tensor.Dense, error) { return p.File.Load(t) }
	}
	if load := p.loaders[v]; load != nil {
		return load
	}
	return func() (*tensor.Dense, error) { return nil, fmt.Errorf("constant %q has no stored data", name) }
}

// floats reads a float tensor as float64s.
func floats(d *tensor.Dense) []float64 {
	out := make([]float64, d.Numel())
	for i := range out {
		out[i] = d.At(i)
	}
	return out
}

// attrOf finds attribute name of n.
func attrOf(n *Node, name string) *Attr {
	for _, a := range n.Attrs {
		if a.Name == name {
			return a
		}
	}
	return nil
}

// attrIntOf is n's INT attribute name, or def when absent.
func attrIntOf(n *Node, name string, def int64) int64 {
	if a := attrOf(n, name); a != nil {
		return a.I
	}
	return def
}

// lazyConst is a constant computed by load when first used (a lazy ref
// holding the file open until then).
func (p *Program) lazyConst(rt *refs.Runtime, site refs.Site, meta tensor.Meta, load func() (*tensor.Dense, error)) *value {
	p.File.Retain()
	r := rt.LazyWithDone(site, meta, load, func() { p.File.Release() })
	return &value{meta: meta, ref: r, owned: true, uses: 1}
}
