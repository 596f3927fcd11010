package ops

import (
	"math"

	"github.com/tref-lang/tref/runtime/tensor"
)

// Gradient rules of the nn family (see grad.go). Embedding is a
// scatter_add; softmax, log_softmax, the norms and cross_entropy have
// fused backward kernels (backward.go, backward_nn.go), and attention
// recomputes its weights with one.

func init() {
	defineGrads(map[Op]*Grad{
		// softmax and log_softmax: one fused kernel from the saved result.
		Softmax: {SavesOut: true, VJP: func(b *Builder, a *GradArgs, g T) []T {
			return []T{b.Op(SoftmaxBackward, a.Attrs, a.Out, g)}
		}},
		LogSoftmax: {SavesOut: true, VJP: func(b *Builder, a *GradArgs, g T) []T {
			return []T{b.Op(LogSoftmaxBackward, a.Attrs, a.Out, g)}
		}},
		SoftmaxBackward:    {Saves: []int{0, 1}, VJP: softmaxBackwardGrad},
		LogSoftmaxBackward: {Saves: []int{0, 1}, VJP: logSoftmaxBackwardGrad},
		AttentionWeights:   {Saves: []int{0, 1}, SavesOut: true, VJP: attentionWeightsGrad},
		NormBackward:       {Saves: []int{0, 1, 2}, VJP: normBackwardGrad},
		NormBackwardWeight: {Saves: []int{0, 1}, VJP: normBackwardWeightGrad},
		LayerNorm:          {Saves: []int{0, 1}, VJP: normGrad(false)},
		RMSNorm:            {Saves: []int{0, 1}, VJP: normGrad(true)},
		Embedding:          {Saves: []int{0}, VJP: embeddingGrad},
		Dropout: {Saves: []int{1}, VJP: func(b *Builder, a *GradArgs, g T) []T {
			p, _ := AttrsAs[DropoutAttrs]("dropout", a.Attrs)
			zero := b.Zero(g)
			if p.P >= 1 {
				return []T{b.Mul(g, zero), nil}
			}
			keep := b.Cast(a.X[1], tensor.Bool)
			return []T{b.Where(keep, b.MulScalar(g, 1/(1-p.P)), zero), nil}
		}},
		CrossEntropy:         {Saves: []int{0, 1}, VJP: crossEntropyGrad},
		CrossEntropyBackward: {Saves: []int{0, 1, 2}, VJP: crossEntropyBackwardGrad},
		// mse = mean((x - y)²): 2(x - y)/n.
		MSE: {Saves: []int{0, 1}, VJP: func(b *Builder, a *GradArgs, g T) []T {
			d := b.Sub(a.X[0], a.X[1])
			if d == nil {
				return []T{nil, nil}
			}
			n := d.Meta().Shape.Numel()
			gx := b.Mul(b.MulScalar(d, 2/float64(max(n, 1))), g)
			return []T{gx, needed(a, 1, func() T { return b.Neg(gx) })}
		}},
		Attention: {Saves: []int{0, 1, 2}, VJP: attentionGrad},
	})
}

func softmaxDim(a *GradArgs) int {
	s, _ := AttrsAs[SoftmaxAttrs]("softmax", a.Attrs)
	d, _ := tensor.NormDim(s.Dim, len(a.In[0].Shape))
	return d
}

// normGrad is layer_norm's (rms false) or rms_norm's rule over the last
// dimension: two fused kernels recompute the statistics from x, x gets
// norm_backward and the weight norm_backward_weight; the bias gets g.
func normGrad(rms bool) VJPFunc {
	return func(b *Builder, a *GradArgs, g T) []T {
		n, _ := AttrsAs[NormAttrs]("norm", a.Attrs)
		dt := a.OutMeta.DType
		x := b.Cast(a.X[0], dt)
		attrs := NormBackwardAttrs{Eps: n.Eps, HasWeight: n.HasWeight, RMS: rms}
		ins := []T{x, g}
		if n.HasWeight {
			ins = []T{x, b.Cast(a.X[1], dt), g}
		}
		out := []T{needed(a, 0, func() T { return b.Op(NormBackward, attrs, ins...) })}
		if n.HasWeight {
			out = append(out, needed(a, 1, func() T { return b.Op(NormBackwardWeight, attrs, x, g) }))
		}
		if n.HasBias {
			out = append(out, g)
		}
		return out
	}
}

// normBackwardGrad differentiates gx = r·P(ĝ), P(v) = v - mean v -
// x̂·mean(v·x̂) (no mean v for RMS), ĝ = g·w, once more (grad of grad),
// composed. P is self-adjoint, so with cotangent u, ĝ gets r·P(u) =
// norm_backward(x, u) without the weight, g gets that times w and w gets
// it times g. For x, with A = Σ u·(ĝ - mean ĝ), B = Σ u·x̂, m = mean(ĝ·x̂)
// per row: x̂ gets v = -r·(B·ĝ/n + m·u), r gets ρ = A - m·B + Σ v·c
// (c = x - μ), c gets γ = r·v - ρ·r³·c/n, and x gets γ - mean γ (γ for
// RMS).
func normBackwardGrad(b *Builder, a *GradArgs, u T) []T {
	at, _ := AttrsAs[NormBackwardAttrs]("norm_backward", a.Attrs)
	x, g := a.X[0], a.X[len(a.X)-1]
	last := []int{len(a.In[0].Shape) - 1}
	d := float64(a.In[0].Shape[last[0]])
	sum := func(t T) T { return b.Sum(t, last, true) }
	mean := func(t T) T { return b.MulScalar(sum(t), 1/d) }
	plain := NormBackwardAttrs{Eps: at.Eps, RMS: at.RMS}
	pu := b.Op(NormBackward, plain, x, u)
	gh := g
	if at.HasWeight {
		gh = b.Mul(g, a.X[1])
	}
	c := x
	if !at.RMS {
		c = b.Sub(x, mean(x))
	}
	r := b.Op(Rsqrt, nil, b.Add(mean(b.Mul(c, c)), b.Scalar(at.Eps, a.OutMeta.DType)))
	xh := b.Mul(c, r)
	centred := gh
	if !at.RMS {
		centred = b.Sub(gh, mean(gh))
	}
	bb := sum(b.Mul(u, xh))
	m := mean(b.Mul(gh, xh))
	v := b.Neg(b.Mul(r, b.Add(b.MulScalar(b.Mul(bb, gh), 1/d), b.Mul(m, u))))
	rho := b.Add(b.Sub(sum(b.Mul(u, centred)), b.Mul(m, bb)), sum(b.Mul(v, c)))
	gamma := b.Sub(b.Mul(r, v), b.MulScalar(b.Mul(b.Mul(rho, b.Mul(r, b.Mul(r, r))), c), 1/d))
	gx := gamma
	if !at.RMS {
		gx = b.Sub(gamma, mean(gamma))
	}
	out := []T{needed(a, 0, func() T { return gx })}
	if at.HasWeight {
		out = append(out, needed(a, 1, func() T { return b.Mul(pu, g) }))
	}
	wt := pu
	if at.HasWeight {
		wt = b.Mul(pu, a.X[1])
	}
	return append(out, needed(a, len(a.In)-1, func() T { return wt }))
}

// normBackwardWeightGrad differentiates gw = Σ g·x̂ (grad of grad): with
// cotangent u [d], g gets u·x̂, and x gets what x̂ = layer_norm(x) passes
// back from u·g: norm_backward(x, u·g) without the weight.
func normBackwardWeightGrad(b *Builder, a *GradArgs, u T) []T {
	at, _ := AttrsAs[NormBackwardAttrs]("norm_backward_weight", a.Attrs)
	x, g := a.X[0], a.X[1]
	ug := b.Mul(g, u)
	plain := NormBackwardAttrs{Eps: at.Eps, RMS: at.RMS}
	return []T{
		needed(a, 0, func() T { return b.Op(NormBackward, plain, x, ug) }),
		needed(a, 1, func() T {
			op := LayerNorm
			if at.RMS {
				op = RMSNorm
			}
			return b.Mul(u, b.Op(op, NormAttrs{Eps: at.Eps}, x))
		}),
	}
}

// embeddingGrad adds the rows of g into the table's rows: a scatter_add
// of g into zeros along dim 0, with each id broadcast over its row.
func embeddingGrad(b *Builder, a *GradArgs, g T) []T {
	rows, dim := a.In[1].Shape[0], a.In[1].Shape[1]
	n := a.In[0].Shape.Numel()
	ids := b.Expand(b.Reshape(b.Cast(a.X[0], tensor.Int64), tensor.Shape{n, 1}), tensor.Shape{n, dim})
	zeros := b.Expand(b.Zero(g), tensor.Shape{rows, dim})
	return []T{nil, b.Op(ScatterAdd, DimAttrs{Dim: 0}, zeros, ids, b.Reshape(g, tensor.Shape{n, dim}))}
}

// crossEntropyGrad is the fused kernel's: (softmax(logits) - onehot(t))·g
// /count over the targets that are not ignored.
func crossEntropyGrad(b *Builder, a *GradArgs, g T) []T {
	return []T{b.Op(CrossEntropyBackward, a.Attrs, b.Cast(a.X[0], a.OutMeta.DType), a.X[1], g), nil}
}

// crossEntropyBackwardGrad differentiates the fused kernel once more
// (grad of grad), composed: with p = softmax(logits), u = gg·valid·g/count,
// the logits get p·(u - Σ u·p) and g gets Σ (p - onehot)·valid·gg/count.
func crossEntropyBackwardGrad(b *Builder, a *GradArgs, gg T) []T {
	ce, _ := AttrsAs[CrossEntropyAttrs]("cross_entropy", a.Attrs)
	logits, t, g := a.X[0], a.X[1], a.X[2]
	ls := a.In[0].Shape
	dt := a.OutMeta.DType
	classDim, ts, cs := classLayout(ls)
	tt := b.Reshape(t, ts)
	hot := b.Cast(b.Op(Eq, nil, tt, b.Iota(ls[classDim], cs)), dt)
	valid := b.Cast(b.Op(Ne, nil, tt, b.Scalar(float64(ce.IgnoreIndex), tensor.Int64)), dt)
	count := b.Sum(valid, nil, false)
	p := b.Op(Softmax, SoftmaxAttrs{Dim: classDim}, logits)
	vg := b.Mul(gg, valid)
	u := b.Mul(vg, b.Div(g, count))
	gl := b.Mul(p, b.Sub(u, b.Sum(b.Mul(u, p), []int{classDim}, true)))
	gG := b.Div(b.Sum(b.Mul(b.Sub(p, hot), vg), nil, false), count)
	return []T{needed(a, 0, func() T { return gl }), nil, needed(a, 2, func() T { return gG })}
}

// softmaxBackwardGrad differentiates y = o·(g - Σ g·o) (grad of grad),
// composed: with cotangent u, o gets u·(g - Σ g·o) - g·Σ u·o and g gets
// softmax_backward(o, u).
func softmaxBackwardGrad(b *Builder, a *GradArgs, u T) []T {
	dim := []int{softmaxDim(a)}
	o, g := a.X[0], a.X[1]
	return []T{
		needed(a, 0, func() T {
			return b.Sub(b.Mul(u, b.Sub(g, b.Sum(b.Mul(g, o), dim, true))), b.Mul(g, b.Sum(b.Mul(u, o), dim, true)))
		}),
		needed(a, 1, func() T { return b.Op(SoftmaxBackward, a.Attrs, o, u) }),
	}
}

// logSoftmaxBackwardGrad differentiates y = g - exp(o)·Σ g (grad of
// grad), composed: with cotangent u, o gets -u·exp(o)·Σ g and g gets
// u - Σ u·exp(o).
func logSoftmaxBackwardGrad(b *Builder, a *GradArgs, u T) []T {
	dim := []int{softmaxDim(a)}
	o, g := a.X[0], a.X[1]
	e := b.Op(Exp, nil, o)
	return []T{
		needed(a, 0, func() T { return b.Neg(b.Mul(b.Mul(u, e), b.Sum(g, dim, true))) }),
		needed(a, 1, func() T { return b.Sub(u, b.Sum(b.Mul(u, e), dim, true)) }),
	}
}

// attentionScale is the factor attention applies to q·kᵀ.
func attentionScale(b *Builder, a *GradArgs) float64 {
	at, _ := AttrsAs[AttentionAttrs]("attention", a.Attrs)
	if at.HasScale {
		return at.Scale
	}
	d, err := AttentionLayout(a.In[0].Shape, a.In[1].Shape, a.In[1].Shape)
	if err != nil {
		b.Fail(err)
		return 1
	}
	return 1 / math.Sqrt(float64(d.E))
}

// scoresGrad is the cotangent of q and k from gs, that of the scaled
// scores q·kᵀ·scale: gq = gs·k·scale, gk = gsᵀ·q·scale.
func scoresGrad(b *Builder, a *GradArgs, q, k, gs T) (T, T) {
	return needed(a, 0, func() T { return b.Matmul(gs, k) }), needed(a, 1, func() T { return b.Matmul(b.Transpose(gs), q) })
}

// attentionWeightsGrad: the weights p = softmax(s) of s = q·kᵀ·scale
// give s the cotangent softmax_backward(p, gp), scaled into q and k.
func attentionWeightsGrad(b *Builder, a *GradArgs, gp T) []T {
	gs := b.MulScalar(b.Op(SoftmaxBackward, SoftmaxAttrs{Dim: -1}, a.Out, gp), attentionScale(b, a))
	gq, gk := scoresGrad(b, a, a.X[0], a.X[1], gs)
	return []T{gq, gk}
}

// attentionGrad recomputes the attention weights p (one fused kernel,
// attention_weights) and returns gq = gs·k, gk = gsᵀ·q, gv = pᵀ·g with
// gs = softmax_backward(p, g·vᵀ)·scale.
func attentionGrad(b *Builder, a *GradArgs, g T) []T {
	q, k, v := a.X[0], a.X[1], a.X[2]
	p := b.Op(AttentionWeights, a.Attrs, q, k)
	gs := b.MulScalar(b.Op(SoftmaxBackward, SoftmaxAttrs{Dim: -1}, p, b.Matmul(g, b.Transpose(v))), attentionScale(b, a))
	gq, gk := scoresGrad(b, a, q, k, gs)
	return []T{gq, gk, needed(a, 2, func() T { return b.Matmul(b.Transpose(p), g) })}
}
