package onnx

import (
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Exporters without a HardSwish op (opsets before 14, PaddleOCR's
// paddle2onnx) write hard-swish as four nodes: y = Div(Mul(x, Clip(Add(x,
// 3), 0, 6)), 6), four passes over x and three intermediate tensors. When
// the constants are those and each intermediate has no other reader,
// the four nodes become one HardSwish node, which the runtime's
// hardswish computes as they did (in x's precision: x + 3, clamped,
// times x, divided by 6).

// fuseHardswish rewrites p.graph's hard-swish chains into HardSwish
// nodes and releases the constants nothing reads any more.
func (p *Program) fuseHardswish(rt *refs.Runtime) {
	g := p.graph
	readers, producer := readersOf(g), producersOf(g)
	// only returns the node producing name when node i alone reads it.
	only := func(name string, i int, op string) (int, *Node) {
		j, ok := producer[name]
		if rs := readers[name]; !ok || len(rs) != 1 || rs[0] != i {
			return -1, nil
		}
		n := g.Nodes[j]
		if n.OpType != op || !n.standard() || len(n.Outputs) != 1 {
			return -1, nil
		}
		return j, n
	}
	drop := map[int]bool{}
	replace := map[int]*Node{}
	for i, div := range g.Nodes {
		if div.OpType != "Div" || !div.standard() || len(div.Inputs) != 2 || len(div.Outputs) != 1 || !p.isScalar(div.Inputs[1], 6) {
			continue
		}
		im, mul := only(div.Inputs[0], i, "Mul")
		if mul == nil || len(mul.Inputs) != 2 {
			continue
		}
		for k := range 2 {
			x := mul.Inputs[1-k]
			ic, clip := only(mul.Inputs[k], im, "Clip")
			if clip == nil || !p.clipsTo(clip, 0, 6) {
				continue
			}
			ia, add := only(clip.Inputs[0], ic, "Add")
			if add == nil || len(add.Inputs) != 2 {
				continue
			}
			if !(add.Inputs[0] == x && p.isScalar(add.Inputs[1], 3)) && !(add.Inputs[1] == x && p.isScalar(add.Inputs[0], 3)) {
				continue
			}
			replace[i] = &Node{Name: div.Name, OpType: "HardSwish", Inputs: []string{x}, Outputs: div.Outputs}
			drop[im], drop[ic], drop[ia] = true, true, true
			break
		}
	}
	if len(replace) == 0 {
		return
	}
	p.rewrite(rt, drop, replace)
}

// isScalar reports whether name is a 0-d float32 constant equal to x
// (0-d, so that it broadcasts to any shape without changing it).
func (p *Program) isScalar(name string, x float64) bool {
	v := p.consts[name]
	if v == nil || v.isSeq || v.meta.DType != tensor.Float32 || len(v.meta.Shape) != 0 {
		return false
	}
	d, err := p.constData(name)
	return err == nil && d.At(0) == x
}

// clipsTo reports whether Clip node n clamps to exactly [lo, hi]: float
// attributes before opset 11, constant inputs from then on.
func (p *Program) clipsTo(n *Node, lo, hi float64) bool {
	if len(n.Inputs) == 0 || len(n.Outputs) != 1 {
		return false
	}
	if p.Opset < 11 {
		mn, mx := attrOf(n, "min"), attrOf(n, "max")
		return len(n.Inputs) == 1 && mn != nil && mx != nil && float64(mn.F) == lo && float64(mx.F) == hi
	}
	return len(n.Inputs) == 3 && p.isScalar(n.Inputs[1], lo) && p.isScalar(n.Inputs[2], hi)
}
