package onnx

import (
	"fmt"

	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Folding the per-channel affine map before an unpadded convolution.
//
// PaddleOCR scales and shifts each hard-swish's output by learnable
// constants (Mul, Add) before the next convolution. When that
// convolution pads nothing, every output sums whole windows of its
// input, so conv(s·x + t) = conv'(x) with W'[o, c] = W[o, c]·s[c] and
// b'[o] = b[o] + Σ_c,k W[o, c, k]·t[c] (c the input channel, within
// o's group): the two passes over x are gone. (Padding would add the
// zeros of the border unscaled: those convolutions keep the map.)

// foldAffineBefore folds the affine chains that feed an unpadded Conv
// with a constant weight into it, each intermediate read by nothing
// else.
func (p *Program) foldAffineBefore(rt *refs.Runtime, site refs.Site) error {
	g := p.graph
	readers, producer := readersOf(g), producersOf(g)
	fresh := p.namer()
	drop := map[int]bool{}
	replace := map[int]*Node{}
	for i, n := range g.Nodes {
		ch := p.affineBefore(i, n, readers, producer)
		if ch == nil {
			continue
		}
		w, b, err := p.foldedParamsBefore(rt, site, n, ch)
		if err != nil {
			return fmt.Errorf("node %q (%s): folding the affine map before it: %w", n.Name, n.OpType, err)
		}
		wName, bName := fresh(n.Outputs[0]+".folded_weight"), fresh(n.Outputs[0]+".folded_bias")
		p.consts[wName], p.consts[bName] = w, b
		m := *n
		m.Inputs = []string{ch.out, wName, bName}
		replace[i] = &m
		for _, j := range ch.nodes {
			drop[j] = true
		}
	}
	if len(replace) > 0 {
		p.rewrite(rt, drop, replace)
	}
	return nil
}

// affineBefore finds the affine chain feeding Conv node i when the
// convolution pads nothing and has a constant weight: ch.out is then the
// chain's source (what the convolution reads instead) and ch.s, ch.t
// its map per input channel; nil when there is none.
func (p *Program) affineBefore(i int, n *Node, readers map[string][]int, producer map[string]int) *affineChain {
	if n.OpType != "Conv" || !n.standard() || len(n.Inputs) < 2 || len(n.Outputs) != 1 {
		return nil
	}
	if ap := attrOf(n, "auto_pad"); ap != nil && string(ap.S) != "NOTSET" && string(ap.S) != "VALID" {
		return nil
	}
	if pads := attrOf(n, "pads"); pads != nil {
		for _, v := range pads.Ints {
			if v != 0 {
				return nil
			}
		}
	}
	w := p.consts[n.Inputs[1]]
	if w == nil || w.isSeq || (w.meta.DType != tensor.Float32 && w.meta.DType != tensor.Float64) || len(w.meta.Shape) < 3 || w.meta.Shape.Numel() == 0 {
		return nil
	}
	groups := attrIntOf(n, "group", 1)
	if groups < 1 || groups > int64(w.meta.Shape[0]) || w.meta.Shape[0]%int(groups) != 0 {
		return nil
	}
	if len(n.Inputs) > 2 && n.Inputs[2] != "" {
		b := p.consts[n.Inputs[2]]
		if b == nil || b.meta.DType != w.meta.DType || !b.meta.Shape.Equal(tensor.Shape{w.meta.Shape[0]}) {
			return nil
		}
	}
	// Walk back from the convolution's input over affine nodes whose
	// result only the next one reads.
	var nodes []int
	x := n.Inputs[0]
	reader := i
	for {
		j, ok := producer[x]
		if rs := readers[x]; !ok || len(rs) != 1 || rs[0] != reader || p.consts[x] != nil {
			break
		}
		m := p.graph.Nodes[j]
		src, ok := affineSource(p, m, w.meta.DType)
		if !ok {
			break
		}
		nodes = append([]int{j}, nodes...)
		x, reader = src, j
	}
	if len(nodes) == 0 {
		return nil
	}
	m := w.meta.Shape[1] * int(groups)
	ch := &affineChain{conv: i, out: x, s: make([]float64, m), t: make([]float64, m)}
	for o := range m {
		ch.s[o] = 1
	}
	for _, j := range nodes {
		ok, err := p.composeAffine(ch, p.graph.Nodes[j], w.meta.DType, len(w.meta.Shape))
		if err != nil || !ok {
			return nil
		}
		ch.out = p.graph.Nodes[j].Outputs[0]
	}
	ch.out, ch.nodes = x, nodes
	return ch
}

// affineSource is the value that node n maps affinely with a constant
// of dtype dt (a Mul, Add, Sub or Div with one constant operand, or an
// inference BatchNormalization); ok is false for any other node.
func affineSource(p *Program, n *Node, dt tensor.DType) (string, bool) {
	if !n.standard() || len(n.Outputs) < 1 || n.Outputs[0] == "" {
		return "", false
	}
	switch n.OpType {
	case "Mul", "Add":
		if len(n.Inputs) != 2 {
			return "", false
		}
		for k := range 2 {
			if c := p.consts[n.Inputs[k]]; c != nil && c.meta.DType == dt && p.consts[n.Inputs[1-k]] == nil {
				return n.Inputs[1-k], true
			}
		}
	case "Sub", "Div":
		if len(n.Inputs) == 2 && p.consts[n.Inputs[0]] == nil {
			if c := p.consts[n.Inputs[1]]; c != nil && c.meta.DType == dt {
				return n.Inputs[0], true
			}
		}
	case "BatchNormalization":
		if len(n.Inputs) == 5 && p.consts[n.Inputs[0]] == nil {
			return n.Inputs[0], true
		}
	}
	return "", false
}

// foldedParamsBefore makes the convolution's weight scaled per input
// channel (a lazy ref, as foldedParams) and its bias b + Σ W·t (at
// once, from the stored weight).
func (p *Program) foldedParamsBefore(rt *refs.Runtime, site refs.Site, n *Node, ch *affineChain) (w, b *value, err error) {
	wv := p.consts[n.Inputs[1]]
	ws := wv.meta.Shape
	groups := int(attrIntOf(n, "group", 1))
	og, cg := ws[0]/groups, ws[1]
	inner := ws.Numel() / (ws[0] * ws[1])
	wd, err := p.constData(n.Inputs[1])
	if err != nil {
		return nil, nil, err
	}
	bias, err := p.convBias(n, ws[0])
	if err != nil {
		return nil, nil, err
	}
	for o := range ws[0] {
		gi := o / og
		for c := range cg {
			t := ch.t[gi*cg+c]
			base := (o*cg + c) * inner
			for k := range inner {
				bias[o] += wd.At(base+k) * t
			}
		}
	}
	b = p.foldedConst(rt, site, wv.meta.DType, bias)
	s := ch.s
	w = p.changedConst(rt, site, n.Inputs[1], func(d *tensor.Dense) {
		for o := range ws[0] {
			gi := o / og
			for c := range cg {
				base, k := (o*cg+c)*inner, s[gi*cg+c]
				for j := range inner {
					d.Set(base+j, d.At(base+j)*k)
				}
			}
		}
	})
	return w, b, nil
}
