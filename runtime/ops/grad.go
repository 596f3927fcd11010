package ops

import (
	"fmt"

	"github.com/tref-lang/tref/runtime/tensor"
)

// Gradient rules. Every op of the registry either has a reverse-mode rule
// (a VJP: the cotangent of each input from the cotangent of the result) or
// is marked not differentiable, with the reason; TestEveryOpHasAGradRule
// fails for an op with neither. A rule lives in the family's *_grad.go
// file beside the Def and is set with defineGrads (it becomes Def.Grad):
//
//	Exp: {SavesOut: true, VJP: func(b *Builder, a *GradArgs, g T) []T {
//		return []T{b.Mul(g, a.Out)}
//	}},
//
// A rule submits ordinary ops through the Builder, so the backward pass is
// planned, traced and run like any other ops on every backend, and is
// itself recorded when an outer grad is active (grad of grad works when
// every op a rule submits has a rule). Saves lists the only inputs the
// tape keeps alive for the rule; an input not listed is nil in GradArgs.X.
// A rule may return a cotangent of a broadcast shape or another float
// dtype: the tape sums it down to the input's shape and casts it (Fit).

// T is a tensor of the backward pass as a rule sees it (a TensorRef
// underneath); rules read only its meta and pass it to the Builder.
type T interface{ Meta() tensor.Meta }

// GradArgs is what a rule knows about one recorded op.
type GradArgs struct {
	// Attrs are the op's attributes.
	Attrs any
	// In are the metas of all inputs; X the saved inputs (Grad.Saves),
	// nil elsewhere.
	In []tensor.Meta
	X  []T
	// Out is the result when Grad.SavesOut, else nil; OutMeta its meta.
	Out     T
	OutMeta tensor.Meta
	// Need says which inputs want a cotangent (float inputs the
	// differentiated arguments reach); a rule may skip the others.
	Need []bool
}

// VJPFunc computes one cotangent per input (nil for none) from g, the
// cotangent of the op's result (same meta as the result).
type VJPFunc func(b *Builder, a *GradArgs, g T) []T

// Grad is an op's gradient rule, or its mark as not differentiable.
type Grad struct {
	// Saves lists the inputs the rule reads; SavesOut says it reads the
	// result. Nothing else is kept alive for backward.
	Saves    []int
	SavesOut bool
	VJP      VJPFunc
	// NotDifferentiable, when set, says why the op has no gradient (an
	// integer or bool result, or a piecewise-constant one): the tape does
	// not record it and its result is a constant.
	NotDifferentiable string
}

// defineGrads sets the rules of ops (Def.Grad); families call it from
// init, when every handle is registered. Defining a rule twice is a
// programming error.
func defineGrads(rules map[Op]*Grad) {
	for op, g := range rules {
		d := op.Def()
		if d.Grad != nil {
			panic("ops: duplicate gradient rule for " + d.Name)
		}
		if (g.VJP == nil) == (g.NotDifferentiable == "") {
			panic("ops: the gradient rule of " + d.Name + " needs exactly one of VJP and NotDifferentiable")
		}
		d.Grad = g
	}
}

// notDifferentiable marks ops without a gradient, for one reason.
func notDifferentiable(reason string, ops ...Op) map[Op]*Grad {
	m := make(map[Op]*Grad, len(ops))
	for _, op := range ops {
		m[op] = &Grad{NotDifferentiable: reason}
	}
	return m
}

// Builder submits the ops of a rule. Errors are sticky: after the first
// failure every method returns nil and Err reports it, so rules read as
// formulas without error checks.
type Builder struct {
	submit   func(op Op, attrs any, ins []T) (T, error)
	constant func(d *tensor.Dense) T
	err      error
}

// NewBuilder makes a builder over submit (queues an op, returns its
// result) and constant (makes a tensor of host data, taking d).
func NewBuilder(submit func(op Op, attrs any, ins []T) (T, error), constant func(d *tensor.Dense) T) *Builder {
	return &Builder{submit: submit, constant: constant}
}

// Err is the first failure of the builder's ops.
func (b *Builder) Err() error { return b.err }

// Op submits op over ins.
func (b *Builder) Op(op Op, attrs any, ins ...T) T {
	if b.err != nil {
		return nil
	}
	for _, in := range ins {
		if in == nil {
			return b.missing(op)
		}
	}
	if f, ok := foldScalars(op, attrs, ins); ok {
		return f
	}
	attrs, ins = b.immediates(op, attrs, ins)
	if b.err != nil {
		return nil
	}
	t, err := b.submit(op, attrs, ins)
	if err != nil {
		b.err = fmt.Errorf("gradient: %s: %w", op.Name(), err)
		return nil
	}
	return t
}

// missing fails an op with a nil operand: an earlier failure (already
// recorded) or a rule that reads an input it does not save.
func (b *Builder) missing(op Op) T {
	if b.err == nil {
		b.err = fmt.Errorf("gradient: %s got a missing operand (a rule read an input it does not save)", op)
	}
	return nil
}

// Scalar is a 0-d constant of dtype dt: an immediate (a Scalar), which
// an op with a scalar form takes as its argument and any other op as a
// constant tensor.
func (b *Builder) Scalar(v float64, dt tensor.DType) T {
	if b.err != nil {
		return nil
	}
	return FloatScalar(v, dt)
}

// immediates passes a Scalar among ins as the op's scalar operand when
// the op has a scalar form, and as a constant tensor otherwise.
func (b *Builder) immediates(op Op, attrs any, ins []T) (any, []T) {
	k := -1
	for i, in := range ins {
		if _, ok := in.(Scalar); ok {
			if k >= 0 {
				k = -2
				break
			}
			k = i
		}
	}
	if k == -1 {
		return attrs, ins
	}
	if n := len(ins); k >= 0 && attrs == nil && n >= 2 && k >= n-2 && op.Def().TakesScalar {
		out := make([]T, 0, n-1)
		return ScalarOperand{Value: ins[k].(Scalar), Left: k == n-2}, append(append(out, ins[:k]...), ins[k+1:]...)
	}
	out := make([]T, len(ins))
	for i, in := range ins {
		out[i] = b.materialize(in)
	}
	return attrs, out
}

// materialize makes an immediate Scalar a constant tensor.
func (b *Builder) materialize(x T) T {
	if s, ok := x.(Scalar); ok && b.err == nil {
		return b.constant(s.Dense())
	}
	return x
}

// Iota is the int64 tensor [0, 1, ..., n-1] reshaped to shape (of n
// elements; [n] when nil), for one-hot masks.
func (b *Builder) Iota(n int, shape tensor.Shape) T {
	if b.err != nil {
		return nil
	}
	if shape == nil {
		shape = tensor.Shape{n}
	}
	d := tensor.NewDense(tensor.Meta{Shape: shape.Clone(), DType: tensor.Int64})
	for i, p := 0, d.I64(); i < n; i++ {
		p[i] = int64(i)
	}
	return b.constant(d)
}

// Add, Sub, Mul and Div are the broadcasting arithmetic ops.
func (b *Builder) Add(x, y T) T { return b.Op(Add, nil, x, y) }

// Sub is x - y.
func (b *Builder) Sub(x, y T) T { return b.Op(Sub, nil, x, y) }

// Mul is x * y.
func (b *Builder) Mul(x, y T) T { return b.Op(Mul, nil, x, y) }

// Div is x / y.
func (b *Builder) Div(x, y T) T { return b.Op(Div, nil, x, y) }

// Neg is -x.
func (b *Builder) Neg(x T) T { return b.Op(Neg, nil, x) }

// MulScalar is x * v, v in x's dtype.
func (b *Builder) MulScalar(x T, v float64) T {
	if x == nil {
		return b.missing(Mul)
	}
	return b.Mul(x, b.Scalar(v, x.Meta().DType))
}

// Where is where(c, x, y).
func (b *Builder) Where(c, x, y T) T { return b.Op(Where, nil, c, x, y) }

// Zero is a 0-d zero of x's dtype.
func (b *Builder) Zero(x T) T {
	if x == nil {
		return b.missing(Where)
	}
	return b.Scalar(0, x.Meta().DType)
}

// Cast converts x to dt (nothing when it already is).
func (b *Builder) Cast(x T, dt tensor.DType) T {
	if x != nil && x.Meta().DType == dt {
		return x
	}
	if s, ok := x.(Scalar); ok {
		return s.Convert(dt)
	}
	return b.Op(Astype, CastAttrs{To: dt}, x)
}

// Reshape gives x the shape s (nothing when it already has it).
func (b *Builder) Reshape(x T, s tensor.Shape) T {
	if x != nil && x.Meta().Shape.Equal(s) {
		return x
	}
	return b.Op(Reshape, ReshapeAttrs{Shape: s.Clone()}, x)
}

// Expand broadcasts x to s.
func (b *Builder) Expand(x T, s tensor.Shape) T {
	if x != nil && x.Meta().Shape.Equal(s) {
		return x
	}
	return b.Op(Expand, ExpandAttrs{Shape: s.Clone()}, x)
}

// Sum reduces x over dims (all when nil).
func (b *Builder) Sum(x T, dims []int, keepdim bool) T {
	return b.Op(Sum, ReduceAttrs{Dims: dims, Keepdim: keepdim}, x)
}

// Permute reorders x's dimensions.
func (b *Builder) Permute(x T, dims []int) T { return b.Op(Permute, PermuteAttrs{Dims: dims}, x) }

// Transpose swaps x's last two dimensions.
func (b *Builder) Transpose(x T) T {
	if x == nil {
		return b.missing(Permute)
	}
	n := len(x.Meta().Shape)
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	p[n-1], p[n-2] = p[n-2], p[n-1]
	return b.Permute(x, p)
}

// Matmul is x @ y.
func (b *Builder) Matmul(x, y T) T { return b.Op(Matmul, nil, x, y) }

// SumTo sums a broadcast cotangent g back to shape s: over the leading
// dimensions g has in excess and over the dimensions s has as 1.
func (b *Builder) SumTo(g T, s tensor.Shape) T {
	if g == nil || g.Meta().Shape.Equal(s) {
		return g
	}
	gs := g.Meta().Shape
	lead := len(gs) - len(s)
	if lead < 0 {
		return b.Expand(g, s) // a 0-d or smaller cotangent: broadcast up
	}
	var dims []int
	for i := range gs {
		if i < lead || (s[i-lead] == 1 && gs[i] != 1) {
			dims = append(dims, i)
		}
	}
	if len(dims) > 0 {
		g = b.Sum(g, dims, true)
	}
	return b.Reshape(g, s)
}

// Fit makes a cotangent g fit an input of meta m: summed to its shape
// and cast to its dtype.
func (b *Builder) Fit(g T, m tensor.Meta) T {
	g = b.SumTo(b.materialize(g), m.Shape)
	if g == nil {
		return nil
	}
	if !g.Meta().Shape.Equal(m.Shape) {
		b.err = fmt.Errorf("gradient: a cotangent of shape %v for an input of shape %v", g.Meta().Shape, m.Shape)
		return nil
	}
	return b.Cast(g, m.DType)
}

// Fail records err as the builder's failure (a rule that cannot
// differentiate what it was given).
func (b *Builder) Fail(err error) {
	if b.err == nil {
		b.err = err
	}
}

// firstOrderOnly is the rule of a backward-only op (a fused gradient
// kernel) whose own derivative is not written: grad of grad through it
// fails, naming the op, instead of treating it as a constant.
func firstOrderOnly(forward Op) *Grad {
	return &Grad{VJP: func(b *Builder, _ *GradArgs, _ T) []T {
		b.Fail(fmt.Errorf("grad of grad through %s is not supported (its gradient kernel has no rule of its own)", forward.Name()))
		return nil
	}}
}
