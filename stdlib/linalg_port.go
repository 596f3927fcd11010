package stdlib

import (
	"fmt"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/autograd"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// More of torch.linalg composed of tref's ops: vecdot, tensorinv and
// tensorsolve (reshapes around inverse and solve), and the _ex forms of
// inv, solve, lu_factor and cholesky, which report each matrix's failure
// in an int32 info (LAPACK's) instead of failing.

func init() {
	register("vecdot", "vecdot(x, y, dim=-1): the dot products of x and y along dim, sum(x * y, dim), after broadcasting them (floating point, one dtype) (torch.linalg.vecdot)", vecdotBuiltin)
	register("tensorinv", "tensorinv(A, ind=2): the inverse of A read as a matrix of prod(A.shape[:ind]) rows and prod(A.shape[ind:]) columns (their products equal), of shape A.shape[ind:] + A.shape[:ind], so that tensordot(tensorinv(A, ind), A, ind) is the identity; a singular one is an error (torch.linalg.tensorinv)", tensorinvBuiltin)
	register("tensorsolve", "tensorsolve(A, B, dims=none): X with tensordot(A, X, X.ndim) = B, of shape A.shape[B.ndim:] (after dims, when given, are moved last in A), A read as a square matrix of prod(A.shape[B.ndim:]) columns and B as a vector; a singular A is an error (torch.linalg.tensorsolve)", tensorsolveBuiltin)
	register("inv_ex", "inv_ex(A, check_errors=false): {inverse, info} for square A[..., n, n] (float32, float64): info int32 [...], 0 where A is invertible, else the index (from 1) of the first zero on the diagonal of U in the LU factorization torch 1.13 makes (of Aᵀ, by partial pivoting; tref's lu kernel works in float64 with fused multiply-adds, so a pivot that only rounding zeroes may come out otherwise than in torch's LAPACK); where it is not 0 the inverse holds what the substitutions with that zero give (inf and NaN; torch leaves it unspecified); check_errors=true makes a nonzero info an error; differentiable where A is invertible (torch.linalg.inv_ex)", invExBuiltin)
	register("solve_ex", "solve_ex(A, B, left=true, check_errors=false): {result, info}: X with A @ X = B (left=false: X @ A = B) for square A[..., n, n] and B[..., n, k] or B[..., n] (left=false: B[..., k, n] only, as torch), batch dimensions broadcast; info int32 [...] of A's batch, as inv_ex's, and the result where it is not 0 what the substitutions give (inf and NaN; torch leaves it unspecified); check_errors=true makes a nonzero info an error; differentiable where A is invertible (torch.linalg.solve_ex)", solveExBuiltin)
	register("lu_factor_ex", "lu_factor_ex(A, pivot=true, check_errors=false): {LU, pivots, info}: lu_factor's LU and pivots of A[..., m, n] without failing on a zero pivot, and info int32 [...], 0 where U's diagonal has no zero, else the index (from 1) of the first zero (LAPACK's getrf, which goes on past it, as torch's; zero in the lu kernel's arithmetic, as inv_ex's); check_errors=true makes a nonzero info an error; pivot=false is refused, as lu_factor (torch.linalg.lu_factor_ex)", luFactorExBuiltin)
	register("cholesky_ex", "cholesky_ex(A, upper=false, check_errors=false): {L, info}: cholesky's factor of A[..., n, n] (from its lower triangle; upper=true: U with Uᵀ @ U = A, from its upper one) and info int32 [...], 0 where A is positive-definite, else the order of its first leading minor that is not (a NaN is not a failure, as torch's); where info is not 0, L holds the columns before that order, the failing pivot on its diagonal and A's own entries below and right of it (LAPACK's unblocked potf2, which torch 1.13 gives for small matrices; torch leaves it unspecified) and no gradient reaches that matrix; info comes from a factorization column by column composed of tref's ops in float64, n steps (the cpu kernel's arithmetic, so that both agree on which matrices fail; on a backend whose cholesky decides otherwise for a borderline matrix, that matrix is an error); check_errors=true makes a nonzero info an error (torch.linalg.cholesky_ex)", choleskyExBuiltin)
}

func vecdotBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x, y *refs.Ref
	dim := -1
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "x|input", &x, "y|other", &y, "dim?", &dim); err != nil {
		return nil, err
	}
	if !x.DType().IsFloat() {
		return nil, fmt.Errorf("%s: expected floating-point tensors, got %s", b.Name, x.DType())
	}
	if x.DType() != y.DType() {
		return nil, fmt.Errorf("%s: x is %s and y %s: they must have one dtype (use astype)", b.Name, x.DType(), y.DType())
	}
	s, err := tensor.Broadcast(x.Shape(), y.Shape())
	if err != nil {
		return nil, fmt.Errorf("%s: x of shape %v and y of shape %v do not broadcast", b.Name, x.Shape(), y.Shape())
	}
	c := newChain(th)
	prod := c.Op(ops.Mul, nil, x, y)
	if len(s) == 0 && (dim == 0 || dim == -1) {
		return named(b.Name)(c.Result(prod)) // torch sums a 0-d tensor over its dimension -1: itself
	}
	d, err := dimOf(b.Name, dim, s)
	if err != nil {
		return c.Abort(err)
	}
	return named(b.Name)(c.Result(c.Op(ops.Sum, ops.ReduceAttrs{Dims: []int{d}}, prod)))
}

func tensorinvBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var a *refs.Ref
	ind := 2
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "A|input", &a, "ind?", &ind); err != nil {
		return nil, err
	}
	s := a.Shape()
	if ind <= 0 {
		return nil, fmt.Errorf("%s: ind must be positive, got %d", b.Name, ind)
	}
	if ind > len(s) {
		return nil, fmt.Errorf("%s: ind %d is more than the %d dimensions of A of shape %v", b.Name, ind, len(s), s)
	}
	rows, cols := s[:ind].Numel(), s[ind:].Numel()
	if rows != cols {
		return nil, fmt.Errorf("%s: A of shape %v with ind=%d is not square: prod(A.shape[:ind]) = %d but prod(A.shape[ind:]) = %d", b.Name, s, ind, rows, cols)
	}
	c := newChain(th)
	inv := c.inverted(b.Name, c.Reshape(a, tensor.Shape{rows, rows}))
	return named(b.Name)(c.Result(c.Reshape(inv, append(s[ind:].Clone(), s[:ind]...))))
}

func tensorsolveBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var a, rhs *refs.Ref
	dimsV := eval.Value(eval.None)
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "A|input", &a, "B|other", &rhs, "dims?", &dimsV); err != nil {
		return nil, err
	}
	s := a.Shape()
	given, err := dimsArg(th, b.Name, dimsV, true)
	if err != nil {
		return nil, err
	}
	// dims move last, in their order, the others keeping theirs.
	moved := make([]bool, len(s))
	var last []int
	for _, g := range given {
		d, err := dimOf(b.Name, g, s)
		if err != nil {
			return nil, err
		}
		if moved[d] {
			return nil, fmt.Errorf("%s: dim %d appears more than once in dims %v", b.Name, d, tensor.Shape(given))
		}
		moved[d] = true
		last = append(last, d)
	}
	var perm []int
	for d := range s {
		if !moved[d] {
			perm = append(perm, d)
		}
	}
	perm = append(perm, last...)
	ps := make(tensor.Shape, len(s))
	for i, d := range perm {
		ps[i] = s[d]
	}
	bs := rhs.Shape()
	if len(bs) > len(ps) {
		return nil, fmt.Errorf("%s: B of shape %v has more dimensions than A of shape %v", b.Name, bs, s)
	}
	rows, cols := ps[:len(bs)].Numel(), ps[len(bs):].Numel()
	if cols != bs.Numel() || rows != cols {
		return nil, fmt.Errorf("%s: A of shape %v does not go with B of shape %v: prod(A.shape[:B.ndim]) = %d, prod(A.shape[B.ndim:]) = %d and B's %d elements must be equal", b.Name, ps, bs, rows, cols, bs.Numel())
	}
	c := newChain(th)
	matrix := c.Reshape(c.permuted(a, perm), tensor.Shape{rows, rows})
	x := solveSystems(c, b.Name, matrix, c.Reshape(rhs, tensor.Shape{rows}), true)
	return named(b.Name)(c.Result(c.Reshape(x, ps[len(bs):].Clone())))
}

func invExBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var a *refs.Ref
	check := false
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "A|input", &a, "check_errors?", &check); err != nil {
		return nil, err
	}
	if err := luDType(b.Name, a); err != nil {
		return nil, err
	}
	eye, err := identityFor(th, b.Name, a)
	if err != nil {
		return nil, err
	}
	c := newChain(th)
	x, info := c.solveEx(b.Name, a, c.Expand(c.Host(eye), a.Shape()), true)
	return c.exRecord(b.Name, check, []string{"inverse", "info"}, singularInfo, x, info)
}

func solveExBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var a, rhs *refs.Ref
	left, check := true, false
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "A|input", &a, "B|other", &rhs, "left?", &left, "check_errors?", &check); err != nil {
		return nil, err
	}
	c := newChain(th)
	x, info := c.solveEx(b.Name, a, rhs, left)
	return c.exRecord(b.Name, check, []string{"result", "info"}, singularInfo, x, info)
}

func luFactorExBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	check := false
	a, err := luInput(th, b, args, kwargs, "check_errors?", &check)
	if err != nil {
		return nil, err
	}
	c := newChain(th)
	if f := factors(c, ops.LU, ops.LUAttrs{}, a); f != nil {
		return c.exRecord(b.Name, check, []string{"LU", "pivots", "info"}, func(subject string, k int) string {
			return fmt.Sprintf("U[%d, %d] of %s is zero: it is singular, and lu_solve would divide by it (without check_errors, lu_factor_ex allows it)", k-1, k-1, subject)
		}, f[0], c.Cast(f[1], tensor.Int32), c.zeroPivot(b.Name, f[0]))
	}
	return named(b.Name)(c.Result(nil))
}

func choleskyExBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var a *refs.Ref
	upper, check := false, false
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "A|input", &a, "upper?", &upper, "check_errors?", &check); err != nil {
		return nil, err
	}
	if _, err := ops.SquareBatch(b.Name, a.Meta()); err != nil {
		return nil, err
	}
	c := newChain(th)
	if upper {
		// Uᵀ·U = A from A's upper triangle: the lower factor of Aᵀ.
		a = c.Transpose(a)
	}
	l, info := c.choleskyEx(b.Name, a)
	if upper {
		l = c.Transpose(l)
	}
	return c.exRecord(b.Name, check, []string{"L", "info"}, func(subject string, k int) string {
		return fmt.Sprintf("%s is not positive-definite (its leading minor of order %d is not)", subject, k)
	}, l, info)
}

// luDType checks that a holds float32 or float64 values, the lu op's.
func luDType(fname string, a *refs.Ref) error {
	if dt := a.DType(); dt != tensor.Float32 && dt != tensor.Float64 {
		return fmt.Errorf("%s: expected float32 or float64 matrices, got %s", fname, dt)
	}
	return nil
}

// singularInfo is inv_ex's and solve_ex's failure for info k.
func singularInfo(subject string, k int) string {
	return fmt.Sprintf("%s is singular (the diagonal element %d of its LU factorization is zero)", subject, k)
}

// exRecord is the record keys of an _ex builtin's results outs, the last
// its info; with check, the first matrix that info flags is an error,
// what(subject, code) saying why.
func (c *chain) exRecord(fname string, check bool, keys []string, what func(subject string, code int) string, outs ...*refs.Ref) (eval.Value, error) {
	if info := outs[len(outs)-1]; check && c.Err() == nil {
		d, err := c.Thread().RT.Read(info)
		if err != nil {
			return named(fname)(c.Abort(err))
		}
		for i := range d.Numel() {
			if code := int(d.At(i)); code != 0 {
				subject := "A"
				if len(info.Shape()) > 0 {
					subject = fmt.Sprintf("matrix %d of A's batch", i)
				}
				return c.Abort(fmt.Errorf("%s: %s", fname, what(subject, code)))
			}
		}
	}
	return named(fname)(c.Record(keys, outs...))
}

// solveEx is X with A·X = B (left: X·A = B) and LAPACK's info, as torch
// 1.13's solve_ex computes them: the LU factors of Aᵀ (by partial
// pivoting, not failing on a zero pivot), info the first zero on U's
// diagonal, and the solution by substitution with them (inf or NaN where
// a pivot is zero). B may be a vector per matrix (left only, as torch);
// batch dimensions broadcast.
func (c *chain) solveEx(fname string, a, rhs *refs.Ref, left bool) (x, info *refs.Ref) {
	n, err := ops.SquareBatch(fname, a.Meta())
	if err == nil {
		err = luDType(fname, a)
	}
	if err == nil && rhs.DType() != a.DType() {
		err = fmt.Errorf("%s: A is %v and B %v: they must have one dtype (use astype)", fname, a.DType(), rhs.DType())
	}
	if err != nil {
		c.Fail(err)
		return nil, nil
	}
	as, given := a.Shape(), rhs.Shape()
	bs := given
	vector := vectorRHS(as, bs)
	if vector && !left {
		c.Fail(fmt.Errorf("%s: B of shape %v is a vector per matrix, which goes only with left=true (X @ A = B needs B[..., k, %d])", fname, bs, n))
		return nil, nil
	}
	if vector {
		bs = append(bs.Clone(), 1)
		rhs = c.Reshape(rhs, bs)
	}
	r := len(bs)
	if r < 2 || (left && bs[r-2] != n) || (!left && bs[r-1] != n) {
		want := fmt.Sprintf("B[..., %d, k] or B[..., %d]", n, n)
		if !left {
			want = fmt.Sprintf("B[..., k, %d]", n)
		}
		c.Fail(fmt.Errorf("%s: B of shape %v does not go with A of shape %v: want %s", fname, given, as, want))
		return nil, nil
	}
	f := factors(c, ops.LU, ops.LUAttrs{}, c.Transpose(a))
	if f == nil {
		return nil, nil
	}
	lu := f[0]
	info = c.zeroPivot(fname, lu)
	// Row i of Pᵀ·Aᵀ is row perm[i] of Aᵀ. P is applied by moving rows,
	// as getrs does, not by a product, whose 0·inf would be NaN.
	perm := c.Cast(f[2], tensor.Int64)
	if left {
		// A = (P·L·U)ᵀ: X = P·L⁻ᵀ·U⁻ᵀ·B, row perm[i] of X row i of L⁻ᵀ·U⁻ᵀ·B.
		lut := c.Transpose(lu)
		y := c.triangularSolve(fname, lut, c.triangularSolve(fname, lut, rhs, false, false), true, true)
		x = c.rowsAt(y, c.Op(ops.Argsort, ops.SortAttrs{Dim: -1}, perm))
	} else {
		// X·A = B is Aᵀ·Xᵀ = Bᵀ: Xᵀ = U⁻¹·L⁻¹·Pᵀ·Bᵀ.
		y := c.triangularSolve(fname, lu, c.rowsAt(c.Transpose(rhs), perm), false, true)
		x = c.Transpose(c.triangularSolve(fname, lu, y, true, false))
	}
	if vector && x != nil {
		xs := x.Shape()
		x = c.Reshape(x, xs[:len(xs)-1].Clone())
	}
	return x, info
}

// rowsAt is y [..., n, k] with row i taken from row idx[i] of y, for idx
// [..., n] (int64; batch dimensions broadcast).
func (c *chain) rowsAt(y, idx *refs.Ref) *refs.Ref {
	if c.Err() != nil {
		return nil
	}
	ys, is := y.Shape(), idx.Shape()
	r := len(ys)
	batch, err := tensor.Broadcast(ys[:r-2], is[:len(is)-1])
	if err != nil {
		return c.fail(err)
	}
	full := append(batch.Clone(), ys[r-2:]...)
	at := c.Expand(c.Reshape(idx, append(is.Clone(), 1)), full)
	return c.Op(ops.Gather, ops.DimAttrs{Dim: len(full) - 2}, c.Expand(y, full), at)
}

// zeroPivot is getrf's info for the packed LU factors lu [..., m, n]: the
// index (from 1) of the first zero on U's diagonal, 0 where there is
// none, int32 [...].
func (c *chain) zeroPivot(fname string, lu *refs.Ref) *refs.Ref {
	diag := c.diagonal(fname, lu, 0, -2, -1)
	if diag == nil {
		return nil
	}
	return c.firstTrue(c.Op(ops.Eq, nil, diag, c.scalar(0, diag.DType())))
}

// firstTrue is the position (from 1) of the first true along the last
// dimension of mask [..., k], 0 where none is, int32 [...]: LAPACK's info
// over a mask of failures.
func (c *chain) firstTrue(mask *refs.Ref) *refs.Ref {
	if c.Err() != nil {
		return nil
	}
	s := mask.Shape()
	k := s[len(s)-1]
	batch := s[:len(s)-1].Clone()
	if k == 0 {
		return c.Cast(c.Expand(c.Constant(ops.IntScalar(0)), batch), tensor.Int32)
	}
	pos := make([]int64, k)
	for i := range pos {
		pos[i] = int64(i + 1)
	}
	none := c.Constant(ops.IntScalar(int64(k + 1)))
	first := c.Op(ops.Min, ops.ReduceAttrs{Dims: []int{-1}}, c.Op(ops.Where, nil, mask, c.hostInts(pos, tensor.Shape{k}), none))
	first = c.Op(ops.Where, nil, c.Op(ops.Eq, nil, first, none), c.Constant(ops.IntScalar(0)), first)
	return c.Cast(first, tensor.Int32)
}

// choleskyEx is the lower Cholesky factor of each a [..., n, n] (its lower
// triangle read) and LAPACK's info. Which matrices fail, and where, comes
// from potf2's factorization column by column, run as ops in float64
// without a gradient: the pivot of column j is Sⱼ[0, 0] of the Schur
// complement Sⱼ, each update Sⱼ₊₁ = Sⱼ[1:, 1:] - l·lᵀ subtracting its
// products one column at a time as the cpu kernel's sums do, so that the
// two agree bit for bit on the pivots; a matrix fails at the first pivot
// at or below 0 (NaN is not a failure, as LAPACK's). The matrices that do
// not fail take the cholesky op's factor (and its gradient); the others
// potf2's partial one, with no gradient.
func (c *chain) choleskyEx(fname string, a *refs.Ref) (l, info *refs.Ref) {
	if c.Err() != nil {
		return nil, nil
	}
	th := c.Thread()
	s := a.Shape()
	r, n := len(s), s[len(s)-1]
	batch := s[:r-2].Clone()
	if n == 0 {
		return c.Op(ops.Cholesky, nil, a), c.Cast(c.Expand(c.Constant(ops.IntScalar(0)), batch), tensor.Int32)
	}
	eye, err := identity(th, fname, n, n, a.DType())
	if err != nil {
		return c.fail(err), nil
	}
	bn := batch.Numel()
	var partial, failed *refs.Ref
	if err := autograd.Paused(th.RT, func() error {
		pivots, cols := c.potf2(c.Reshape(c.Cast(a, tensor.Float64), tensor.Shape{bn, n, n}))
		if c.Err() != nil {
			return nil
		}
		d := c.Op(ops.Stack, ops.CatAttrs{Dim: 1}, pivots...) // [bn, n]
		lc := c.Op(ops.Stack, ops.CatAttrs{Dim: 2}, cols...)  // [bn, n, n], column j the j-th
		info = c.firstTrue(c.Op(ops.Le, nil, d, c.scalar(0, tensor.Float64)))
		// potf2's factor of a failed matrix: the columns before the failing
		// one j = info - 1, the failing pivot at [j, j], A's lower triangle
		// elsewhere.
		at := c.Reshape(c.Op(ops.Sub, nil, c.Cast(info, tensor.Int64), c.Constant(ops.IntScalar(1))), tensor.Shape{bn, 1, 1})
		idx := make([]int64, n)
		for i := range idx {
			idx[i] = int64(i)
		}
		col, row := c.hostInts(idx, tensor.Shape{1, n}), c.hostInts(idx, tensor.Shape{n, 1})
		onPivot := c.Op(ops.BitwiseAnd, nil, c.Op(ops.Eq, nil, col, at), c.Op(ops.Eq, nil, row, at))
		rest := c.Op(ops.Where, nil, onPivot, c.Reshape(d, tensor.Shape{bn, 1, n}), c.Op(ops.Trilu, ops.TriluAttrs{}, c.Reshape(c.Cast(a, tensor.Float64), tensor.Shape{bn, n, n})))
		partial = c.Cast(c.Reshape(c.Op(ops.Where, nil, c.Op(ops.Lt, nil, col, at), lc, rest), s), a.DType())
		failed = c.Reshape(c.Op(ops.Gt, nil, info, c.Constant(ops.IntScalar(0))), append(batch.Clone(), 1, 1))
		info = c.Reshape(info, batch)
		return nil
	}); err != nil {
		c.Fail(err)
	}
	factor := c.Op(ops.Cholesky, nil, c.Op(ops.Where, nil, failed, c.Host(eye), a))
	return c.Op(ops.Where, nil, failed, partial, factor), info
}

// potf2 runs the unblocked right-looking Cholesky factorization of each
// s [b, n, n] (float64, its lower triangle read) and returns each
// column's pivot [b] (before its square root) and the factor's columns
// [b, n] (zero above the diagonal, whatever a failed pivot gives at and
// after it). Each step's Schur complement is released once the next is
// made, so that it holds n² numbers per matrix at a time, not n³.
func (c *chain) potf2(s *refs.Ref) (pivots, cols []*refs.Ref) {
	if s == nil {
		return nil, nil
	}
	th := c.Thread()
	bn, n := s.Shape()[0], s.Shape()[1]
	th.RT.Retain(s)
	keep := func(r *refs.Ref) *refs.Ref {
		th.RT.Retain(r)
		return c.Keep(r)
	}
	at := func(i int) ops.IndexItem { return ops.IndexItem{Kind: ops.IndexAt, At: i} }
	for j := range n {
		rest := ops.IndexItem{Kind: ops.IndexSlice, Start: 1, Stop: n - j, HasStart: true, HasStop: true, Step: 1} // s[1:]
		step := newChain(th)
		pivot := step.Op(ops.Index, &ops.IndexAttrs{Items: []ops.IndexItem{ops.FullSlice, at(0), at(0)}}, s)
		root := step.Reshape(step.Op(ops.Sqrt, nil, pivot), tensor.Shape{bn, 1})
		below := step.Op(ops.Div, nil, step.Op(ops.Index, &ops.IndexAttrs{Items: []ops.IndexItem{ops.FullSlice, rest, at(0)}}, s), root)
		parts := []*refs.Ref{root, below}
		if j > 0 {
			parts = append([]*refs.Ref{step.Expand(step.scalar(0, tensor.Float64), tensor.Shape{bn, j})}, parts...)
		}
		col := step.Op(ops.Cat, ops.CatAttrs{Dim: 1}, parts...)
		var next *refs.Ref
		if j < n-1 {
			m := n - j - 1
			outer := step.Op(ops.Mul, nil, step.Reshape(below, tensor.Shape{bn, m, 1}), step.Reshape(below, tensor.Shape{bn, 1, m}))
			next = step.Op(ops.Sub, nil, step.Op(ops.Index, &ops.IndexAttrs{Items: []ops.IndexItem{ops.FullSlice, rest, rest}}, s), outer)
		}
		if err := step.Err(); err != nil {
			step.Release()
			c.Fail(err)
			break
		}
		pivots, cols = append(pivots, keep(pivot)), append(cols, keep(col))
		if next != nil {
			th.RT.Retain(next)
		}
		step.Release()
		th.RT.Release(s)
		s = next
	}
	if s != nil { // a step failed
		th.RT.Release(s)
	}
	return pivots, cols
}
