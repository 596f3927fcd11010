package stdlib

import (
	"fmt"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// torch.linalg's LU family: lu_factor, lu, lu_unpack and lu_solve, on
// the lu op (partial pivoting, LAPACK's getrf). The pivots a user passes
// back are read on the host (lu_unpack and lu_solve wait for them) and
// turned into a permutation matrix there.

func init() {
	register("lu_factor", `lu_factor(A, pivot=true): {LU, pivots} for A[..., m, n] by Gaussian elimination with partial pivoting (LAPACK's getrf): LU[..., m, n] holds U on and above its diagonal and L's multipliers below it (L's unit diagonal implied), pivots[..., min(m, n)] the int32 rows exchanged, counted from 1; float32 and float64; a zero on U's diagonal (a singular A) is an error, as torch's (lu allows it) (torch.linalg.lu_factor)`, luFactorBuiltin)
	register("lu", `lu(A, pivot=true): {P, L, U} with A = P @ L @ U for A[..., m, n]: the permutation matrix P[..., m, m], unit lower triangular L[..., m, k] and upper triangular U[..., k, n] (k = min(m, n)), by partial pivoting as lu_factor; a singular A is allowed; the gradient is torch's and needs U's diagonal nonzero (torch.linalg.lu)`, luBuiltin)
	register("lu_unpack", `lu_unpack(LU_data, LU_pivots, unpack_data=true, unpack_pivots=true): {P, L, U} from lu_factor's results; unpack_data=false leaves L and U empty, unpack_pivots=false P; the pivots are read on the host and must lie in [1, m] (torch.lu_unpack)`, luUnpackBuiltin)
	register("lu_solve", `lu_solve(LU, pivots, B, left=true, adjoint=false): X with A @ X = B (left=false: X @ A = B; adjoint: Aᵀ in place of A) for the square A that lu_factor gave LU[..., n, n] and pivots[..., n] of, B[..., n, k] (left=false: B[..., k, n]); batch dimensions broadcast; the pivots are read on the host (torch.linalg.lu_solve; torch.lu_solve's older order of arguments is not taken)`, luSolveBuiltin)
}

// luInput reads lu's and lu_factor's arguments, A and pivot, and then
// those of more (UnpackArgs's pairs); pivot=false (LU without row
// exchanges, which torch has only on CUDA) is refused.
func luInput(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg, more ...any) (*refs.Ref, error) {
	var a *refs.Ref
	pivot := true
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, append([]any{"A|input", &a, "pivot?", &pivot}, more...)...); err != nil {
		return nil, err
	}
	if !pivot {
		return nil, fmt.Errorf("%s: pivot=false (LU without row exchanges) is not supported; torch has it only on CUDA", b.Name)
	}
	return a, nil
}

func luFactorBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	a, err := luInput(th, b, args, kwargs)
	if err != nil {
		return nil, err
	}
	c := newChain(th)
	f := factors(c, ops.LU, ops.LUAttrs{Check: true}, a)
	if f == nil {
		return named(b.Name)(c.Result(nil))
	}
	return named(b.Name)(c.Record([]string{"LU", "pivots"}, f[0], c.Cast(f[1], tensor.Int32)))
}

func luBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	a, err := luInput(th, b, args, kwargs)
	if err != nil {
		return nil, err
	}
	c := newChain(th)
	f := factors(c, ops.LU, ops.LUAttrs{}, a)
	if f == nil {
		return named(b.Name)(c.Result(nil))
	}
	bu := c.builder()
	l, u := bu.LUTriangles(f[0])
	return named(b.Name)(c.Record([]string{"P", "L", "U"}, c.Ref(bu.PermutationMatrix(f[2])), c.Ref(l), c.Ref(u)))
}

// luPacked checks lu_factor's results as a user hands them back: LU a
// float32 or float64 [..., m, n], pivots an integer [..., min(m, n)].
func luPacked(fname string, lu, pivots *refs.Ref) error {
	s := lu.Shape()
	if dt := lu.DType(); dt != tensor.Float32 && dt != tensor.Float64 {
		return fmt.Errorf("%s: LU must be float32 or float64 (as lu_factor gives it), not %v", fname, dt)
	}
	if len(s) < 2 {
		return fmt.Errorf("%s: LU must be matrices [..., m, n], not of shape %v", fname, s)
	}
	if dt := pivots.DType(); dt != tensor.Int32 && dt != tensor.Int64 {
		return fmt.Errorf("%s: pivots must be int32 (as lu_factor gives them) or int64, not %v", fname, dt)
	}
	r := len(s)
	if want := append(s[:r-2].Clone(), min(s[r-2], s[r-1])); !pivots.Shape().Equal(want) {
		return fmt.Errorf("%s: pivots of shape %v do not go with LU of shape %v: want %v", fname, pivots.Shape(), s, want)
	}
	return nil
}

// hostPermutation reads pivots (counted from 1, as lu_factor gives them)
// on the host and returns the permutation matrices [..., m, m] they
// make, in dt.
func (c *chain) hostPermutation(fname string, pivots *refs.Ref, m int, dt tensor.DType) *refs.Ref {
	if c.Err() != nil {
		return nil
	}
	th := c.Thread()
	piv, err := th.RT.Read(pivots)
	if err != nil {
		return c.fail(err)
	}
	ps := pivots.Shape()
	k := ps[len(ps)-1]
	batch := ps[:len(ps)-1]
	perm, err := newHost(th, fname, append(batch.Clone(), m), dt)
	if err != nil {
		return c.fail(err)
	}
	rows := make([]int, m)
	for b := range batch.Numel() {
		for i := range rows {
			rows[i] = i
		}
		for i := range k {
			p := piv.At(b*k + i)
			if p < 1 || p > float64(m) {
				c.Host(perm) // released with the chain
				return c.fail(fmt.Errorf("%s: pivot %v (element %d) is outside [1, %d]: pivots must come from lu_factor of this LU", fname, p, b*k+i, m))
			}
			rows[i], rows[int(p)-1] = rows[int(p)-1], rows[i]
		}
		for i, r := range rows {
			perm.Set(b*m+i, float64(r))
		}
	}
	return c.Ref(c.builder().PermutationMatrix(c.Host(perm)))
}

// Ref is a builder's tensor as the chain's ref.
func (c *chain) Ref(t ops.T) *refs.Ref {
	if t == nil || c.Err() != nil {
		return nil
	}
	return t.(*refs.Ref)
}

func luUnpackBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var lu, pivots *refs.Ref
	data, pivs := true, true
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "LU_data", &lu, "LU_pivots", &pivots, "unpack_data?", &data, "unpack_pivots?", &pivs); err != nil {
		return nil, err
	}
	if err := luPacked(b.Name, lu, pivots); err != nil {
		return nil, err
	}
	c := newChain(th)
	empty := func() *refs.Ref {
		return c.Host(tensor.NewDense(tensor.Meta{Shape: tensor.Shape{0}, DType: lu.DType()}))
	}
	p, l, u := empty(), empty(), empty()
	s := lu.Shape()
	if pivs {
		p = c.hostPermutation(b.Name, pivots, s[len(s)-2], lu.DType())
	}
	if data {
		lt, ut := c.builder().LUTriangles(lu)
		l, u = c.Ref(lt), c.Ref(ut)
	}
	return named(b.Name)(c.Record([]string{"P", "L", "U"}, p, l, u))
}

func luSolveBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var lu, pivots, rhs *refs.Ref
	left, adjoint := true, false
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "LU", &lu, "pivots", &pivots, "B", &rhs, "left?", &left, "adjoint?", &adjoint); err != nil {
		return nil, err
	}
	n, err := ops.SquareBatch(b.Name, lu.Meta())
	if err != nil {
		return nil, err
	}
	if err := luPacked(b.Name, lu, pivots); err != nil {
		return nil, err
	}
	bs := rhs.Shape()
	if len(bs) < 2 {
		return nil, fmt.Errorf("%s: B of shape %v: expected matrices B[..., %d, k] (left=false: B[..., k, %d])", b.Name, bs, n, n)
	}
	if rows := bs[len(bs)-2]; (left && rows != n) || (!left && bs[len(bs)-1] != n) {
		want := fmt.Sprintf("B[..., %d, k]", n)
		if !left {
			want = fmt.Sprintf("B[..., k, %d]", n)
		}
		return nil, fmt.Errorf("%s: B of shape %v does not go with A of shape %v: want %s", b.Name, bs, lu.Shape(), want)
	}
	if rhs.DType() != lu.DType() {
		return nil, fmt.Errorf("%s: LU is %v and B %v: they must have one dtype (use astype)", b.Name, lu.DType(), rhs.DType())
	}
	c := newChain(th)
	p := c.hostPermutation(b.Name, pivots, n, lu.DType())
	if left {
		return named(b.Name)(c.Result(c.luSolveLeft(b.Name, p, lu, rhs, adjoint)))
	}
	// X·A = B is Aᵀ·Xᵀ = Bᵀ, and X·Aᵀ = B is A·Xᵀ = Bᵀ.
	return named(b.Name)(c.Result(c.Transpose(c.luSolveLeft(b.Name, p, lu, c.Transpose(rhs), !adjoint))))
}

// luSolveLeft is X with A·X = B (adjoint: Aᵀ·X = B) for A = P·L·U
// packed in lu: U⁻¹·L⁻¹·Pᵀ·B, or P·L⁻ᵀ·U⁻ᵀ·B, by triangular solves that
// read lu's triangles (L's diagonal taken as ones).
func (c *chain) luSolveLeft(fname string, p, lu, rhs *refs.Ref, adjoint bool) *refs.Ref {
	if c.Err() != nil {
		return nil
	}
	if adjoint {
		lut := c.Transpose(lu)
		y := c.triangularSolve(fname, lut, c.triangularSolve(fname, lut, rhs, false, false), true, true)
		return c.Op(ops.Matmul, nil, p, y)
	}
	y := c.triangularSolve(fname, lu, c.Op(ops.Matmul, nil, c.Transpose(p), rhs), false, true)
	return c.triangularSolve(fname, lu, y, true, false)
}
