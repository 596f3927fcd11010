package stdlib

import (
	"fmt"
	"math"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Linear algebra functions of torch composed of tref's ops: the vector and
// batched products run as one matmul (a GEMM or dot kernel), the scaled
// sums are written as addmm's, and cov and corrcoef follow torch 1.13's
// formulas step by step, so their values and gradients are torch's.
func init() {
	register("dot", "dot(input, other): the inner product of two 1-d tensors of one length and one dtype, as torch.dot", dotBuiltin)
	register("vdot", "vdot(input, other): the inner product of two 1-d tensors (tref's tensors are real, so dot), as torch.vdot", dotBuiltin)
	register("mv", "mv(input, vec): the product of the matrix input [n, m] and the vector vec [m], of shape [n], as torch.mv", mvBuiltin)
	register("addmv", "addmv(input, mat, vec, beta=1, alpha=1): beta * input + alpha * (mat @ vec), input broadcasting to [n] (not read when beta is 0), as torch.addmv", addmvBuiltin)
	register("addr", "addr(input, vec1, vec2, beta=1, alpha=1): beta * input + alpha * outer(vec1, vec2), input broadcasting to [n, m] (not read when beta is 0), as torch.addr", addrBuiltin)
	register("baddbmm", "baddbmm(input, batch1, batch2, beta=1, alpha=1): beta * input + alpha * (batch1 @ batch2) for batch1 [b, n, m] and batch2 [b, m, p], input broadcasting to [b, n, p] (not read when beta is 0), as torch.baddbmm", baddbmmBuiltin)
	register("addbmm", "addbmm(input, batch1, batch2, beta=1, alpha=1): beta * input + alpha * the sum over b of batch1[b] @ batch2[b], input broadcasting to [n, p] (not read when beta is 0), as torch.addbmm", addbmmBuiltin)
	register("kron", "kron(input, other): the Kronecker product, of shape [a0*b0, a1*b1, ...] after padding the shorter shape with leading ones, as torch.kron", kronBuiltin)
	register("matrix_power", "matrix_power(input, n): the n-th power of each square matrix input[..., k, k] by repeated squaring in torch's order of products (n = 0: the identity; n < 0: the power of the inverse), as torch.matrix_power", matrixPowerBuiltin)
	register("cov", "cov(input, correction=1, fweights=none, aweights=none): the covariance matrix of the variables in input's rows (observations in its columns; a 1-d input is one variable), weighted by integer frequencies fweights and float weights aweights, divided by the observations (or the weights' sum) less correction, as torch.cov", covBuiltin)
	register("corrcoef", "corrcoef(input): Pearson's correlation coefficients of the variables in input's rows, cov(input) normalised by the standard deviations and clipped to [-1, 1], as torch.corrcoef", corrcoefBuiltin)
}

// sameDType checks that the operands of a product have one dtype, as
// torch's BLAS-backed products require.
func sameDType(fname, an, bn string, a, b *refs.Ref) error {
	if a.DType() != b.DType() {
		return fmt.Errorf("%s: %s is %s and %s %s: they must have one dtype (use astype)", fname, an, a.DType(), bn, b.DType())
	}
	return nil
}

func dotBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x, y *refs.Ref
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input", &x, "other", &y); err != nil {
		return nil, err
	}
	xs, ys := x.Shape(), y.Shape()
	if len(xs) != 1 || len(ys) != 1 {
		return nil, fmt.Errorf("%s: expected two 1-d tensors, got shapes %v and %v", b.Name, xs, ys)
	}
	if xs[0] != ys[0] {
		return nil, fmt.Errorf("%s: the vectors have %d and %d elements; they must have as many", b.Name, xs[0], ys[0])
	}
	if x.DType() != y.DType() {
		return nil, fmt.Errorf("%s: expected both vectors to have the same dtype, got %s and %s", b.Name, x.DType(), y.DType())
	}
	return named(b.Name)(th.Submit(ops.Matmul, nil, x, y))
}

// mvOperands checks mat [n, m] and vec [m] of mv and addmv.
func mvOperands(fname string, mat, vec *refs.Ref) error {
	ms, vs := mat.Shape(), vec.Shape()
	if len(ms) != 2 || len(vs) != 1 {
		return fmt.Errorf("%s: expected a matrix and a vector, got shapes %v and %v", fname, ms, vs)
	}
	if ms[1] != vs[0] {
		return fmt.Errorf("%s: a matrix of shape %v and a vector of shape %v do not align (%d != %d)", fname, ms, vs, ms[1], vs[0])
	}
	return sameDType(fname, "the matrix", "the vector", mat, vec)
}

func mvBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var mat, vec *refs.Ref
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input", &mat, "vec", &vec); err != nil {
		return nil, err
	}
	if err := mvOperands(b.Name, mat, vec); err != nil {
		return nil, err
	}
	return named(b.Name)(th.Submit(ops.Matmul, nil, mat, vec))
}

// addScaled is beta * input + alpha * prod, the tail of addmm's kin: input
// must broadcast to prod's shape; the sum has prod's dtype (torch's addmv
// and baddbmm) unless promote is set (addr: the promoted dtype of input
// and prod), input and prod are cast to it and scaled by beta and alpha in
// it, and input is not read when beta is 0, so NaNs in it are ignored, as
// torch.
func (c *chain) addScaled(fname string, in, prod *refs.Ref, beta, alpha float64, promote bool) *refs.Ref {
	if c.Err() != nil {
		return nil
	}
	if s, err := ops.BroadcastShapes(in.Shape(), prod.Shape()); err != nil || !s.Equal(prod.Shape()) {
		c.Fail(fmt.Errorf("%s: input of shape %v does not broadcast to the product's shape %v", fname, in.Shape(), prod.Shape()))
		return nil
	}
	dt := prod.DType()
	if promote {
		dt = ops.PromoteAll([]tensor.Meta{in.Meta(), prod.Meta()})
		if !dt.IsFloat() {
			for _, v := range []struct {
				name string
				v    float64
			}{{"beta", beta}, {"alpha", alpha}} {
				if v.v != math.Trunc(v.v) {
					c.Fail(fmt.Errorf("%s: for integer operands, %s must be an integer, got %v", fname, v.name, v.v))
					return nil
				}
			}
		}
		prod = c.Cast(prod, dt)
	}
	if alpha != 1 {
		prod = c.Op(ops.Mul, nil, prod, c.scalar(alpha, dt))
	}
	if beta == 0 {
		return prod
	}
	in = c.Cast(in, dt)
	if beta != 1 {
		in = c.Op(ops.Mul, nil, in, c.scalar(beta, dt))
	}
	return c.Op(ops.Add, nil, in, prod)
}

func addmvBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var in, mat, vec *refs.Ref
	beta, alpha := 1.0, 1.0
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input", &in, "mat", &mat, "vec", &vec, "beta?", &beta, "alpha?", &alpha); err != nil {
		return nil, err
	}
	if err := mvOperands(b.Name, mat, vec); err != nil {
		return nil, err
	}
	c := newChain(th)
	return named(b.Name)(c.Result(c.addScaled(b.Name, in, c.Op(ops.Matmul, nil, mat, vec), beta, alpha, false)))
}

func addrBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var in, v1, v2 *refs.Ref
	beta, alpha := 1.0, 1.0
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input", &in, "vec1", &v1, "vec2", &v2, "beta?", &beta, "alpha?", &alpha); err != nil {
		return nil, err
	}
	if len(v1.Shape()) != 1 || len(v2.Shape()) != 1 {
		return nil, fmt.Errorf("%s: vec1 and vec2 must be 1-d, got shapes %v and %v", b.Name, v1.Shape(), v2.Shape())
	}
	// the vectors multiplied in the result's dtype, as torch
	dt := ops.PromoteAll([]tensor.Meta{in.Meta(), v1.Meta(), v2.Meta()})
	c := newChain(th)
	return named(b.Name)(c.Result(c.addScaled(b.Name, in, c.Op(ops.Outer, nil, c.Cast(v1, dt), c.Cast(v2, dt)), beta, alpha, true)))
}

// bmmOperands checks batch1 [b, n, m] and batch2 [b, m, p] of baddbmm and
// addbmm.
func bmmOperands(fname string, b1, b2 *refs.Ref) error {
	s1, s2 := b1.Shape(), b2.Shape()
	switch {
	case len(s1) != 3 || len(s2) != 3:
		return fmt.Errorf("%s: batch1 and batch2 must be 3-d, got shapes %v and %v", fname, s1, s2)
	case s1[0] != s2[0]:
		return fmt.Errorf("%s: batch1 and batch2 must have the same number of batches, got %d and %d", fname, s1[0], s2[0])
	case s1[2] != s2[1]:
		return fmt.Errorf("%s: batch1 %v and batch2 %v do not align (%d != %d)", fname, s1, s2, s1[2], s2[1])
	}
	return sameDType(fname, "batch1", "batch2", b1, b2)
}

func baddbmmBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var in, b1, b2 *refs.Ref
	beta, alpha := 1.0, 1.0
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input", &in, "batch1", &b1, "batch2", &b2, "beta?", &beta, "alpha?", &alpha); err != nil {
		return nil, err
	}
	if err := bmmOperands(b.Name, b1, b2); err != nil {
		return nil, err
	}
	c := newChain(th)
	return named(b.Name)(c.Result(c.addScaled(b.Name, in, c.Op(ops.Matmul, nil, b1, b2), beta, alpha, false)))
}

func addbmmBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var in, b1, b2 *refs.Ref
	beta, alpha := 1.0, 1.0
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input", &in, "batch1", &b1, "batch2", &b2, "beta?", &beta, "alpha?", &alpha); err != nil {
		return nil, err
	}
	if err := bmmOperands(b.Name, b1, b2); err != nil {
		return nil, err
	}
	if err := sameDType(b.Name, "input", "the batches", in, b1); err != nil {
		return nil, err
	}
	// Σ_b batch1[b] @ batch2[b] is one product: [n, b·m] @ [b·m, p].
	s1, s2 := b1.Shape(), b2.Shape()
	bn, n, m, p := s1[0], s1[1], s1[2], s2[2]
	c := newChain(th)
	left := c.Reshape(c.Op(ops.Permute, ops.PermuteAttrs{Dims: []int{1, 0, 2}}, b1), tensor.Shape{n, bn * m})
	right := c.Reshape(b2, tensor.Shape{bn * m, p})
	return named(b.Name)(c.Result(c.addScaled(b.Name, in, c.Op(ops.Matmul, nil, left, right), beta, alpha, false)))
}

func kronBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x, y *refs.Ref
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input", &x, "other", &y); err != nil {
		return nil, err
	}
	r := max(len(x.Shape()), len(y.Shape()))
	xs, ys := ops.PadOnes(x.Shape(), r), ops.PadOnes(y.Shape(), r)
	// x as [x0, 1, x1, 1, ...] times y as [1, y0, 1, y1, ...] is
	// [x0, y0, x1, y1, ...], which merges pairwise into the result.
	xl, yl := make(tensor.Shape, 0, 2*r), make(tensor.Shape, 0, 2*r)
	out := make(tensor.Shape, r)
	for i := range r {
		xl = append(xl, xs[i], 1)
		yl = append(yl, 1, ys[i])
		out[i] = xs[i] * ys[i]
	}
	wide := make(tensor.Shape, 0, 2*r)
	for i := range r {
		wide = append(wide, xs[i], ys[i])
	}
	if _, err := tensor.CheckedNumel(wide); err != nil {
		return nil, fmt.Errorf("%s: %v", b.Name, err)
	}
	c := newChain(th)
	prod := c.Op(ops.Mul, nil, c.Reshape(x, xl), c.Reshape(y, yl))
	return named(b.Name)(c.Result(c.Reshape(prod, out)))
}

func matrixPowerBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var a *refs.Ref
	var n int
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input", &a, "n", &n); err != nil {
		return nil, err
	}
	s := a.Shape()
	if r := len(s); r < 2 || s[r-1] != s[r-2] {
		return nil, fmt.Errorf("%s: expected square matrices [..., k, k], got shape %v", b.Name, s)
	}
	k := s[len(s)-1]
	c := newChain(th)
	if n == 0 {
		eye, err := identity(th, b.Name, k, k, a.DType())
		if err != nil {
			return c.Abort(err)
		}
		return c.Result(c.Expand(c.Host(eye), s))
	}
	if n < 0 {
		if !a.DType().IsFloat() {
			return c.Abort(fmt.Errorf("%s: a negative n inverts the input, which must be floating point, got %s", b.Name, a.DType()))
		}
		if n == math.MinInt {
			return c.Abort(fmt.Errorf("%s: n %d is out of range", b.Name, n))
		}
		a = c.inverted(b.Name, a)
		n = -n
	}
	mm := func(p, q *refs.Ref) *refs.Ref { return c.Op(ops.Matmul, nil, p, q) }
	switch n {
	case 1:
		return named(b.Name)(c.Result(a))
	case 2:
		return named(b.Name)(c.Result(mm(a, a)))
	case 3:
		return named(b.Name)(c.Result(mm(mm(a, a), a)))
	}
	// torch's binary decomposition of n, from the least significant bit:
	// z runs through a, a², a⁴, ... and result gathers the set bits.
	var z, result *refs.Ref
	for n > 0 {
		bit := n % 2
		n /= 2
		if z == nil {
			z = a
		} else {
			z = mm(z, z)
		}
		if bit == 1 {
			if result == nil {
				result = z
			} else {
				result = mm(result, z)
			}
		}
		if c.Err() != nil {
			break
		}
	}
	return named(b.Name)(c.Result(result))
}

// weightsArg reads cov's fweights or aweights (none: nil): a tensor of at
// most one dimension with one weight per observation, of an integer
// (fweights) or floating-point (aweights) dtype, none negative. The
// weights are read on the host for that check, as torch does.
func weightsArg(th *eval.Thread, fname, param string, v eval.Value, obs int) (*refs.Ref, *tensor.Dense, error) {
	if _, none := v.(eval.NoneType); none || v == nil {
		return nil, nil, nil
	}
	t, ok := v.(eval.Tensor)
	if !ok {
		return nil, nil, fmt.Errorf("%s: %s must be a tensor or none, not %s", fname, param, eval.Describe(v))
	}
	w := t.Ref
	switch {
	case len(w.Shape()) > 1:
		return nil, nil, fmt.Errorf("%s: expected %s to have one or fewer dimensions, got shape %v", fname, param, w.Shape())
	case param == "fweights" && (!w.DType().IsInt() || w.DType() == tensor.Bool):
		return nil, nil, fmt.Errorf("%s: expected fweights to have an integer dtype, got %s", fname, w.DType())
	case param == "aweights" && !w.DType().IsFloat():
		return nil, nil, fmt.Errorf("%s: expected aweights to have a floating-point dtype, got %s", fname, w.DType())
	case w.Shape().Numel() != obs:
		return nil, nil, fmt.Errorf("%s: expected %s to have as many elements as there are observations in the input, got %d != %d", fname, param, w.Shape().Numel(), obs)
	}
	d, err := th.RT.Read(w)
	if err != nil {
		return nil, nil, err
	}
	for i := range d.Numel() {
		if d.At(i) < 0 {
			return nil, nil, fmt.Errorf("%s: %s cannot be negative", fname, param)
		}
	}
	return w, d, nil
}

func covBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	correction := 1
	var fv, av eval.Value = eval.None, eval.None
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input", &x, "correction?", &correction, "fweights?", &fv, "aweights?", &av); err != nil {
		return nil, err
	}
	if err := covInput(b.Name, x); err != nil {
		return nil, err
	}
	obs := 1
	if s := x.Shape(); len(s) > 0 {
		obs = s[len(s)-1]
	}
	fw, fd, err := weightsArg(th, b.Name, "fweights", fv, obs)
	if err != nil {
		return nil, err
	}
	aw, ad, err := weightsArg(th, b.Name, "aweights", av, obs)
	if err != nil {
		return nil, err
	}
	if fd != nil || ad != nil {
		// The weights (products of both when both are given) are
		// non-negative, so they sum to zero only when each is zero.
		zero := true
		for i := range obs {
			if (fd == nil || fd.At(i) != 0) && (ad == nil || ad.At(i) != 0) {
				zero = false
				break
			}
		}
		if zero {
			return nil, fmt.Errorf("%s: the weights sum to zero, so they cannot normalise", b.Name)
		}
	}
	c := newChain(th)
	return named(b.Name)(c.Result(c.cov(x, correction, fw, aw)))
}

// covInput checks cov's and corrcoef's input: at most 2-d, not bool.
func covInput(fname string, x *refs.Ref) error {
	if len(x.Shape()) > 2 {
		return fmt.Errorf("%s: expected input to have two or fewer dimensions, got shape %v", fname, x.Shape())
	}
	if x.DType() == tensor.Bool {
		return fmt.Errorf("%s: bool inputs are not supported", fname)
	}
	return nil
}

// cov is torch.cov(x, correction, fweights=fw, aweights=aw) (weights nil
// when absent) with torch 1.13's steps: the weighted mean of each row,
// the centred product, divided by a normalisation factor that is zero
// when it would be negative or zero.
func (c *chain) cov(x *refs.Ref, correction int, fw, aw *refs.Ref) *refs.Ref {
	s := x.Shape()
	in := x
	if len(s) < 2 {
		in = c.Reshape(x, tensor.Shape{1, s.Numel()})
	}
	if c.Err() != nil {
		return nil
	}
	obs := in.Shape()[1]
	w := fw
	if aw != nil {
		if w != nil {
			w = c.Op(ops.Mul, nil, w, aw)
		} else {
			w = aw
		}
	}
	var wsum, weighted *refs.Ref
	if w != nil {
		wsum = c.Op(ops.Sum, ops.ReduceAttrs{}, w)
		weighted = c.Op(ops.Mul, nil, in, w)
	} else {
		wsum = c.Constant(ops.IntScalar(int64(obs)))
		weighted = in
	}
	avg := c.Op(ops.Div, nil, c.Op(ops.Sum, ops.ReduceAttrs{Dims: []int{1}}, weighted), wsum)
	var norm *refs.Ref
	switch {
	case w == nil:
		norm = c.Constant(ops.IntScalar(int64(max(obs-correction, 0))))
	case correction == 0:
		norm = wsum
	case aw == nil:
		norm = c.Op(ops.Sub, nil, wsum, c.Constant(ops.IntScalar(int64(correction))))
	default:
		waw := c.Op(ops.Sum, ops.ReduceAttrs{}, c.Op(ops.Mul, nil, w, aw))
		frac := c.Op(ops.Div, nil, c.Op(ops.Mul, nil, waw, c.Constant(ops.IntScalar(int64(correction)))), wsum)
		norm = c.Op(ops.Sub, nil, wsum, frac)
	}
	if w != nil && norm != nil {
		// torch zeroes a factor that is not positive (a warning there).
		zero := c.scalar(0, norm.DType())
		norm = c.Op(ops.Where, nil, c.Op(ops.Le, nil, norm, zero), zero, norm)
	}
	if avg == nil {
		return nil
	}
	centred := c.Op(ops.Sub, nil, in, c.Reshape(avg, tensor.Shape{avg.Shape()[0], 1}))
	other := centred
	if w != nil {
		other = c.Op(ops.Mul, nil, centred, w)
	}
	prod := c.Op(ops.Matmul, nil, centred, c.Op(ops.Permute, ops.PermuteAttrs{Dims: []int{1, 0}}, other))
	if prod != nil && !prod.DType().IsFloat() {
		prod = c.Cast(prod, tensor.Float32)
	}
	r := c.Op(ops.Div, nil, prod, norm)
	if r == nil {
		return nil
	}
	// squeeze(): a single variable gives a 0-d result.
	var sq tensor.Shape
	for _, d := range r.Shape() {
		if d != 1 {
			sq = append(sq, d)
		}
	}
	if sq == nil {
		sq = tensor.Shape{}
	}
	return c.Reshape(r, sq)
}

func corrcoefBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input", &x); err != nil {
		return nil, err
	}
	if err := covInput(b.Name, x); err != nil {
		return nil, err
	}
	c := newChain(th)
	cv := c.cov(x, 1, nil, nil)
	if cv == nil {
		return named(b.Name)(c.Result(nil))
	}
	if len(cv.Shape()) == 0 {
		// One variable: NaN for a variance of NaN, ±inf or 0, else 1.
		return named(b.Name)(c.Result(c.Op(ops.Div, nil, cv, cv)))
	}
	v := cv.Shape()[0]
	std := c.Op(ops.Sqrt, nil, c.diagonal(b.Name, cv, 0, 0, 1))
	r := c.Op(ops.Div, nil, cv, c.Reshape(std, tensor.Shape{v, 1}))
	r = c.Op(ops.Div, nil, r, c.Reshape(std, tensor.Shape{1, v}))
	return named(b.Name)(c.Result(c.Op(ops.Clamp, ops.ClampAttrs{Min: -1, Max: 1, HasMin: true, HasMax: true}, r)))
}
