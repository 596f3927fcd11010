package stdlib

import (
	"fmt"
	"math"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/autograd"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Functions of torch and torch.nn.functional that are compositions of
// tref's ops, written with torch 1.13's formulas (so the values and, where
// torch detaches a step, the gradients are torch's): gradients, devices
// and placement come from the ops they submit.

func init() {
	register("normalize", "normalize(input, p=2.0, dim=1, eps=1e-12): input / max(norm(input, p, dim, keepdim=true), eps), as F.normalize", normalizeBuiltin)
	register("cosine_similarity", "cosine_similarity(x1, x2, dim=1, eps=1e-8): sum((x1 / max(|x1|, eps)) * (x2 / max(|x2|, eps)), dim) with the norms along dim (floating point, broadcasting; differentiated as torch, whose clamp runs in place under no_grad), as F.cosine_similarity", cosineSimilarityBuiltin)
	register("hardtanh", "hardtanh(input, min_val=-1.0, max_val=1.0): input clamped to [min_val, max_val], its gradient 0 at and beyond them, as F.hardtanh", hardtanhBuiltin)
	register("relu6", "relu6(input): hardtanh(input, 0, 6), as F.relu6", hardtanhBuiltin)
	register("logsigmoid", "logsigmoid(input): log(sigmoid(input)) as min(input, 0) - log1p(exp(-|input|)), as F.logsigmoid", unaryChain(logsigmoid))
	register("mish", "mish(input): input * tanh(softplus(input)), as F.mish", unaryChain(mish))
	register("selu", "selu(input): 1.0507009873554805 * elu(input, 1.6732632423543772), as F.selu", unaryChain(selu))
	register("softmin", "softmin(input, dim=-1, dtype=none): softmax(-input, dim), as F.softmin (with dtype, of input converted to it first)", softminBuiltin)
	register("glu", "glu(input, dim=-1): a * sigmoid(b) where a and b are input's first and second halves along dim, as F.glu", gluBuiltin)
	register("logaddexp", "logaddexp(input, other): log(exp(input) + exp(other)) as max + log1p(exp(-|input - other|)) (equal infinities give themselves), as torch.logaddexp", logaddexpBuiltin)
	register("square", "square(input): input * input (integers stay integers, bools give int64), as torch.square", unaryChain(square))
	register("isfinite", "isfinite(input): true where input is neither NaN nor infinite (everywhere for integers and bools), as torch.isfinite", unaryChain(isfinite))
	register("lerp", "lerp(input, end, weight): input + weight * (end - input), computed as end - (end - input) * (1 - weight) where |weight| >= 0.5, as torch.lerp", lerpBuiltin)
	register("clamp_min", "clamp_min(input, min): clamp(input, min=min), as torch.clamp_min", clampSideBuiltin("min"))
	register("clamp_max", "clamp_max(input, max): clamp(input, max=max), as torch.clamp_max", clampSideBuiltin("max"))
	register("narrow", "narrow(input, dim, start, length): the length elements of input along dim from start (negative start counts from the end), as torch.narrow", narrowBuiltin)
	register("movedim", "movedim(input, source, destination): input with the dimension(s) source moved to destination (ints or lists), the others in their order, as torch.movedim", movedimBuiltin)
	register("unbind", "unbind(input, dim=0): the list of input's slices along dim, as torch.unbind", unbindBuiltin)
	register("addmm", "addmm(input, mat1, mat2, beta=1, alpha=1): beta * input + alpha * (mat1 @ mat2) (input is not read when beta is 0), as torch.addmm", addmmBuiltin)
	register("diff", "diff(input, n=1, dim=-1): the n-th forward difference along dim (!= for bools), as torch.diff without prepend and append", diffBuiltin)
}

// unaryChain is a builtin of one tensor computed by f over a chain.
func unaryChain(f func(c *chain, x *refs.Ref) *refs.Ref) eval.BuiltinFunc {
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		var x *refs.Ref
		if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x); err != nil {
			return nil, err
		}
		c := newChain(th)
		return c.Result(f(c, x))
	}
}

// floatInput fails the chain unless x is floating point.
func (c *chain) floatInput(fname string, x *refs.Ref) bool {
	if c.Err() == nil && !x.DType().IsFloat() {
		c.Fail(fmt.Errorf("%s: the input must be floating point, got %s", fname, x.DType()))
	}
	return c.Err() == nil
}

// detached computes f with the gradient tape paused: its ops are
// constants to every grad (torch's no_grad steps).
func (c *chain) detached(f func() *refs.Ref) *refs.Ref {
	var r *refs.Ref
	if err := autograd.Paused(c.Thread().RT, func() error { r = f(); return nil }); err != nil {
		c.Fail(err)
	}
	return r
}

func normalizeBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	p, dim, eps := 2.0, 1, 1e-12
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, "p?", &p, "dim?", &dim, "eps?", &eps); err != nil {
		return nil, err
	}
	c := newChain(th)
	if !c.floatInput(b.Name, x) {
		return c.Result(nil)
	}
	n := c.Op(ops.Norm, ops.VectorNormAttrs{P: p, Dims: []int{dim}, Keepdim: true}, x)
	return c.Result(c.Op(ops.Div, nil, x, c.Op(ops.Clamp, ops.ClampAttrs{Min: eps, HasMin: true}, n)))
}

func cosineSimilarityBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x1, x2 *refs.Ref
	dim, eps := 1, 1e-8
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "x1", &x1, "x2", &x2, "dim?", &dim, "eps?", &eps); err != nil {
		return nil, err
	}
	c := newChain(th)
	s, err := ops.BroadcastShapes(x1.Shape(), x2.Shape())
	if err != nil {
		return nil, fmt.Errorf("%s: %v", b.Name, err)
	}
	dt := ops.PromoteAll([]tensor.Meta{x1.Meta(), x2.Meta()})
	if !dt.IsFloat() {
		return nil, fmt.Errorf("%s: the inputs must be floating point, got %s and %s", b.Name, x1.DType(), x2.DType())
	}
	unit := func(x *refs.Ref) *refs.Ref {
		x = c.Cast(c.Expand(x, s), dt)
		// torch clamps the norm n in place under no_grad, so its value is
		// nc = max(n, eps) and its backward uses nc as the norm: dn/dx =
		// x / nc. That is nc + (q - q̄) / (2 nc) with q = Σx² and q̄ q
		// detached: the added term is 0 and differentiates to x / nc.
		q := c.Op(ops.Sum, ops.ReduceAttrs{Dims: []int{dim}, Keepdim: true}, c.Op(ops.Mul, nil, x, x))
		var nc, q0 *refs.Ref
		c.detached(func() *refs.Ref {
			n := c.Op(ops.Norm, ops.VectorNormAttrs{P: 2, Dims: []int{dim}, Keepdim: true}, x)
			nc = c.Op(ops.Clamp, ops.ClampAttrs{Min: eps, HasMin: true}, n)
			if q != nil {
				q0 = c.Op(ops.Reshape, ops.ReshapeAttrs{Shape: q.Shape()}, q) // q, a constant to grad
			}
			return nil
		})
		lift := c.Op(ops.Div, nil, c.Op(ops.Sub, nil, q, q0), c.Op(ops.Mul, nil, nc, c.scalar(2, dt)))
		return c.Op(ops.Div, nil, x, c.Op(ops.Add, nil, nc, lift))
	}
	prod := c.Op(ops.Mul, nil, unit(x1), unit(x2))
	return c.Result(c.Op(ops.Sum, ops.ReduceAttrs{Dims: []int{dim}}, prod))
}

func hardtanhBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	lo, hi := -1.0, 1.0
	if b.Name == "relu6" {
		if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x); err != nil {
			return nil, err
		}
		lo, hi = 0, 6
	} else if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, "min_val?", &lo, "max_val?", &hi); err != nil {
		return nil, err
	}
	if lo > hi {
		return nil, fmt.Errorf("%s: min_val (%v) must not be above max_val (%v)", b.Name, lo, hi)
	}
	c := newChain(th)
	if !c.floatInput(b.Name, x) {
		return c.Result(nil)
	}
	// The clamped value, differentiated only strictly inside (lo, hi).
	dt := x.DType()
	inside := c.Op(ops.BitwiseAnd, nil, c.Op(ops.Gt, nil, x, c.scalar(lo, dt)), c.Op(ops.Lt, nil, x, c.scalar(hi, dt)))
	clamped := c.detached(func() *refs.Ref {
		return c.Op(ops.Clamp, ops.ClampAttrs{Min: lo, Max: hi, HasMin: true, HasMax: true}, x)
	})
	return c.Result(c.Op(ops.Where, nil, inside, x, clamped))
}

func logsigmoid(c *chain, x *refs.Ref) *refs.Ref {
	if !c.floatInput("logsigmoid", x) {
		return nil
	}
	dt := x.DType()
	tail := c.Op(ops.Log1p, nil, c.Op(ops.Exp, nil, c.Op(ops.Neg, nil, c.Op(ops.Abs, nil, x))))
	return c.Op(ops.Sub, nil, c.Op(ops.Minimum, nil, x, c.scalar(0, dt)), tail)
}

func mish(c *chain, x *refs.Ref) *refs.Ref {
	if !c.floatInput("mish", x) {
		return nil
	}
	sp := c.Op(ops.Softplus, ops.SoftplusAttrs{Beta: 1, Threshold: 20}, x)
	return c.Op(ops.Mul, nil, x, c.Op(ops.Tanh, nil, sp))
}

// The constants of SELU (Klambauer et al.), as torch.
const (
	seluAlpha = 1.6732632423543772848170429916717
	seluScale = 1.0507009873554804934193349852946
)

func selu(c *chain, x *refs.Ref) *refs.Ref {
	if !c.floatInput("selu", x) {
		return nil
	}
	e := c.Op(ops.Elu, ops.EluAttrs{Alpha: seluAlpha}, x)
	return c.Op(ops.Mul, nil, e, c.scalar(seluScale, x.DType()))
}

func square(c *chain, x *refs.Ref) *refs.Ref {
	if x.DType() == tensor.Bool {
		x = c.Cast(x, tensor.Int64)
	}
	return c.Op(ops.Mul, nil, x, x)
}

func isfinite(c *chain, x *refs.Ref) *refs.Ref {
	if c.Err() == nil && !x.DType().IsFloat() {
		return c.Op(ops.Eq, nil, x, x) // true everywhere
	}
	// x - x is 0 for a finite x and NaN for NaN and the infinities.
	return c.Op(ops.Eq, nil, c.Op(ops.Sub, nil, x, x), c.scalar(0, x.DType()))
}

func softminBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	dim := -1
	dtv := eval.Value(eval.None)
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, "dim?", &dim, "dtype?", &dtv); err != nil {
		return nil, err
	}
	x, _, done, err := dtypeInput(th, b.Name, x, dtv, true)
	if err != nil {
		return nil, err
	}
	defer done()
	c := newChain(th)
	return c.Result(c.Op(ops.Softmax, ops.SoftmaxAttrs{Dim: dim}, c.Op(ops.Neg, nil, x)))
}

func gluBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	dim := -1
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, "dim?", &dim); err != nil {
		return nil, err
	}
	s := x.Shape()
	d, err := dimOf(b.Name, dim, s)
	if err != nil {
		return nil, err
	}
	if s[d]%2 != 0 {
		return nil, fmt.Errorf("%s: dimension %d of shape %v has odd size %d: it must halve", b.Name, d, s, s[d])
	}
	c := newChain(th)
	if !c.floatInput(b.Name, x) {
		return c.Result(nil)
	}
	h := s[d] / 2
	a := c.Op(ops.Index, &ops.IndexAttrs{Items: ops.SliceAlong(d, 0, h)}, x)
	g := c.Op(ops.Index, &ops.IndexAttrs{Items: ops.SliceAlong(d, h, s[d])}, x)
	return c.Result(c.Op(ops.Mul, nil, a, c.Op(ops.Sigmoid, nil, g)))
}

// dimOf normalises dim (negative counts from the end) for a tensor of
// shape s of at least one dimension.
func dimOf(fname string, dim int, s tensor.Shape) (int, error) {
	d, err := tensor.NormDim(dim, len(s))
	if err != nil || len(s) == 0 {
		return 0, fmt.Errorf("%s: dim %d of a tensor of shape %v is out of range", fname, dim, s)
	}
	return d, nil
}

func logaddexpBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x, y *refs.Ref
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, "other", &y); err != nil {
		return nil, err
	}
	c := newChain(th)
	if !c.floatInput(b.Name, x) || !c.floatInput(b.Name, y) {
		return c.Result(nil)
	}
	return c.Result(c.logAddExp(x, y, false))
}

// logAddExp is log(exp(x) + exp(y)) as max + log1p(exp(-|x - y|)), or
// with base2 log2(2^x + 2^y) as max + log1p(2^-|x - y|) / ln 2 (torch's
// logaddexp2): equal infinities give themselves.
func (c *chain) logAddExp(x, y *refs.Ref, base2 bool) *refs.Ref {
	m := c.Op(ops.Maximum, nil, x, y)
	if m == nil {
		return nil
	}
	negGap := c.Op(ops.Neg, nil, c.Op(ops.Abs, nil, c.Op(ops.Sub, nil, x, y)))
	var tail *refs.Ref
	if base2 {
		tail = c.Op(ops.Mul, nil, c.Op(ops.Log1p, nil, exp2(c, negGap)), c.scalar(1/math.Ln2, m.DType()))
	} else {
		tail = c.Op(ops.Log1p, nil, c.Op(ops.Exp, nil, negGap))
	}
	r := c.Op(ops.Add, nil, m, tail)
	// Equal infinities: inf - inf is NaN, the answer is the infinity.
	same := c.Op(ops.BitwiseAnd, nil, c.Op(ops.Isinf, nil, x), c.Op(ops.Eq, nil, x, y))
	return c.Op(ops.Where, nil, same, c.Expand(c.Cast(x, m.DType()), m.Shape()), r)
}

func lerpBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x, end *refs.Ref
	var wv eval.Value
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, "end", &end, "weight", &wv); err != nil {
		return nil, err
	}
	c := newChain(th)
	if !c.floatInput(b.Name, x) || !c.floatInput(b.Name, end) {
		return c.Result(nil)
	}
	dt := x.DType()
	wt, tw := wv.(eval.Tensor)
	if !tw {
		// A number picks torch's formula here; a tensor weight is not
		// read on the host.
		w, ok := th.AsFloat(wv)
		if !ok {
			return c.Abort(fmt.Errorf("%s: weight must be a number or a tensor, not %s", b.Name, eval.Describe(wv)))
		}
		d := c.Op(ops.Sub, nil, end, x)
		if math.Abs(w) < 0.5 {
			return c.Result(c.Op(ops.Add, nil, x, c.Op(ops.Mul, nil, d, c.scalar(w, dt))))
		}
		return c.Result(c.Op(ops.Sub, nil, end, c.Op(ops.Mul, nil, d, c.scalar(1-w, dt))))
	}
	return c.Result(lerpTensor(c, x, end, wt.Ref))
}

// lerpTensor is torch's lerp with a tensor weight w: x + w·(end - x)
// where |w| < 0.5, else end - (end - x)·(1 - w).
func lerpTensor(c *chain, x, end, w *refs.Ref) *refs.Ref {
	d := c.Op(ops.Sub, nil, end, x)
	low := c.Op(ops.Add, nil, x, c.Op(ops.Mul, nil, w, d))
	high := c.Op(ops.Sub, nil, end, c.Op(ops.Mul, nil, d, c.Op(ops.Sub, nil, c.scalar(1, w.DType()), w)))
	small := c.Op(ops.Lt, nil, c.Op(ops.Abs, nil, w), c.scalar(0.5, w.DType()))
	return c.Op(ops.Where, nil, small, low, high)
}

func clampSideBuiltin(side string) eval.BuiltinFunc {
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		var x, v eval.Value
		if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, side, &v); err != nil {
			return nil, err
		}
		return eval.CallBuiltin(th, Universe()["clamp"], []eval.Value{x}, []eval.Kwarg{{Name: side, Value: v}})
	}
}

func narrowBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	var dim, start, length int
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, "dim", &dim, "start", &start, "length", &length); err != nil {
		return nil, err
	}
	s := x.Shape()
	d, err := dimOf(b.Name, dim, s)
	if err != nil {
		return nil, err
	}
	n := s[d]
	if start < -n || start > n {
		return nil, fmt.Errorf("%s: start %d is out of range for dimension %d of size %d", b.Name, start, d, n)
	}
	if start < 0 {
		start += n
	}
	if length < 0 || start+length > n {
		return nil, fmt.Errorf("%s: start (%d) + length (%d) exceeds dimension %d of size %d", b.Name, start, length, d, n)
	}
	return th.Submit(ops.Index, &ops.IndexAttrs{Items: ops.SliceAlong(d, start, start+length)}, x)
}

func movedimBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	var src, dst []int
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, "source", &src, "destination", &dst); err != nil {
		return nil, err
	}
	s := x.Shape()
	if len(src) != len(dst) {
		return nil, fmt.Errorf("%s: source and destination must name as many dimensions, got %d and %d", b.Name, len(src), len(dst))
	}
	r := len(s)
	perm := make([]int, r)
	for i := range perm {
		perm[i] = -1
	}
	used := make([]bool, r)
	for i := range src {
		sd, err1 := tensor.NormDim(src[i], max(r, 1))
		dd, err2 := tensor.NormDim(dst[i], max(r, 1))
		if err1 != nil || err2 != nil || r == 0 {
			return nil, fmt.Errorf("%s: dimensions %d and %d of a tensor of shape %v", b.Name, src[i], dst[i], s)
		}
		if used[sd] || perm[dd] >= 0 {
			return nil, fmt.Errorf("%s: repeated dimension in source %v or destination %v", b.Name, src, dst)
		}
		perm[dd], used[sd] = sd, true
	}
	next := 0
	for i := range perm {
		if perm[i] >= 0 {
			continue
		}
		for used[next] {
			next++
		}
		perm[i], used[next] = next, true
	}
	return th.Submit(ops.Permute, ops.PermuteAttrs{Dims: perm}, x)
}

func unbindBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	dim := 0
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, "dim?", &dim); err != nil {
		return nil, err
	}
	s := x.Shape()
	d, err := dimOf(b.Name, dim, s)
	if err != nil {
		return nil, err
	}
	if err := th.RT.HostPool().CheckValue(int64(s[d]) * 16); err != nil {
		return nil, fmt.Errorf("%s: %v", b.Name, err)
	}
	out := make([]eval.Value, 0, s[d])
	for i := range s[d] {
		v, err := th.Submit(ops.Index, &ops.IndexAttrs{Items: ops.AtAlong(d, i)}, x)
		if err != nil {
			eval.Release(th.RT, eval.NewList(out))
			return nil, err
		}
		out = append(out, v)
	}
	return eval.NewList(out), nil
}

func addmmBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var in, m1, m2 *refs.Ref
	beta, alpha := 1.0, 1.0
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &in, "mat1", &m1, "mat2", &m2, "beta?", &beta, "alpha?", &alpha); err != nil {
		return nil, err
	}
	if len(m1.Shape()) != 2 || len(m2.Shape()) != 2 {
		return nil, fmt.Errorf("%s: mat1 and mat2 must be matrices, got shapes %v and %v", b.Name, m1.Shape(), m2.Shape())
	}
	c := newChain(th)
	mm := c.Op(ops.Matmul, nil, m1, m2)
	if c.Err() != nil {
		return c.Result(nil)
	}
	dt := mm.DType()
	if s, err := ops.BroadcastShapes(in.Shape(), mm.Shape()); err != nil || !s.Equal(mm.Shape()) {
		c.Fail(fmt.Errorf("%s: input of shape %v does not broadcast to the product's %v", b.Name, in.Shape(), mm.Shape()))
		return c.Result(nil)
	}
	if alpha != 1 {
		mm = c.Op(ops.Mul, nil, mm, c.scalar(alpha, dt))
	}
	if beta == 0 {
		return c.Result(mm)
	}
	bi := in
	if beta != 1 {
		bi = c.Op(ops.Mul, nil, in, c.scalar(beta, in.DType()))
	}
	return c.Result(c.Op(ops.Add, nil, bi, mm))
}

func diffBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	n, dim := 1, -1
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, "n?", &n, "dim?", &dim); err != nil {
		return nil, err
	}
	s := x.Shape()
	d, err := dimOf(b.Name, dim, s)
	if err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, fmt.Errorf("%s: n must be at least 0, got %d", b.Name, n)
	}
	c := newChain(th)
	op := ops.Sub
	if x.DType() == tensor.Bool {
		op = ops.Ne
	}
	cur := x
	for range min(n, s[d]) {
		m := cur.Shape()[d]
		cur = c.Op(op, nil, c.Op(ops.Index, &ops.IndexAttrs{Items: ops.SliceAlong(d, 1, m)}, cur), c.Op(ops.Index, &ops.IndexAttrs{Items: ops.SliceAlong(d, 0, m-1)}, cur))
		if cur == nil {
			break
		}
	}
	return c.Result(cur)
}
