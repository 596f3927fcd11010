package cpu

import (
	"fmt"
	"math"
	"slices"

	"github.com/tref-lang/tref/internal/fmath"
	"github.com/tref-lang/tref/runtime/backend/cpu/gemm"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// solve and det: each matrix of the batch is factored, in float64, into
// P·A = L·U by Gaussian elimination with partial pivoting (LAPACK's
// getrf); cholesky factors A = L·Lᵀ column by column (potrf's order).
// Halves are computed in float32 and rounded, as torch does.

func init() {
	Register(ops.Solve, viaFloat32Inputs(solveKernel))
	Register(ops.Det, viaFloat32Inputs(detKernel))
	Register(ops.Cholesky, viaFloat32Inputs(choleskyKernel))
	Register(ops.Slogdet, viaFloat32Inputs(slogdetKernel))
	Register(ops.TriangularSolve, viaFloat32Inputs(triangularSolveKernel))
}

// slogdetKernel writes [sign, log|det|] of each matrix: the permutation's
// sign times the pivots' signs, and the sum of the pivots' logarithms, so
// that neither overflows where det would.
func slogdetKernel(out *tensor.Dense, ins []*tensor.Dense, _ any) error {
	if err := checkInputs("slogdet", ins, 1); err != nil {
		return err
	}
	n, err := ops.SquareBatch("slogdet", ins[0].Meta)
	if err != nil {
		return err
	}
	a := castTo(ins[0], tensor.Float64).F64()
	batch := out.Numel() / 2
	v := make([]float64, out.Numel())
	lu := make([]float64, n*n)
	perm := make([]int, n)
	for m := range batch {
		copy(lu, a[m*n*n:(m+1)*n*n])
		sign, singular := luFactor(lu, n, perm)
		if singular {
			v[m], v[batch+m] = 0, math.Inf(-1)
			continue
		}
		logAbs := 0.0
		for i := range n {
			p := lu[i*n+i]
			if p < 0 {
				sign = -sign
			}
			logAbs += fmath.Log(math.Abs(p))
		}
		v[m], v[batch+m] = sign, logAbs
	}
	storeFloat(out, v)
	return nil
}

func choleskyKernel(out *tensor.Dense, ins []*tensor.Dense, _ any) error {
	if err := checkInputs("cholesky", ins, 1); err != nil {
		return err
	}
	n, err := ops.SquareBatch("cholesky", ins[0].Meta)
	if err != nil {
		return err
	}
	a := castTo(ins[0], tensor.Float64).F64()
	l := make([]float64, len(a))
	for m := 0; m*n*n < len(a) && n > 0; m++ {
		if order := choleskyFactor(a[m*n*n:(m+1)*n*n], l[m*n*n:(m+1)*n*n], n); order > 0 {
			if len(a) == n*n {
				return fmt.Errorf("A is not positive-definite (its leading minor of order %d is not)", order)
			}
			return fmt.Errorf("matrix %d of A's batch is not positive-definite (its leading minor of order %d is not)", m, order)
		}
	}
	storeFloat(out, l)
	return nil
}

// choleskyFactor writes into l (zeroed) the lower triangular factor of
// the n×n row-major a, reading a's lower triangle. It returns 0, or the
// order of the first leading minor that is not positive. A NaN is not an
// error: it spreads through the factor, as in torch.
func choleskyFactor(a, l []float64, n int) int {
	for j := range n {
		d := a[j*n+j]
		for k := range j {
			d -= l[j*n+k] * l[j*n+k]
		}
		if d <= 0 {
			return j + 1
		}
		d = math.Sqrt(d)
		l[j*n+j] = d
		for i := j + 1; i < n; i++ {
			s := a[i*n+j]
			for k := range j {
				s -= l[i*n+k] * l[j*n+k]
			}
			l[i*n+j] = s / d
		}
	}
	return 0
}

func solveKernel(out *tensor.Dense, ins []*tensor.Dense, _ any) error {
	if err := checkInputs("solve", ins, 2); err != nil {
		return err
	}
	n, err := ops.SquareBatch("solve", ins[0].Meta)
	if err != nil {
		return err
	}
	a, b := castTo(ins[0], tensor.Float64).F64(), castTo(ins[1], tensor.Float64).F64()
	k := 0
	if s := out.Shape; len(s) > 0 {
		k = s[len(s)-1]
	}
	x := make([]float64, len(b))
	lu := make([]float64, n*n)
	perm := make([]int, n)
	for m := 0; m*n*n < len(a) && n > 0; m++ {
		copy(lu, a[m*n*n:(m+1)*n*n])
		if _, singular := luFactor(lu, n, perm); singular {
			if len(a) == n*n {
				return fmt.Errorf("A is singular")
			}
			return fmt.Errorf("matrix %d of A's batch is singular", m)
		}
		luSolve(lu, n, perm, b[m*n*k:(m+1)*n*k], x[m*n*k:(m+1)*n*k], k)
	}
	storeFloat(out, x)
	return nil
}

func detKernel(out *tensor.Dense, ins []*tensor.Dense, _ any) error {
	if err := checkInputs("det", ins, 1); err != nil {
		return err
	}
	n, err := ops.SquareBatch("det", ins[0].Meta)
	if err != nil {
		return err
	}
	a := castTo(ins[0], tensor.Float64).F64()
	d := make([]float64, out.Numel())
	lu := make([]float64, n*n)
	perm := make([]int, n)
	for m := range d {
		copy(lu, a[m*n*n:(m+1)*n*n])
		sign, singular := luFactor(lu, n, perm)
		if singular {
			continue // a zero pivot: the determinant is 0
		}
		d[m] = sign
		for i := range n {
			d[m] *= lu[i*n+i]
		}
	}
	storeFloat(out, d)
	return nil
}

// luFactor factors the n×n row-major matrix a in place into L (unit
// lower triangular, stored below the diagonal) and U, rows exchanged as
// perm records (row i of P·A is row perm[i] of A). It returns the
// permutation's sign and whether a pivot was zero (a singular matrix).
func luFactor(a []float64, n int, perm []int) (sign float64, singular bool) {
	sign, zero := luFactorRect(a, n, n, perm, nil)
	return sign, zero >= 0
}

// luFactorRect factors the m×n row-major matrix a in place as LAPACK's
// getrf does: for each of the first k = min(m, n) columns, the first row
// of largest magnitude at or below the diagonal is exchanged with the
// diagonal's (recorded in pivots[c], counted from 0, when pivots is not
// nil, and in perm: row i of P·A is row perm[i] of A), and the rows
// below are eliminated, their multipliers (L) stored where the zeros
// would be. It returns the permutation's sign and the first column whose
// pivot was zero (-1 for none); such a column is skipped and the others
// still eliminated, as LAPACK does.
//
// Past 2·luBlock columns it works as getrf does, by panels of luBlock
// columns: each panel is eliminated within itself, then the rows it
// pivoted on are solved for the columns to its right (U₁₂ = L₁₁⁻¹·A₁₂)
// and the rows below take one product, A₂₂ −= L₂₁·U₁₂ (Gemm): the same
// pivots and factors, most of the work in the product.
func luFactorRect(a []float64, m, n int, perm, pivots []int) (sign float64, zero int) {
	sign, zero = 1, -1
	for i := range perm {
		perm[i] = i
	}
	k := min(m, n)
	blocked := k > 2*luBlock
	for j0 := 0; j0 < k; j0 += luBlock {
		j1 := min(k, j0+luBlock)
		end := n // the columns the panel's eliminations update
		if blocked {
			end = j1
		}
		for c := j0; c < j1; c++ {
			p, best := c, math.Abs(a[c*n+c])
			for r := c + 1; r < m; r++ {
				if v := math.Abs(a[r*n+c]); v > best {
					p, best = r, v
				}
			}
			if pivots != nil {
				pivots[c] = p
			}
			if best == 0 {
				if zero < 0 {
					zero = c
				}
				continue
			}
			if p != c {
				for j := range n {
					a[c*n+j], a[p*n+j] = a[p*n+j], a[c*n+j]
				}
				perm[c], perm[p] = perm[p], perm[c]
				sign = -sign
			}
			pivot := a[c*n+c]
			for r := c + 1; r < m; r++ {
				f := a[r*n+c] / pivot
				a[r*n+c] = f
				if f != 0 {
					gemm.AxpyF64(-f, a[c*n+c+1:c*n+end], a[r*n+c+1:r*n+end])
				}
			}
		}
		if end < n {
			luUpdateTrailing(a, m, n, j0, j1)
		}
	}
	return sign, zero
}

// luBlock is the width of luFactorRect's panels.
const luBlock = 32

// luUpdateTrailing brings the columns right of the eliminated panel [j0,
// j1) up to date: the panel's rows by forward substitution with its unit
// lower triangle, the rows below by A₂₂ −= L₂₁·U₁₂.
func luUpdateTrailing(a []float64, m, n, j0, j1 int) {
	for r := j0; r < j1; r++ {
		for rr := r + 1; rr < j1; rr++ {
			if f := a[rr*n+r]; f != 0 {
				gemm.AxpyF64(-f, a[r*n+j1:r*n+n], a[rr*n+j1:rr*n+n])
			}
		}
	}
	rows, w := m-j1, j1-j0
	if rows == 0 {
		return
	}
	negL := make([]float64, rows*w)
	for r := range rows {
		for c, v := range a[(j1+r)*n+j0 : (j1+r)*n+j1] {
			negL[r*w+c] = -v
		}
	}
	gemm.Gemm(false, false, rows, n-j1, w, negL, w, a[j0*n+j1:], n, true, a[j1*n+j1:], n)
}

// luSolve writes into x (n×k, row-major) the solution of A·x = b from
// A's factors (luFactor): y from L·y = P·b, then x from U·x = y.
func luSolve(lu []float64, n int, perm []int, b, x []float64, k int) {
	for i := range n {
		copy(x[i*k:(i+1)*k], b[perm[i]*k:(perm[i]+1)*k])
	}
	triangularSolve(lu, n, false, true, x, k)
	triangularSolve(lu, n, true, false, x, k)
}

// triangularSolve overwrites x (n×k, row-major) with T⁻¹·x, T the lower
// (or upper) triangle of the n×n row-major t, its diagonal taken as ones
// when unit: substitution, each row of x less the solved rows times its
// entries of T (every entry, so that 0·inf is NaN as in LAPACK's trsm),
// then divided by the diagonal (a zero gives inf or NaN). With 8 or more
// columns past 2·luBlock rows it goes by blocks of luBlock rows, each
// first taking the rows solved before it in one product (Gemm).
func triangularSolve(t []float64, n int, upper, unit bool, x []float64, k int) {
	block := n
	if n > 2*luBlock && k >= 8 {
		block = luBlock
	}
	var scratch []float64
	// Rows [i0, i1) of x less T[i0:i1, j0:j1]·x[j0:j1].
	subtractSolved := func(i0, i1, j0, j1 int) {
		w := j1 - j0
		if w == 0 {
			return
		}
		scratch = slices.Grow(scratch[:0], (i1-i0)*w)[:(i1-i0)*w]
		for r := i0; r < i1; r++ {
			for c, v := range t[r*n+j0 : r*n+j1] {
				scratch[(r-i0)*w+c] = -v
			}
		}
		gemm.Gemm(false, false, i1-i0, k, w, scratch, w, x[j0*k:], k, true, x[i0*k:], k)
	}
	// Row i less T[i, j0:j1]·x[j0:j1], divided by T[i, i].
	solveRow := func(i, j0, j1 int) {
		row := x[i*k : (i+1)*k]
		for j := j0; j < j1; j++ {
			gemm.AxpyF64(-t[i*n+j], x[j*k:(j+1)*k], row)
		}
		if !unit {
			d := t[i*n+i]
			for c := range row {
				row[c] /= d
			}
		}
	}
	if !upper {
		for i0 := 0; i0 < n; i0 += block {
			i1 := min(n, i0+block)
			subtractSolved(i0, i1, 0, i0)
			for i := i0; i < i1; i++ {
				solveRow(i, i0, i)
			}
		}
		return
	}
	for i1 := n; i1 > 0; i1 -= block {
		i0 := max(0, i1-block)
		subtractSolved(i0, i1, i1, n)
		for i := i1 - 1; i >= i0; i-- {
			solveRow(i, i+1, i1)
		}
	}
}

// triangularSolveKernel is solve_triangular (left): each matrix of B
// solved against its matrix of A's triangle, in float64.
func triangularSolveKernel(out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
	if err := checkInputs("solve_triangular", ins, 2); err != nil {
		return err
	}
	at, err := ops.AttrsAs[ops.TriangularAttrs]("solve_triangular", attrs)
	if err != nil {
		return err
	}
	n, err := ops.SquareBatch("solve_triangular", ins[0].Meta)
	if err != nil {
		return err
	}
	a, b := castTo(ins[0], tensor.Float64).F64(), castTo(ins[1], tensor.Float64).F64()
	x := slices.Clone(b)
	k := 0
	if s := out.Shape; len(s) > 0 {
		k = s[len(s)-1]
	}
	for m := 0; m*n*n < len(a) && n > 0; m++ {
		triangularSolve(a[m*n*n:(m+1)*n*n], n, at.Upper, at.Unit, x[m*n*k:(m+1)*n*k], k)
	}
	storeFloat(out, x)
	return nil
}
