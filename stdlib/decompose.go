package stdlib

import (
	"fmt"
	"math"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// torch.linalg's decompositions and what is built on them: qr, eigh,
// svd, pinv, lstsq, matrix_rank, matrix_norm and cond.

const signNote = "; each vector's entry of largest magnitude is made positive (torch leaves the sign to LAPACK), and where vectors are not unique (repeated values, completed bases) backends may pick different ones"

func init() {
	register("qr", `qr(A, mode="reduced"): {Q, R} with A = Q @ R for A[..., m, n] by Householder reflections, Q with orthonormal columns and R upper triangular, their signs LAPACK's: mode "reduced" gives Q[..., m, k], R[..., k, n] (k = min(m, n)), "complete" Q[..., m, m], R[..., m, n], "r" an empty Q and the reduced R; its gradient needs a full-rank A (else inf or NaN, as torch's) and is not defined for "complete" with m > n (torch.linalg.qr; torch's "r" has no gradient, tref's has)`, qrBuiltin)
	register("eigh", `eigh(A, UPLO="L"): {eigenvalues, eigenvectors} of each symmetric A[..., n, n] from its lower (UPLO="U": upper) triangle, the values ascending and the vectors the columns of eigenvectors, by Householder tridiagonalisation and implicit QL on cpu`+signNote+`; the gradient divides by differences of eigenvalues (inf or NaN where they repeat and the eigenvectors have a cotangent, as torch's) (torch.linalg.eigh)`, eighBuiltin(false))
	register("eigvalsh", `eigvalsh(A, UPLO="L"): the eigenvalues of each symmetric A[..., n, n], ascending, from its lower (UPLO="U": upper) triangle (torch.linalg.eigvalsh)`, eighBuiltin(true))
	register("svd", `svd(A, full_matrices=true): {U, S, Vh} with A = U @ diag(S) @ Vh for A[..., m, n], S descending, by one-sided Jacobi on cpu: U[..., m, m] and Vh[..., n, n], or with full_matrices=false U[..., m, k] and Vh[..., k, n] (k = min(m, n))`+signNote+`; non-finite input is an error; the gradient divides by differences of squared singular values and ignores the completed columns of full U and Vh, as torch's (torch.linalg.svd; torch.svd(A) is svd(A, full_matrices=false) with V = Vh.mT)`, svdBuiltin)
	register("svdvals", `svdvals(A): the singular values of each A[..., m, n], descending, of shape [..., min(m, n)] (torch.linalg.svdvals)`, svdvalsBuiltin)
	register("pinv", `pinv(A, atol=none, rtol=none, hermitian=false): the pseudo-inverse [..., n, m] of A[..., m, n], from the singular values above max(atol, rtol * the largest) (rtol defaults to eps * max(m, n), or to 0 when atol > 0 is given); hermitian reads A's lower triangle as a symmetric matrix and uses its eigenvalues; the gradient is torch's (constant rank) (torch.linalg.pinv)`, pinvBuiltin)
	register("pinverse", `pinverse(input, rcond=1e-15): pinv(input, rtol=rcond) (torch.pinverse)`, pinverseBuiltin)
	register("lstsq", `lstsq(A, B, rcond=none): {solution, residuals, rank, singular_values} for A[..., m, n] and B[..., m, k] (or B[..., m], a vector per matrix): the least-squares solution [..., n, k] (or [..., n]) of smallest norm, pinv(A, rtol=rcond) @ B (rcond defaults to eps * max(m, n)), and, as torch's default cpu driver gelsy gives them, an empty residuals, the rank (singular values above rcond times the largest) and an empty singular_values; batch dimensions broadcast (torch.linalg.lstsq; gelsy estimates the rank from a pivoted QR, so it may differ at the tolerance)`, lstsqBuiltin)
	register("matrix_rank", `matrix_rank(A, atol=none, rtol=none, hermitian=false): the number of singular values of each A[..., m, n] above max(atol, rtol * the largest), int64 of shape [...] (rtol as pinv's; hermitian: eigenvalues in magnitude) (torch.linalg.matrix_rank)`, matrixRankBuiltin)
	register("matrix_norm", `matrix_norm(A, ord="fro", dim=[-2, -1], keepdim=false): the matrix norm over the two dimensions dim: "fro", "nuc" (the sum of the singular values), inf and -inf (the largest and smallest sum of absolute values along a row), 1 and -1 (along a column), 2 and -2 (the largest and smallest singular value) (torch.linalg.matrix_norm)`, matrixNormBuiltin)
	register("cond", `cond(A, p=none): the condition number of each A[..., m, n]: for p none, 2 or -2 the ratio of its largest and smallest singular values (inf for a singular A); for "fro", "nuc", inf, -inf, 1 and -1 matrix_norm(A, p) * matrix_norm(inverse(A), p) for a square A (a singular one is an error, where torch gives inf) (torch.linalg.cond)`, condBuiltin)
}

// factors submits op over a and cuts its packed result into the factors.
func factors(c *chain, op ops.Op, attrs ops.Decomposition, a *refs.Ref) []*refs.Ref {
	if c.Err() != nil {
		return nil
	}
	if m, err := op.Def().Infer([]tensor.Meta{a.Meta()}, attrs); err == nil {
		if err := checkDecompositionScratch(c.Thread(), op.Name(), a.Meta(), m); err != nil {
			c.Fail(err)
			return nil
		}
	}
	packed := c.Op(op, attrs, a)
	if c.Err() != nil {
		return nil
	}
	ts := c.builder().Unpack(packed, a.Meta(), attrs)
	if c.Err() != nil {
		return nil
	}
	parts := make([]*refs.Ref, len(ts))
	for i, t := range ts {
		parts[i] = t.(*refs.Ref)
	}
	return parts
}

func qrBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var a *refs.Ref
	mode := "reduced"
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "A|input", &a, "mode?", &mode); err != nil {
		return nil, err
	}
	if mode != "reduced" && mode != "complete" && mode != "r" {
		return nil, fmt.Errorf("%s: mode must be \"reduced\", \"complete\" or \"r\", not %q", b.Name, mode)
	}
	c := newChain(th)
	f := factors(c, ops.QR, ops.QRAttrs{Complete: mode == "complete"}, a)
	if f == nil {
		return c.Result(nil)
	}
	if mode == "r" {
		f[0] = c.Host(tensor.NewDense(tensor.Meta{Shape: tensor.Shape{0}, DType: a.DType()}))
	}
	return c.Record([]string{"Q", "R"}, f...)
}

// checkDecompositionScratch refuses, before it runs, a decomposition of
// in into out whose working memory on the cpu backend (float64 copies of
// the input and the factors, the basis completing U, transposes: about
// four times in and out in float64) the host cannot hold.
func checkDecompositionScratch(th *eval.Thread, name string, in, out tensor.Meta) error {
	words := int64(in.Shape.Numel()) + int64(out.Shape.Numel())
	if err := th.RT.HostPool().Check(4 * 8 * words); err != nil {
		return fmt.Errorf("%s: its working memory: %v", name, err)
	}
	return nil
}

// uplo reads eigh's UPLO argument: whether A's upper triangle is read.
func uplo(fname, v string) (bool, error) {
	switch v {
	case "L", "l":
		return false, nil
	case "U", "u":
		return true, nil
	}
	return false, fmt.Errorf("%s: UPLO must be \"L\" or \"U\", not %q", fname, v)
}

// eighBuiltin is eigh, or with valuesOnly eigvalsh.
func eighBuiltin(valuesOnly bool) eval.BuiltinFunc {
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		var a *refs.Ref
		side := "L"
		if err := eval.UnpackArgs(th, b.Name, args, kwargs, "A|input", &a, "UPLO?", &side); err != nil {
			return nil, err
		}
		upper, err := uplo(b.Name, side)
		if err != nil {
			return nil, err
		}
		c := newChain(th)
		f := factors(c, ops.Eigh, ops.EighAttrs{Upper: upper}, a)
		if f == nil {
			return c.Result(nil)
		}
		if valuesOnly {
			return c.Result(f[0])
		}
		return c.Record([]string{"eigenvalues", "eigenvectors"}, f...)
	}
}

func svdBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var a *refs.Ref
	full := true
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "A|input", &a, "full_matrices?", &full); err != nil {
		return nil, err
	}
	c := newChain(th)
	f := factors(c, ops.SVD, ops.SVDAttrs{Full: full}, a)
	if f == nil {
		return c.Result(nil)
	}
	return c.Record([]string{"U", "S", "Vh"}, f...)
}

func svdvalsBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var a *refs.Ref
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "A|input", &a); err != nil {
		return nil, err
	}
	c := newChain(th)
	return c.Result(singularValues(c, a))
}

// singularValues submits the singular values of a, [..., min(m, n)].
func singularValues(c *chain, a *refs.Ref) *refs.Ref {
	f := factors(c, ops.SVD, ops.SVDAttrs{}, a)
	if f == nil {
		return nil
	}
	return f[1]
}

// epsilon is the machine epsilon of a float dtype's arithmetic in the
// decompositions (halves are computed in float32).
func epsilon(dt tensor.DType) float64 {
	if dt == tensor.Float64 {
		return 0x1p-52
	}
	return 0x1p-23
}

// rankArgs reads the arguments of pinv and matrix_rank: A, atol, rtol
// and hermitian.
func rankArgs(th *eval.Thread, fname string, args []eval.Value, kwargs []eval.Kwarg) (*refs.Ref, ops.PinvAttrs, error) {
	var a *refs.Ref
	atolv, rtolv := eval.Value(eval.None), eval.Value(eval.None)
	var at ops.PinvAttrs
	if err := eval.UnpackArgs(th, fname, args, kwargs, "A|input", &a, "atol?", &atolv, "rtol?", &rtolv, "hermitian?", &at.Hermitian); err != nil {
		return nil, at, err
	}
	var err error
	at.Atol, at.Rtol, err = tolerances(th, fname, a, atolv, rtolv)
	return a, at, err
}

// tolerances reads atol and rtol (numbers or none) with torch's
// defaults: atol 0; rtol eps * max(m, n), or 0 when atol > 0 is given.
func tolerances(th *eval.Thread, fname string, a *refs.Ref, atolv, rtolv eval.Value) (atol, rtol float64, err error) {
	atol, hasAtol, err := optFloat(th, fname, "atol", atolv)
	if err != nil {
		return 0, 0, err
	}
	rtol, hasRtol, err := optFloat(th, fname, "rtol", rtolv)
	if err != nil {
		return 0, 0, err
	}
	if !hasRtol {
		rtol = 0
		if s := a.Shape(); (!hasAtol || atol <= 0) && len(s) >= 2 {
			rtol = epsilon(a.DType()) * float64(max(s[len(s)-1], s[len(s)-2]))
		}
	}
	return atol, rtol, nil
}

func pinvBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	a, at, err := rankArgs(th, b.Name, args, kwargs)
	if err != nil {
		return nil, err
	}
	if m, err := ops.Pinv.Def().Infer([]tensor.Meta{a.Meta()}, at); err == nil {
		if err := checkDecompositionScratch(th, b.Name, a.Meta(), m); err != nil {
			return nil, err
		}
	}
	return th.Submit(ops.Pinv, at, a)
}

func pinverseBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var a *refs.Ref
	rcond := 1e-15
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|A", &a, "rcond?", &rcond); err != nil {
		return nil, err
	}
	return th.Submit(ops.Pinv, ops.PinvAttrs{Rtol: rcond}, a)
}

func lstsqBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var a, rhs *refs.Ref
	rcondv := eval.Value(eval.None)
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "A|input", &a, "B|other", &rhs, "rcond?", &rcondv); err != nil {
		return nil, err
	}
	_, rtol, err := tolerances(th, b.Name, a, eval.None, rcondv)
	if err != nil {
		return nil, err
	}
	as, bs := a.Shape(), rhs.Shape()
	// B a vector per matrix, as torch reads it: A's shape without its
	// last dimension.
	vector := len(as) >= 2 && bs.Equal(as[:len(as)-1])
	if len(as) < 2 || (!vector && (len(bs) < 2 || bs[len(bs)-2] != as[len(as)-2])) {
		return nil, fmt.Errorf("%s: expected A[..., m, n] and B[..., m, k] (or B[..., m]), got shapes %v and %v", b.Name, as, bs)
	}
	if a.DType() != rhs.DType() {
		return nil, fmt.Errorf("%s: A is %v and B %v: they must have one dtype (use astype)", b.Name, a.DType(), rhs.DType())
	}
	if !a.DType().IsFloat() {
		return nil, fmt.Errorf("%s: expected float tensors, got %v", b.Name, a.DType())
	}
	pa := ops.PinvAttrs{Rtol: rtol}
	if m, err := ops.Pinv.Def().Infer([]tensor.Meta{a.Meta()}, pa); err == nil {
		if err := checkDecompositionScratch(th, b.Name, a.Meta(), m); err != nil {
			return nil, err
		}
	}
	c := newChain(th)
	if vector {
		rhs = c.Reshape(rhs, append(bs.Clone(), 1))
	}
	x := c.Op(ops.Matmul, nil, c.Op(ops.Pinv, pa, a), rhs)
	if vector && x != nil {
		x = c.Reshape(x, append(as[:len(as)-2].Clone(), as[len(as)-1]))
	}
	rank := c.rank(a, 0, rtol, false)
	empty := c.Host(tensor.NewDense(tensor.Meta{Shape: tensor.Shape{0}, DType: a.DType()}))
	return c.Record([]string{"solution", "residuals", "rank", "singular_values"}, x, empty, rank, empty)
}

// rank submits the number of singular values (hermitian: eigenvalues in
// magnitude) of a above max(atol, rtol * the largest), int64 [...].
func (c *chain) rank(a *refs.Ref, atol, rtol float64, hermitian bool) *refs.Ref {
	if c.Err() != nil {
		return nil
	}
	if !a.DType().IsFloat() {
		return c.fail(fmt.Errorf("expected a float tensor, got %v", a.DType()))
	}
	var s *refs.Ref
	if hermitian {
		if f := factors(c, ops.Eigh, ops.EighAttrs{}, a); f != nil {
			s = c.Op(ops.Abs, nil, f[0])
		}
	} else {
		s = singularValues(c, a)
	}
	if s == nil {
		return nil
	}
	k := s.Shape()[len(s.Shape())-1]
	largest := c.scalar(0, s.DType())
	if k > 0 {
		largest = c.Op(ops.Max, ops.ReduceAttrs{Dims: []int{-1}, Keepdim: true}, s)
	}
	tol := c.Op(ops.Maximum, nil, c.Op(ops.Mul, nil, largest, c.scalar(rtol, s.DType())), c.scalar(atol, s.DType()))
	return c.Op(ops.Sum, ops.ReduceAttrs{Dims: []int{-1}}, c.Cast(c.Op(ops.Gt, nil, s, tol), tensor.Int64))
}

func matrixRankBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	a, at, err := rankArgs(th, b.Name, args, kwargs)
	if err != nil {
		return nil, err
	}
	if len(a.Shape()) < 2 {
		return nil, fmt.Errorf("%s: expected matrices [..., m, n], got shape %v", b.Name, a.Shape())
	}
	c := newChain(th)
	r := c.rank(a, at.Atol, at.Rtol, at.Hermitian)
	if err := c.Err(); err != nil {
		return c.Abort(fmt.Errorf("%s: %w", b.Name, err))
	}
	return c.Result(r)
}

// matrixOrd is a matrix norm's order: "fro", "nuc" or a number (±1, ±2,
// ±inf).
func matrixOrd(th *eval.Thread, fname string, v eval.Value) (string, float64, error) {
	if s, ok := v.(eval.String); ok {
		if s == "fro" || s == "nuc" {
			return string(s), 0, nil
		}
		return "", 0, fmt.Errorf("%s: ord must be \"fro\", \"nuc\", inf, -inf, 1, -1, 2 or -2, not %q", fname, string(s))
	}
	f, ok := th.AsFloat(v)
	if !ok || !(math.Abs(f) == 1 || math.Abs(f) == 2 || math.IsInf(f, 0)) {
		return "", 0, fmt.Errorf("%s: ord must be \"fro\", \"nuc\", inf, -inf, 1, -1, 2 or -2, not %s", fname, eval.Describe(v))
	}
	return "", f, nil
}

// matrixNorm submits the norm of order (name or p) of each matrix a[...,
// m, n], of shape [...].
func (c *chain) matrixNorm(a *refs.Ref, name string, p float64) *refs.Ref {
	if c.Err() != nil {
		return nil
	}
	if !c.floatInput("matrix_norm", a) {
		return nil
	}
	r := len(a.Shape())
	abs := func() *refs.Ref { return c.Op(ops.Abs, nil, a) }
	extreme := func(x *refs.Ref, largest bool) *refs.Ref {
		op := ops.Min
		if largest {
			op = ops.Max
		}
		return c.Op(op, ops.ReduceAttrs{Dims: []int{-1}}, x)
	}
	switch {
	case name == "fro":
		return c.Op(ops.Norm, ops.VectorNormAttrs{P: 2, Dims: []int{r - 2, r - 1}}, a)
	case name == "nuc":
		return c.Op(ops.Sum, ops.ReduceAttrs{Dims: []int{-1}}, singularValues(c, a))
	case math.IsInf(p, 0):
		return extreme(c.Op(ops.Sum, ops.ReduceAttrs{Dims: []int{-1}}, abs()), p > 0)
	case math.Abs(p) == 1:
		return extreme(c.Op(ops.Sum, ops.ReduceAttrs{Dims: []int{-2}}, abs()), p > 0)
	}
	return extreme(singularValues(c, a), p > 0)
}

func matrixNormBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var a *refs.Ref
	ordv := eval.Value(eval.String("fro"))
	dimv := eval.Value(eval.None)
	keepdim := false
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "A|input", &a, "ord?", &ordv, "dim?", &dimv, "keepdim?", &keepdim); err != nil {
		return nil, err
	}
	name, p, err := matrixOrd(th, b.Name, ordv)
	if err != nil {
		return nil, err
	}
	r := len(a.Shape())
	dims := []int{-2, -1}
	if _, none := dimv.(eval.NoneType); !none {
		if dims, err = dimsArg(th, b.Name, dimv, true); err != nil {
			return nil, err
		}
	}
	if r < 2 || len(dims) != 2 {
		return nil, fmt.Errorf("%s: expected a tensor of at least 2 dimensions and two dims, got shape %v and dims %v", b.Name, a.Shape(), dims)
	}
	c := newChain(th)
	return c.Result(c.matrixNormAlong(b.Name, a, name, p, dims, keepdim))
}

// matrixNormAlong submits the matrix norm (matrixNorm) over the two
// dimensions dims of a.
func (c *chain) matrixNormAlong(fname string, a *refs.Ref, name string, p float64, dims []int, keepdim bool) *refs.Ref {
	r := len(a.Shape())
	d0, err0 := tensor.NormDim(dims[0], r)
	d1, err1 := tensor.NormDim(dims[1], r)
	if err0 != nil || err1 != nil || d0 == d1 {
		return c.fail(fmt.Errorf("%s: dims %v are not two distinct dimensions of a tensor of shape %v", fname, dims, a.Shape()))
	}
	// The two dimensions last, in dim's order.
	perm := make([]int, 0, r)
	for i := range r {
		if i != d0 && i != d1 {
			perm = append(perm, i)
		}
	}
	perm = append(perm, d0, d1)
	norm := c.matrixNorm(c.Op(ops.Permute, ops.PermuteAttrs{Dims: perm}, a), name, p)
	if keepdim && norm != nil {
		s := a.Shape().Clone()
		s[d0], s[d1] = 1, 1
		norm = c.Reshape(norm, s)
	}
	return norm
}

func condBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var a *refs.Ref
	pv := eval.Value(eval.None)
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "A|input", &a, "p?", &pv); err != nil {
		return nil, err
	}
	name, p := "", 2.0
	if _, none := pv.(eval.NoneType); !none {
		var err error
		if name, p, err = matrixOrd(th, b.Name, pv); err != nil {
			return nil, err
		}
	}
	if len(a.Shape()) < 2 {
		return nil, fmt.Errorf("%s: expected matrices [..., m, n], got shape %v", b.Name, a.Shape())
	}
	c := newChain(th)
	if !c.floatInput(b.Name, a) {
		return c.Result(nil)
	}
	if as := a.Shape(); as[len(as)-1] == 0 || as[len(as)-2] == 0 {
		// torch: 0 for empty matrices.
		zero := c.Op(ops.Sum, ops.ReduceAttrs{Dims: []int{-2, -1}}, c.Op(ops.Abs, nil, a))
		return c.Result(zero)
	}
	if name == "" && math.Abs(p) == 2 {
		s := singularValues(c, a)
		if c.Err() != nil {
			return c.Result(nil)
		}
		k := s.Shape()[len(s.Shape())-1]
		first := c.Op(ops.Index, &ops.IndexAttrs{Items: ops.AtAlong(len(s.Shape())-1, 0)}, s)
		last := c.Op(ops.Index, &ops.IndexAttrs{Items: ops.AtAlong(len(s.Shape())-1, max(k-1, 0))}, s)
		if p < 0 {
			first, last = last, first
		}
		return c.Result(c.Op(ops.Div, nil, first, last))
	}
	inv := c.inverted(b.Name, a)
	return c.Result(c.Op(ops.Mul, nil, c.matrixNorm(a, name, p), c.matrixNorm(inv, name, p)))
}

// nuclearNorm is torch.norm(x, p="nuc", dim, keepdim): the matrix norm
// "nuc" of a matrix x, or over the two dimensions dim.
func nuclearNorm(th *eval.Thread, fname string, x *refs.Ref, dimv eval.Value, keepdim bool) (eval.Value, error) {
	dims := []int{0, 1}
	if _, none := dimv.(eval.NoneType); none {
		if len(x.Shape()) != 2 {
			return nil, fmt.Errorf("%s: the nuclear norm of a tensor of shape %v needs dim, two dimensions (or a matrix)", fname, x.Shape())
		}
	} else {
		var err error
		if dims, err = dimsArg(th, fname, dimv, true); err != nil {
			return nil, err
		}
		if len(dims) != 2 {
			return nil, fmt.Errorf("%s: the nuclear norm needs dim to be two dimensions, got %v", fname, dims)
		}
	}
	c := newChain(th)
	return c.Result(c.matrixNormAlong(fname, x, "nuc", 0, dims, keepdim))
}
