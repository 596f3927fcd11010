package ops

import "github.com/tref-lang/tref/runtime/tensor"

// Gradient rules of the losses of loss.go (see grad.go).

func init() {
	defineGrads(map[Op]*Grad{NllLoss: {Saves: []int{1, 2}, VJP: nllLossGrad}})
}

// classLayout reads the class dimension of a loss's logits (or
// log-probabilities) shaped ls: dimension 1, or 0 for one sample. It gives
// that dimension, the shape the targets broadcast with (ls with the class
// dimension 1) and the shape a per-class vector broadcasts as (1
// everywhere but the class dimension).
func classLayout(ls tensor.Shape) (classDim int, targets, perClass tensor.Shape) {
	if len(ls) > 1 {
		classDim = 1
	}
	targets = ls.Clone()
	targets[classDim] = 1
	perClass = make(tensor.Shape, len(ls))
	for i := range perClass {
		perClass[i] = 1
	}
	perClass[classDim] = ls[classDim]
	return classDim, targets, perClass
}

// nllLossGrad: each counted position's loss has the cotangent
// -((1-ε)·onehot(t) + ε/C)·weight over the classes; mean divides by the
// counted targets' summed weights. The class weights get none (as in
// torch).
func nllLossGrad(b *Builder, a *GradArgs, g T) []T {
	n, _ := AttrsAs[NllLossAttrs]("nll_loss", a.Attrs)
	ls := a.In[0].Shape
	dt := a.OutMeta.DType
	classDim, ts, cs := classLayout(ls)
	classes := ls[classDim]
	tt := b.Reshape(a.X[1], ts)
	hot := b.Cast(b.Op(Eq, nil, tt, b.Iota(classes, cs)), dt)
	valid := b.Cast(b.Op(Ne, nil, tt, b.Scalar(float64(n.IgnoreIndex), tensor.Int64)), dt)
	w := b.Scalar(1, dt)
	if n.HasWeight {
		w = b.Reshape(b.Cast(a.X[2], dt), cs)
	}
	per := b.MulScalar(hot, 1-n.LabelSmoothing)
	if n.LabelSmoothing != 0 {
		per = b.Add(per, b.Scalar(n.LabelSmoothing/float64(classes), dt))
	}
	d := b.Neg(b.Mul(b.Mul(per, w), valid))
	var scale T
	switch n.Reduction {
	case ReduceNone:
		scale = b.Reshape(g, ts)
	case ReduceSum:
		scale = g
	default:
		wt := b.Sum(b.Mul(hot, w), []int{classDim}, true)
		scale = b.Div(g, b.Sum(b.Mul(wt, valid), nil, false))
	}
	out := []T{b.Mul(d, scale), nil}
	if n.HasWeight {
		out = append(out, nil)
	}
	return out
}
