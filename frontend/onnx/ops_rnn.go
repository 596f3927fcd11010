package onnx

import (
	"fmt"
	"strings"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// The recurrent layers RNN, GRU and LSTM, unrolled over the sequence: each
// time step is a few linear ops on the step's input and the previous
// hidden state, with the gates' activations. Directions forward, reverse
// and bidirectional; layout 0 ([seq, batch, ...]) and 1 ([batch, seq,
// ...]). Not supported: sequence_lens shorter than the sequence, clip, and
// activations other than Sigmoid, Tanh and Relu.

func init() {
	lower([]string{"RNN", "GRU", "LSTM"}, lowerRecurrent)
}

// gates is how many weight blocks each kind stacks (W is [dirs, gates*H, I]).
var gates = map[string]int{"RNN": 1, "GRU": 3, "LSTM": 4}

func lowerRecurrent(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0, 1, 2); err != nil {
		return nil, err
	}
	kind := c.node.OpType
	g := gates[kind]
	x, w, r := ins[0], ins[1], ins[2]
	b, seqLens, h0 := input(ins, 3), input(ins, 4), input(ins, 5)
	var c0, peep *value
	if kind == "LSTM" {
		c0, peep = input(ins, 6), input(ins, 7)
	}
	if c.attr("clip") != nil {
		return nil, fmt.Errorf("clip is not supported")
	}
	layout := c.attrInt("layout", 0)
	var err error
	if layout != 0 {
		// [batch, seq, I] -> [seq, batch, I]; the states likewise.
		if x, err = c.permute(x, []int{1, 0, 2}); err != nil {
			return nil, err
		}
		if h0 != nil {
			if h0, err = c.permute(h0, []int{1, 0, 2}); err != nil {
				return nil, err
			}
		}
		if c0 != nil {
			if c0, err = c.permute(c0, []int{1, 0, 2}); err != nil {
				return nil, err
			}
		}
	}
	xs, ws := x.meta.Shape, w.meta.Shape
	if len(xs) != 3 || len(ws) != 3 || ws[1]%g != 0 {
		return nil, fmt.Errorf("input %v and weight %v do not fit a %s", xs, ws, kind)
	}
	seq, batch := xs[0], xs[1]
	dirs, hidden := ws[0], ws[1]/g
	dir := c.attrString("direction", "forward")
	if want := map[string]int{"forward": 1, "reverse": 1, "bidirectional": 2}[dir]; want == 0 || want != dirs {
		return nil, fmt.Errorf("direction %q with weights for %d directions", dir, dirs)
	}
	if seqLens != nil {
		lens, err := c.ints(seqLens, "sequence_lens")
		if err != nil {
			return nil, err
		}
		for _, l := range lens {
			if l != int64(seq) {
				return nil, fmt.Errorf("sequence_lens shorter than the sequence are not supported")
			}
		}
	}
	acts, err := c.activations(kind, dirs)
	if err != nil {
		return nil, err
	}
	ys := make([]*value, dirs)
	hs := make([]*value, dirs)
	cs := make([]*value, dirs)
	for d := range dirs {
		p, err := c.rnnParams(kind, d, hidden, w, r, b, peep)
		if err != nil {
			return nil, err
		}
		h, err := c.op(ops.Expand, ops.ExpandAttrs{Shape: tensor.Shape{batch, hidden}}, c.scalar(x.meta.DType, 0))
		if err != nil {
			return nil, err
		}
		cell := h
		if h0 != nil {
			if h, err = c.plane(h0, 0, d); err != nil {
				return nil, err
			}
		}
		if c0 != nil {
			if cell, err = c.plane(c0, 0, d); err != nil {
				return nil, err
			}
		}
		steps := make([]*value, seq)
		reverse := dir == "reverse" || d == 1
		for i := range seq {
			t := i
			if reverse {
				t = seq - 1 - i
			}
			xt, err := c.plane(x, 0, t)
			if err != nil {
				return nil, err
			}
			if h, cell, err = c.rnnStep(kind, p, acts[d], xt, h, cell); err != nil {
				return nil, fmt.Errorf("step %d: %w", t, err)
			}
			steps[t] = h
		}
		if ys[d], err = c.op(ops.Stack, ops.CatAttrs{Dim: 0}, steps...); err != nil { // [seq, batch, H]
			return nil, err
		}
		hs[d], cs[d] = h, cell
	}
	y, err := c.op(ops.Stack, ops.CatAttrs{Dim: 1}, ys...) // [seq, dirs, batch, H]
	if err != nil {
		return nil, err
	}
	yh, err := c.op(ops.Stack, ops.CatAttrs{Dim: 0}, hs...) // [dirs, batch, H]
	if err != nil {
		return nil, err
	}
	yc, err := c.op(ops.Stack, ops.CatAttrs{Dim: 0}, cs...)
	if err != nil {
		return nil, err
	}
	if layout != 0 {
		if y, err = c.permute(y, []int{2, 0, 1, 3}); err != nil {
			return nil, err
		}
		if yh, err = c.permute(yh, []int{1, 0, 2}); err != nil {
			return nil, err
		}
		if yc, err = c.permute(yc, []int{1, 0, 2}); err != nil {
			return nil, err
		}
	}
	return []*value{y, yh, yc}, nil
}

// rnnParams are one direction's weights, split per gate: w[k] [H, I],
// r[k] [H, H], wb[k] and rb[k] [H] (nil without a bias), and LSTM's
// peepholes p[k] [H] for i, o, f.
type rnnParams struct {
	w, r, wb, rb, p []*value
}

func (c *ctx) rnnParams(kind string, d, hidden int, w, r, b, peep *value) (*rnnParams, error) {
	g := gates[kind]
	wd, err := c.plane(w, 0, d)
	if err != nil {
		return nil, err
	}
	rd, err := c.plane(r, 0, d)
	if err != nil {
		return nil, err
	}
	p := &rnnParams{w: make([]*value, g), r: make([]*value, g), wb: make([]*value, g), rb: make([]*value, g)}
	var bd *value
	if b != nil {
		if bd, err = c.plane(b, 0, d); err != nil {
			return nil, err
		}
	}
	for k := range g {
		if p.w[k], err = c.slice(wd, 0, k*hidden, (k+1)*hidden, 1); err != nil {
			return nil, err
		}
		if p.r[k], err = c.slice(rd, 0, k*hidden, (k+1)*hidden, 1); err != nil {
			return nil, err
		}
		if bd != nil {
			if p.wb[k], err = c.slice(bd, 0, k*hidden, (k+1)*hidden, 1); err != nil {
				return nil, err
			}
			if p.rb[k], err = c.slice(bd, 0, (g+k)*hidden, (g+k+1)*hidden, 1); err != nil {
				return nil, err
			}
		}
	}
	if peep != nil {
		pd, err := c.plane(peep, 0, d)
		if err != nil {
			return nil, err
		}
		p.p = make([]*value, 3)
		for k := range 3 {
			if p.p[k], err = c.slice(pd, 0, k*hidden, (k+1)*hidden, 1); err != nil {
				return nil, err
			}
		}
	}
	return p, nil
}

// activation is one of the gate functions.
type activation func(*value) (*value, error)

// activations reads the activations attribute: per direction, the gate
// function(s) (RNN: 1, GRU: f, g; LSTM: f, g, h).
func (c *ctx) activations(kind string, dirs int) ([][]activation, error) {
	def := map[string][]string{"RNN": {"Tanh"}, "GRU": {"Sigmoid", "Tanh"}, "LSTM": {"Sigmoid", "Tanh", "Tanh"}}[kind]
	names := make([]string, 0, dirs*len(def))
	if a := c.attr("activations"); a != nil {
		for _, s := range a.Strings {
			names = append(names, string(s))
		}
	} else {
		for range dirs {
			names = append(names, def...)
		}
	}
	if len(names) != dirs*len(def) {
		return nil, fmt.Errorf("%d activations for %d directions", len(names), dirs)
	}
	out := make([][]activation, dirs)
	for d := range dirs {
		for _, n := range names[d*len(def) : (d+1)*len(def)] {
			var op ops.Op
			switch strings.ToLower(n) {
			case "sigmoid":
				op = ops.Sigmoid
			case "tanh":
				op = ops.Tanh
			case "relu":
				op = ops.Relu
			default:
				return nil, fmt.Errorf("activation %q is not supported", n)
			}
			out[d] = append(out[d], func(v *value) (*value, error) { return c.op(op, nil, v) })
		}
	}
	return out, nil
}

// gate is x wᵀ + h rᵀ (+ biases) for gate k; h nil leaves its term out.
func (c *ctx) gate(p *rnnParams, k int, x, h *value) (*value, error) {
	var args []*value
	if p.wb[k] != nil {
		args = []*value{x, p.w[k], p.wb[k]}
	} else {
		args = []*value{x, p.w[k]}
	}
	v, err := c.op(ops.Linear, nil, args...)
	if err != nil || h == nil {
		return v, err
	}
	hr, err := c.hidden(p, k, h)
	if err != nil {
		return nil, err
	}
	return c.op(ops.Add, nil, v, hr)
}

// hidden is h rᵀ (+ the recurrent bias) for gate k.
func (c *ctx) hidden(p *rnnParams, k int, h *value) (*value, error) {
	if p.rb[k] != nil {
		return c.op(ops.Linear, nil, h, p.r[k], p.rb[k])
	}
	return c.op(ops.Linear, nil, h, p.r[k])
}

// rnnStep computes one time step's hidden (and LSTM cell) state.
func (c *ctx) rnnStep(kind string, p *rnnParams, act []activation, x, h, cell *value) (*value, *value, error) {
	mul := func(a, b *value) (*value, error) { return c.op(ops.Mul, nil, a, b) }
	switch kind {
	case "RNN":
		v, err := c.gate(p, 0, x, h)
		if err != nil {
			return nil, nil, err
		}
		h, err = act[0](v)
		return h, cell, err
	case "GRU":
		// Gates z, r, h in that order.
		zv, err := c.gate(p, 0, x, h)
		if err != nil {
			return nil, nil, err
		}
		z, err := act[0](zv)
		if err != nil {
			return nil, nil, err
		}
		rv, err := c.gate(p, 1, x, h)
		if err != nil {
			return nil, nil, err
		}
		rg, err := act[0](rv)
		if err != nil {
			return nil, nil, err
		}
		xh, err := c.gate(p, 2, x, nil)
		if err != nil {
			return nil, nil, err
		}
		var hh *value
		if c.attrInt("linear_before_reset", 0) != 0 {
			// r ⊙ (h Rᵀ + Rb)
			if hh, err = c.hidden(p, 2, h); err != nil {
				return nil, nil, err
			}
			hh, err = mul(rg, hh)
		} else {
			// (r ⊙ h) Rᵀ + Rb
			rh, err1 := mul(rg, h)
			if err1 != nil {
				return nil, nil, err1
			}
			hh, err = c.hidden(p, 2, rh)
		}
		if err != nil {
			return nil, nil, err
		}
		s, err := c.op(ops.Add, nil, xh, hh)
		if err != nil {
			return nil, nil, err
		}
		cand, err := act[1](s)
		if err != nil {
			return nil, nil, err
		}
		// h = (1 - z) ⊙ cand + z ⊙ h = cand + z ⊙ (h - cand)
		d, err := c.op(ops.Sub, nil, h, cand)
		if err != nil {
			return nil, nil, err
		}
		zd, err := mul(z, d)
		if err != nil {
			return nil, nil, err
		}
		h, err = c.op(ops.Add, nil, cand, zd)
		return h, cell, err
	}
	// LSTM: gates i, o, f, c in that order.
	pre := make([]*value, 4)
	for k := range 4 {
		v, err := c.gate(p, k, x, h)
		if err != nil {
			return nil, nil, err
		}
		pre[k] = v
	}
	peep := func(k int, s *value) error {
		if p.p == nil {
			return nil
		}
		t, err := mul(p.p[k], s)
		if err != nil {
			return err
		}
		pre[k], err = c.op(ops.Add, nil, pre[k], t)
		return err
	}
	if err := peep(0, cell); err != nil {
		return nil, nil, err
	}
	if err := peep(2, cell); err != nil {
		return nil, nil, err
	}
	i, err := act[0](pre[0])
	if err != nil {
		return nil, nil, err
	}
	f, err := act[0](pre[2])
	if err != nil {
		return nil, nil, err
	}
	g, err := act[1](pre[3])
	if err != nil {
		return nil, nil, err
	}
	fc, err := mul(f, cell)
	if err != nil {
		return nil, nil, err
	}
	ig, err := mul(i, g)
	if err != nil {
		return nil, nil, err
	}
	if cell, err = c.op(ops.Add, nil, fc, ig); err != nil {
		return nil, nil, err
	}
	if err := peep(1, cell); err != nil {
		return nil, nil, err
	}
	o, err := act[0](pre[1])
	if err != nil {
		return nil, nil, err
	}
	hc, err := act[2](cell)
	if err != nil {
		return nil, nil, err
	}
	h, err = mul(o, hc)
	return h, cell, err
}
