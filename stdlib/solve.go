package stdlib

import (
	"fmt"
	"math"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

func init() {
	register("det", "det(A): the determinant of each square matrix A[..., n, n], of shape [...]; its gradient (det(A) times A⁻ᵀ) is an error at a singular A, where torch's is defined (torch.det, torch.linalg.det)", detBuiltin)
	register("inverse", "inverse(A): the inverse of each square matrix A[..., n, n]; a singular one is an error (torch.inverse, torch.linalg.inv)", inverseBuiltin)
	register("slogdet", "slogdet(A): {sign, logabsdet} of the determinant of each square matrix A[..., n, n]: its sign (0 when singular) and log|det(A)| (-inf when singular), without the overflow of det (torch.linalg.slogdet)", slogdetBuiltin)
	register("logdet", "logdet(A): log(det(A)) for each square matrix, NaN where the determinant is negative and -inf where A is singular, without the overflow of det (torch.logdet)", logdetBuiltin)
	register("cholesky", "cholesky(A, upper=false): the lower triangular L, with a positive diagonal, of L @ Lᵀ = A for each symmetric positive-definite A[..., n, n] (only A's lower triangle is read; upper=true gives the upper triangular U of Uᵀ @ U = A from A's upper triangle); one that is not positive-definite is an error (torch.linalg.cholesky)", choleskyBuiltin)
	register("cholesky_solve", "cholesky_solve(B, L, upper=false): X with A @ X = B for A = L @ Lᵀ given its Cholesky factor L[..., n, n] (only its lower triangle is read; upper=true: L is Lᵀ, its upper triangle read) and B[..., n, k]; batch dimensions broadcast; the gradient by L is torch's where L is triangular (torch.cholesky_solve)", choleskySolveBuiltin)
	register("cholesky_inverse", "cholesky_inverse(L, upper=false): the inverse of A = L @ Lᵀ given its Cholesky factor L[..., n, n] (as cholesky_solve reads it) (torch.cholesky_inverse)", choleskyInverseBuiltin)
	register("matrix_exp", "matrix_exp(A): the exponential of each square matrix A[..., n, n] (Padé approximants with scaling and squaring, Higham 2005); its gradient is torch's, itself a matrix_exp (torch.linalg.matrix_exp, torch.matrix_exp)", matrixExpBuiltin)
	register("solve_triangular", "solve_triangular(A, B, upper, left=true, unitriangular=false): X with A @ X = B (left=false: X @ A = B) reading only A's upper (upper=true) or lower triangle, its diagonal taken as ones when unitriangular; batch dimensions broadcast; the gradient reaches only that triangle, as torch's; by substitution, so a zero on the diagonal gives inf or NaN, as torch's (torch.linalg.solve_triangular)", solveTriangularBuiltin)
	register("solve", "solve(A, B): X with A @ X = B, for square A[..., n, n] and B[..., n, k] or B[..., n] (a vector per matrix); batch dimensions broadcast; a singular A is an error (torch.linalg.solve)", solveBuiltin)
}

func detBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var a *refs.Ref
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "A|input", &a); err != nil {
		return nil, err
	}
	c := newChain(th)
	return named(b.Name)(c.Result(c.Op(ops.Det, nil, a)))
}

func inverseBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var a *refs.Ref
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "A|input", &a); err != nil {
		return nil, err
	}
	c := newChain(th)
	return named(b.Name)(c.Result(c.inverted(b.Name, a)))
}

func solveBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var a, rhs *refs.Ref
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "A|input", &a, "B|other", &rhs); err != nil {
		return nil, err
	}
	c := newChain(th)
	return named(b.Name)(c.Result(solveSystems(c, b.Name, a, rhs, true)))
}

// solveSystems submits X with A @ X = B, for square A[..., n, n] and
// B[..., n, k], or (vectors) B[..., n]; batch dimensions broadcast.
func solveSystems(c *chain, name string, a, rhs *refs.Ref, vectors bool) *refs.Ref {
	return broadcastSystems(c, name, a, rhs, vectors, ops.Solve, nil)
}

// broadcastSystems is solveSystems by op (solve, or solve_triangular
// with attrs).
func broadcastSystems(c *chain, name string, a, rhs *refs.Ref, vectors bool, op ops.Op, attrs any) *refs.Ref {
	if c.Err() != nil {
		return nil
	}
	n, err := ops.SquareBatch(name, a.Meta())
	if err != nil {
		return c.fail(err)
	}
	if rhs.Meta().DType != a.Meta().DType {
		return c.fail(fmt.Errorf("%s: A is %v and B %v: they must have one dtype (use astype)", name, a.Meta().DType, rhs.Meta().DType))
	}
	as, bs := a.Shape(), rhs.Shape()
	vector := vectors && vectorRHS(as, bs)
	if len(bs) == 0 || (!vector && (len(bs) < 2 || bs[len(bs)-2] != n)) || (vector && bs[len(bs)-1] != n) {
		want := fmt.Sprintf("B[..., %d, k]", n)
		if vectors {
			want += fmt.Sprintf(" or B[..., %d]", n)
		}
		return c.fail(fmt.Errorf("%s: B of shape %v does not go with A of shape %v: want %s", name, bs, as, want))
	}
	if vector {
		rhs = c.Reshape(rhs, append(bs.Clone(), 1))
		bs = append(bs.Clone(), 1)
	}
	batch, err := tensor.Broadcast(as[:len(as)-2], bs[:len(bs)-2])
	if err != nil {
		return c.fail(fmt.Errorf("%s: the batch dimensions of A %v and B %v do not broadcast: %v", name, as, bs, err))
	}
	k := bs[len(bs)-1]
	if wantA := append(batch.Clone(), n, n); !as.Equal(wantA) {
		a = c.Expand(a, wantA)
	}
	if wantB := append(batch.Clone(), n, k); !bs.Equal(wantB) {
		rhs = c.Expand(rhs, wantB)
	}
	x := c.Op(op, attrs, a, rhs)
	if vector {
		x = c.Reshape(x, append(batch.Clone(), n))
	}
	return x
}

// vectorRHS says whether B of shape bs is a vector per matrix of A
// [..., n, n] of shape as, as torch reads it: 1-d, or A's shape without
// its last dimension.
func vectorRHS(as, bs tensor.Shape) bool {
	return len(bs) == 1 || (len(bs) == len(as)-1 && bs.Equal(as[:len(as)-1]))
}

// fail records err as the chain's error and returns nil.
func (c *chain) fail(err error) *refs.Ref {
	c.Fail(err)
	return nil
}

func choleskyBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var a *refs.Ref
	var upper bool
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "A|input", &a, "upper?", &upper); err != nil {
		return nil, err
	}
	c := newChain(th)
	if upper {
		// Uᵀ·U = A from A's upper triangle: the lower factor of Aᵀ.
		if _, err := ops.SquareBatch(b.Name, a.Meta()); err != nil {
			return c.Abort(err)
		}
		return named(b.Name)(c.Result(c.Transpose(c.Op(ops.Cholesky, nil, c.Transpose(a)))))
	}
	l := c.Op(ops.Cholesky, nil, a)
	return named(b.Name)(c.Result(l))
}

// choleskyFactor is the lower factor L that cholesky_solve and
// cholesky_inverse read from f: f's lower triangle (upper: fᵀ's). Its
// gradient reaches every entry of f, as torch's formulas' does, but is
// theirs evaluated at that triangle: the same where f is triangular, as
// a Cholesky factor is (torch's multiplies by all of f).
func choleskyFactor(c *chain, name string, f *refs.Ref, upper bool) *refs.Ref {
	if _, err := ops.SquareBatch(name, f.Meta()); err != nil {
		return c.fail(err)
	}
	if upper {
		f = c.Transpose(f)
	}
	strict := c.detached(func() *refs.Ref { return c.Op(ops.Trilu, ops.TriluAttrs{Diagonal: 1, Upper: true}, f) })
	return c.Op(ops.Sub, nil, f, strict)
}

func choleskySolveBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var rhs, f *refs.Ref
	var upper bool
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "B|input", &rhs, "L|input2", &f, "upper?", &upper); err != nil {
		return nil, err
	}
	c := newChain(th)
	l := choleskyFactor(c, b.Name, f, upper)
	y := solveSystems(c, b.Name, l, rhs, false)
	lt := c.Transpose(l)
	if y != nil && !y.Shape()[:len(y.Shape())-2].Equal(lt.Shape()[:len(lt.Shape())-2]) {
		lt = c.Expand(lt, append(y.Shape()[:len(y.Shape())-2].Clone(), lt.Shape()[len(lt.Shape())-2:]...))
	}
	return named(b.Name)(c.Result(solveSystems(c, b.Name, lt, y, false)))
}

func choleskyInverseBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var f *refs.Ref
	var upper bool
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "L|input", &f, "upper?", &upper); err != nil {
		return nil, err
	}
	c := newChain(th)
	l := choleskyFactor(c, b.Name, f, upper)
	y := c.inverted(b.Name, l)
	return named(b.Name)(c.Result(c.Op(ops.Solve, nil, c.Transpose(l), y)))
}

func slogdetBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var a *refs.Ref
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "A|input", &a); err != nil {
		return nil, err
	}
	c := newChain(th)
	sign, logAbs := slogdetParts(c, a)
	return c.Record([]string{"sign", "logabsdet"}, sign, logAbs)
}

func logdetBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var a *refs.Ref
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "A|input", &a); err != nil {
		return nil, err
	}
	c := newChain(th)
	sign, logAbs := slogdetParts(c, a)
	dt := a.DType()
	negative := c.Op(ops.Lt, nil, sign, c.scalar(0, dt))
	return c.Result(c.Op(ops.Where, nil, negative, c.scalar(math.NaN(), dt), logAbs))
}

// slogdetParts submits slogdet of a and splits it into the sign and the
// log of the absolute value.
func slogdetParts(c *chain, a *refs.Ref) (sign, logAbs *refs.Ref) {
	both := c.Op(ops.Slogdet, nil, a)
	return c.Op(ops.Index, &ops.IndexAttrs{Items: ops.AtAlong(0, 0)}, both), c.Op(ops.Index, &ops.IndexAttrs{Items: ops.AtAlong(0, 1)}, both)
}

// inverted submits the inverse of each square matrix a[..., n, n]: a
// solve against the identity, so that it differentiates (a singular a is
// the solve's error).
func (c *chain) inverted(fname string, a *refs.Ref) *refs.Ref {
	if c.Err() != nil {
		return nil
	}
	eye, err := identityFor(c.Thread(), fname, a)
	if err != nil {
		return c.fail(err)
	}
	return c.Op(ops.Solve, nil, a, c.Expand(c.Host(eye), a.Shape()))
}

// identityFor is the identity matrix of a's square matrices [..., n, n],
// in a's dtype, for solves that invert them.
func identityFor(th *eval.Thread, fname string, a *refs.Ref) (*tensor.Dense, error) {
	n, err := ops.SquareBatch(fname, a.Meta())
	if err != nil {
		return nil, err
	}
	return identity(th, fname, n, n, a.Meta().DType)
}

func matrixExpBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var a *refs.Ref
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "A|input", &a); err != nil {
		return nil, err
	}
	if err := checkDecompositionScratch(th, b.Name, a.Meta(), a.Meta()); err != nil {
		return nil, err
	}
	return th.Submit(ops.MatrixExp, nil, a)
}

func solveTriangularBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var a, rhs *refs.Ref
	var upper bool
	left, unit := true, false
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "A|input", &a, "B|other", &rhs, "upper", &upper, "left?", &left, "unitriangular?", &unit); err != nil {
		return nil, err
	}
	if _, err := ops.SquareBatch(b.Name, a.Meta()); err != nil {
		return nil, err
	}
	c := newChain(th)
	if left {
		return named(b.Name)(c.Result(c.triangularSolve(b.Name, a, rhs, upper, unit)))
	}
	// X·A = B is Aᵀ·Xᵀ = Bᵀ, Aᵀ's triangle the other one.
	if len(rhs.Shape()) < 2 {
		return c.Abort(fmt.Errorf("%s: B of shape %v: expected B[..., k, n]", b.Name, rhs.Shape()))
	}
	return named(b.Name)(c.Result(c.Transpose(c.triangularSolve(b.Name, c.Transpose(a), c.Transpose(rhs), !upper, unit))))
}

// triangularSolve is X with T·X = B, T the upper (or lower) triangle of
// A, its diagonal ones when unit; batch dimensions broadcast.
func (c *chain) triangularSolve(fname string, a, rhs *refs.Ref, upper, unit bool) *refs.Ref {
	return broadcastSystems(c, fname, a, rhs, false, ops.TriangularSolve, ops.TriangularAttrs{Upper: upper, Unit: unit})
}
