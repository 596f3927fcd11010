package cpu

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/tref-lang/tref/runtime/backend/cpu/gemm"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// qr, eigh and svd (runtime/ops/decompose.go), each matrix of the batch
// in float64 (halves through float32, as torch): Householder QR in
// LAPACK's order and signs, Householder tridiagonalisation and implicit
// QL for eigh (eigh.go), and one-sided (Hestenes) Jacobi for svd, accurate
// to the last bits of float64 and slower than LAPACK's for large matrices.

func init() {
	Register(ops.QR, viaFloat32Inputs(qrKernel))
	Register(ops.Eigh, viaFloat32Inputs(eighKernel))
	Register(ops.SVD, viaFloat32Inputs(svdKernel))
	Register(ops.Pinv, viaFloat32Inputs(pinvKernel))
	Register(ops.LU, luKernel)
}

// luKernel packs each matrix's getrf factors (luFactorRect), its pivots
// counted from 1 and its permutation.
func luKernel(out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
	if err := checkInputs("lu", ins, 1); err != nil {
		return err
	}
	check := attrs.(ops.LUAttrs).Check
	return decompose(out, ins[0], func(a []float64, m, n int) ([][]float64, error) {
		lu := slices.Clone(a)
		perm, pivots := make([]int, m), make([]int, min(m, n))
		if _, zero := luFactorRect(lu, m, n, perm, pivots); check && zero >= 0 {
			return nil, fmt.Errorf("U[%d, %d] is zero: A is singular, and lu_solve would divide by it (lu allows it)", zero, zero)
		}
		return [][]float64{lu, intsAsFloats(pivots, 1), intsAsFloats(perm, 0)}, nil
	})
}

// intsAsFloats is xs plus offset, as float64s.
func intsAsFloats(xs []int, offset int) []float64 {
	f := make([]float64, len(xs))
	for i, x := range xs {
		f[i] = float64(x + offset)
	}
	return f
}

// pinvKernel: V·diag(1/S)·Uᵀ over the singular values above the
// tolerance (hermitian: the eigenvectors and the eigenvalues above it in
// magnitude), as torch's linalg_pinv.
func pinvKernel(out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
	if err := checkInputs("pinv", ins, 1); err != nil {
		return err
	}
	at := attrs.(ops.PinvAttrs)
	return decompose(out, ins[0], func(a []float64, m, n int) ([][]float64, error) {
		k := min(m, n)
		var u, s, vh []float64
		// pinv(A) = 2⁻ᵉ·pinv(2⁻ᵉ·A) for the scaled A, its largest entry
		// about 1; atol scales with it.
		var e int
		if at.Hermitian {
			sym := symmetricFrom(a, n, false)
			if !allFinite(sym) {
				p := make([]float64, n*m)
				fillNaN(p)
				return [][]float64{p}, nil // NaN, as torch's
			}
			e = scaleToUnit(sym)
			w, v, err := symmetricEigen(sym, n)
			if err != nil {
				return nil, err
			}
			u, s, vh = v, w, transposeMatrix(v, n, n)
		} else {
			if !allFinite(a) {
				return nil, fmt.Errorf("the input contains non-finite values (inf or NaN)")
			}
			var scaled []float64
			scaled, e = scaledToUnit(a)
			u, s, vh = jacobiSVD(scaled, m, n, false)
		}
		largest := 0.0
		for _, x := range s {
			largest = max(largest, math.Abs(x))
		}
		tol := max(math.Ldexp(at.Atol, -e), at.Rtol*largest)
		// P = Vhᵀ·diag(1/s)·Uᵀ over the kept singular values: Vh's rows
		// scaled (a dropped one zeroed), then one product.
		scaled := make([]float64, k*n)
		for c := range k {
			if math.Abs(s[c]) > tol {
				for i, x := range vh[c*n : (c+1)*n] {
					scaled[c*n+i] = x / s[c]
				}
			}
		}
		p := make([]float64, n*m)
		gemm.Gemm(true, true, n, m, k, scaled, n, u, k, false, p, m)
		for i := range p {
			p[i] = math.Ldexp(p[i], -e)
		}
		return [][]float64{p}, nil
	})
}

// decompose runs factor over each m×n matrix of in (float64, row-major)
// and packs the factors it returns, in order, into out.
func decompose(out *tensor.Dense, in *tensor.Dense, factor func(a []float64, m, n int) ([][]float64, error)) error {
	s := in.Shape
	m, n := s[len(s)-2], s[len(s)-1]
	a := castTo(in, tensor.Float64).F64()
	batch := s[:len(s)-2].Numel()
	packed := make([]float64, out.Numel())
	size := len(packed) / max(batch, 1)
	for b := range batch {
		parts, err := factor(a[b*m*n:(b+1)*m*n], m, n)
		if err != nil {
			if batch > 1 {
				return fmt.Errorf("matrix %d of the batch: %w", b, err)
			}
			return err
		}
		o := packed[b*size : b*size]
		for _, p := range parts {
			o = append(o, p...)
		}
	}
	storeFloat(out, packed)
	return nil
}

func qrKernel(out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
	if err := checkInputs("qr", ins, 1); err != nil {
		return err
	}
	complete := attrs.(ops.QRAttrs).Complete
	return decompose(out, ins[0], func(a []float64, m, n int) ([][]float64, error) {
		q, r := householderQR(slices.Clone(a), m, n, complete)
		return [][]float64{q, r}, nil
	})
}

// householderQR factors the m×n row-major a (overwritten) as LAPACK's
// geqrf and orgqr do: reflections H_j = I − τ_j·v_j·v_jᵀ zero column j
// below the diagonal, R's diagonal element taking the sign opposite to
// the column's. It returns Q [m, k] and R [k, n] (k = min(m, n), or m
// when complete), row-major.
func householderQR(a []float64, m, n int, complete bool) (q, r []float64) {
	cols := transposeMatrix(a, m, n)
	tau := householderFactor(cols, m, n)
	rows := min(m, n)
	if complete {
		rows = m
	}
	r = make([]float64, rows*n)
	for c := range n {
		for i := 0; i <= c && i < rows; i++ {
			r[i*n+c] = cols[c*m+i]
		}
	}
	// Q = H_0·H_1·…·H_{k-1} applied to the first columns of the identity.
	qt := reflectedIdentity(cols, tau, m, 0, rows)
	q = transposeMatrix(qt, rows, m)
	return q, r
}

// householderFactor overwrites the n columns of length m in cols (column
// j at cols[j·m:]: column-major, so that every loop runs along memory)
// with R (on and above the diagonal) and the reflections' vectors v_j
// (below it, v_j's leading 1 implied), and returns their τ_j; a column
// already zero below the diagonal gets H_j = I (τ_j = 0), as LAPACK's
// dlarfg. Past 2·qrBlock columns it works as dgeqrf does: each panel of
// qrBlock columns is factored within itself, then its reflections reach
// the columns right of it at once, as one block reflector (Gemm).
func householderFactor(cols []float64, m, n int) []float64 {
	k := min(m, n)
	tau := make([]float64, k)
	block := k
	if k > 2*qrBlock {
		block = qrBlock
	}
	for j0 := 0; j0 < k; j0 += block {
		j1 := min(k, j0+block)
		end := n // the columns the panel's reflections reach one by one
		if block < k {
			end = j1
		}
		for j := j0; j < j1; j++ {
			cj := cols[j*m : (j+1)*m]
			alpha, xnorm := cj[j], norm2(cj[j+1:])
			if xnorm == 0 {
				continue
			}
			beta := -math.Copysign(math.Hypot(alpha, xnorm), alpha)
			tau[j] = (beta - alpha) / beta
			scale := 1 / (alpha - beta)
			v := cj[j+1:]
			for i := range v {
				v[i] *= scale
			}
			cj[j] = beta
			for c := j + 1; c < end; c++ {
				reflect(v, tau[j], cols[c*m+j:(c+1)*m])
			}
		}
		if end < n {
			// The columns right of the panel: c ← Hᵀ·c.
			newBlockReflector(cols, tau, m, j0, j1).apply(cols[j1*m:], n-j1, m, true)
		}
	}
	return tau
}

// qrBlock is the width of householderFactor's panels and of the blocks
// of reflections reflectedIdentity applies at once.
const qrBlock = 32

// reflectedIdentity is H_0·H_1·…·H_{k-1}·e_c for the count columns c =
// first, first+1, … of the m×m identity, the reflections householderFactor
// left in cols (k = len(tau)), each result a row of length m: applied a
// block of qrBlock reflections at a time, the last block first.
func reflectedIdentity(cols, tau []float64, m, first, count int) []float64 {
	x := make([]float64, count*m)
	for r := range count {
		x[r*m+first+r] = 1
	}
	for j1 := len(tau); j1 > 0; j1 -= qrBlock {
		j0 := max(0, j1-qrBlock)
		newBlockReflector(cols, tau, m, j0, j1).apply(x, count, m, false)
	}
	return x
}

// blockReflector is the compact WY form of the reflections j0…j0+nb−1
// householderFactor left in cols (LAPACK's dlarft): H_j0·…·H_{j0+nb−1} =
// I − V·T·Vᵀ with V's columns the vectors (their leading 1 and the zeros
// above it explicit), held as v (size×nb, size = m − j0) and as its
// transpose vt, and T upper triangular (with its transpose tt), each
// laid out for a plain product.
type blockReflector struct {
	j0, nb, size int
	v, vt, t, tt []float64
}

func newBlockReflector(cols, tau []float64, m, j0, j1 int) blockReflector {
	nb, size := j1-j0, m-j0
	br := blockReflector{j0: j0, nb: nb, size: size, vt: make([]float64, nb*size), t: make([]float64, nb*nb)}
	for r := range nb {
		j := j0 + r
		row := br.vt[r*size : (r+1)*size]
		row[r] = 1
		copy(row[r+1:], cols[j*m+j+1:(j+1)*m])
	}
	w := make([]float64, nb)
	for i := range nb {
		ti := tau[j0+i]
		br.t[i*nb+i] = ti
		if ti == 0 {
			continue
		}
		// T[:i, i] = −τ_i·T[:i, :i]·(V[:, :i]ᵀ·v_i).
		vi := br.vt[i*size : (i+1)*size]
		for r := range i {
			w[r] = dot(br.vt[r*size:(r+1)*size], vi)
		}
		for r := range i {
			s := 0.0
			for c := r; c < i; c++ {
				s += br.t[r*nb+c] * w[c]
			}
			br.t[r*nb+i] = -ti * s
		}
	}
	br.v, br.tt = transposeMatrix(br.vt, nb, size), transposeMatrix(br.t, nb, nb)
	return br
}

// apply overwrites the count vectors x_r (the entries j0… of the rows
// xs[r·stride:], each m long) with H·x_r, or Hᵀ·x_r when trans, for H =
// I − V·T·Vᵀ: as rows, X ← X − ((X·V)·Mᵀ)·Vᵀ with M = T (Tᵀ when trans),
// three products.
func (br blockReflector) apply(xs []float64, count, stride int, trans bool) {
	if count == 0 || br.nb == 0 {
		return
	}
	nb := br.nb
	x := xs[br.j0:]
	xv := make([]float64, count*nb)
	gemm.Gemm(false, false, count, nb, br.size, x, stride, br.v, nb, false, xv, nb)
	mt := br.tt // Mᵀ = Tᵀ
	if trans {
		mt = br.t
	}
	w := make([]float64, count*nb)
	gemm.Gemm(false, false, count, nb, nb, xv, nb, mt, nb, false, w, nb)
	for i := range w {
		w[i] = -w[i]
	}
	gemm.Gemm(false, false, count, br.size, nb, w, nb, br.vt, br.size, true, x, stride)
}

// reflect overwrites x with (I − τ·u·uᵀ)·x for u = (1, v...), len(x) =
// len(v) + 1: one Householder reflection.
func reflect(v []float64, tau float64, x []float64) {
	w := tau * (x[0] + gemm.DotF64(v, x[1:]))
	x[0] -= w
	gemm.AxpyF64(-w, v, x[1:])
}

// norm2 is the Euclidean norm of x without overflow or underflow (a
// plain sum of squares when that is safe, as dnrm2 ends up computing).
func norm2(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v * v
	}
	if s > 0x1p-900 && s < 0x1p900 {
		return math.Sqrt(s)
	}
	big := 0.0
	for _, v := range x {
		big = max(big, math.Abs(v))
	}
	if big == 0 || math.IsInf(big, 0) || math.IsNaN(s) {
		return big + s*0 // 0, inf, or NaN
	}
	s = 0
	for _, v := range x {
		s += (v / big) * (v / big)
	}
	return big * math.Sqrt(s)
}

func eighKernel(out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
	if err := checkInputs("eigh", ins, 1); err != nil {
		return err
	}
	upper := attrs.(ops.EighAttrs).Upper
	return decompose(out, ins[0], func(a []float64, n, _ int) ([][]float64, error) {
		sym := symmetricFrom(a, n, upper)
		e := scaleToUnit(sym)
		w, v, err := symmetricEigen(sym, n)
		if err != nil {
			return nil, err
		}
		for i := range w {
			w[i] = math.Ldexp(w[i], e)
		}
		return [][]float64{w, v}, nil
	})
}

// symmetricFrom is the symmetric n×n matrix whose lower (upper) triangle
// is a's.
func symmetricFrom(a []float64, n int, upper bool) []float64 {
	s := make([]float64, n*n)
	for i := range n {
		for j := range i + 1 {
			v := a[i*n+j]
			if upper {
				v = a[j*n+i]
			}
			s[i*n+j], s[j*n+i] = v, v
		}
	}
	return s
}

// maxSweeps bounds the Jacobi iterations; they converge quadratically,
// in well under 20 sweeps for float64.
const maxSweeps = 60

func svdKernel(out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
	if err := checkInputs("svd", ins, 1); err != nil {
		return err
	}
	full := attrs.(ops.SVDAttrs).Full
	return decompose(out, ins[0], func(a []float64, m, n int) ([][]float64, error) {
		if !allFinite(a) {
			return nil, fmt.Errorf("the input contains non-finite values (inf or NaN)")
		}
		scaled, e := scaledToUnit(a)
		u, s, vh := jacobiSVD(scaled, m, n, full)
		for i := range s {
			s[i] = math.Ldexp(s[i], e)
		}
		return [][]float64{u, s, vh}, nil
	})
}

// jacobiSVD returns U [m, k or m], S [k] (descending) and Vh [k or n, n]
// of the m×n row-major a, k = min(m, n), by one-sided Jacobi rotations
// of the columns of a (of aᵀ when m < n) until they are orthogonal.
// Columns of U without a nonzero singular value are completed to an
// orthonormal basis. Each column of U has its entry of largest magnitude
// positive (Vh's row flipped with it), and so has each row of a full Vh
// past k.
func jacobiSVD(a []float64, m, n int, full bool) (u, s, vh []float64) {
	if m < n {
		// Aᵀ = V·S·Uᵀ: the factors of the transpose, swapped.
		ut, st, vt := jacobiSVD(transposeMatrix(a, m, n), n, m, full)
		u, vh = transposeMatrix(vt, m, m), transposeMatrix(ut, n, len(ut)/n)
		for c := range m {
			normalizeSign(u, c, m, m, vh[c*n:(c+1)*n])
		}
		for r := m; r < len(vh)/n; r++ {
			normalizeSign(vh, r*n, 1, n, nil)
		}
		return u, st, vh
	}
	// Columns as contiguous rows: b[j] is column j of a·V (n ≤ m), V's
	// columns the rows of v.
	b, v := preconditioned(transposeMatrix(a, m, n), m, n)
	// The columns' squared norms, recomputed each sweep and carried
	// through each rotation (α' = α − t·γ, β' = β + t·γ) in between.
	sq := make([]float64, n)
	// Columns orthogonal to within rounding (dgesvj's √m·ε) are left:
	// asking for more would rotate on rounding noise for every sweep.
	orthogonal := math.Sqrt(float64(m)) * 0x1p-52
	for range maxSweeps {
		rotated := false
		for j := range n {
			sq[j] = dot(b[j*m:(j+1)*m], b[j*m:(j+1)*m])
		}
		for p := range n {
			for q := p + 1; q < n; q++ {
				bp, bq := b[p*m:(p+1)*m], b[q*m:(q+1)*m]
				alpha, beta, gamma := sq[p], sq[q], dot(bp, bq)
				if gamma == 0 || math.Abs(gamma) <= orthogonal*math.Sqrt(alpha*beta) {
					continue
				}
				rotated = true
				zeta := (beta - alpha) / (2 * gamma)
				t := math.Copysign(1, zeta) / (math.Abs(zeta) + math.Hypot(zeta, 1))
				c := 1 / math.Hypot(t, 1)
				sn := t * c
				rotate(bp, bq, c, sn)
				rotate(v[p*n:(p+1)*n], v[q*n:(q+1)*n], c, sn)
				sq[p], sq[q] = alpha-t*gamma, beta+t*gamma
			}
		}
		if !rotated {
			break
		}
	}
	norms := make([]float64, n)
	order := make([]int, n)
	for j := range n {
		for _, x := range b[j*m : (j+1)*m] {
			norms[j] = math.Hypot(norms[j], x)
		}
		order[j] = j
	}
	slices.SortStableFunc(order, func(i, j int) int { return cmp.Compare(norms[j], norms[i]) })
	ucols := n
	if full {
		ucols = m
	}
	// Columns whose norm is rounding error of the largest have no
	// direction of their own: U's column there is completed instead.
	tol := 0.0
	if n > 0 {
		tol = float64(m) * 0x1p-52 * norms[order[0]]
	}
	s, vh = make([]float64, n), make([]float64, 0, n*n)
	basis := make([][]float64, 0, ucols) // the columns of U
	for c, j := range order {
		s[c] = norms[j]
		vh = append(vh, v[j*n:(j+1)*n]...)
		if norms[j] > tol {
			col := slices.Clone(b[j*m : (j+1)*m])
			for i := range col {
				col[i] /= norms[j]
			}
			basis = append(basis, col)
		}
	}
	basis = completeBasis(basis, m, ucols)
	u = make([]float64, m*ucols)
	for c, col := range basis {
		for i, x := range col {
			u[i*ucols+c] = x
		}
		var row []float64
		if c < n {
			row = vh[c*n : (c+1)*n]
		}
		normalizeSign(u, c, ucols, m, row)
	}
	return u, s, vh
}

// preconditioned starts the one-sided Jacobi iteration on the columns
// at (n rows of length m) from the eigenvectors V of atᵀ·at: it returns
// the columns of a·V, already nearly orthogonal, and V's columns as
// rows, so that the rotations that finish the job to working accuracy
// take a sweep or two instead of ten (the Gram matrix's rounding, which
// would cost the small singular values their accuracy, is thus not in
// the result).
func preconditioned(at []float64, m, n int) (b, v []float64) {
	// The Gram matrix at·atᵀ by Gemm (at times its transpose, laid out
	// so that the product runs on the tiled kernel), its lower triangle
	// mirrored so that it is exactly symmetric.
	gram := make([]float64, n*n)
	gemm.Gemm(false, false, n, n, m, at, m, transposeMatrix(at, n, m), n, false, gram, n)
	for p := range n {
		for q := p + 1; q < n; q++ {
			gram[p*n+q] = gram[q*n+p]
		}
	}
	// Eigenvectors that did not fully converge still precondition: the
	// Jacobi sweeps finish the job.
	_, eig, _ := symmetricEigen(gram, n)
	v = transposeMatrix(eig, n, n)
	b = make([]float64, n*m)
	gemm.Gemm(false, false, n, m, n, v, n, at, m, false, b, m)
	return b, v
}

// dot is Σ x_i·y_i.
func dot(x, y []float64) float64 { return gemm.DotF64(x, y) }

// scaleToUnit multiplies the finite a by 2⁻ᵉ (exactly) so that its
// largest magnitude lies in [0.5, 1), and returns e: LAPACK's scaling,
// which keeps the products of the decompositions from overflowing or
// underflowing. An a of zeros or with non-finite values stays (e = 0).
func scaleToUnit(a []float64) int {
	big := 0.0
	for _, x := range a {
		big = max(big, math.Abs(x))
	}
	if big == 0 || math.IsInf(big, 0) || math.IsNaN(big) {
		return 0
	}
	_, e := math.Frexp(big)
	for i, x := range a {
		a[i] = math.Ldexp(x, -e)
	}
	return e
}

// scaledToUnit is a copy of a scaled by scaleToUnit, and the exponent.
func scaledToUnit(a []float64) ([]float64, int) {
	c := slices.Clone(a)
	return c, scaleToUnit(c)
}

// rotate applies the plane rotation [c s; −s c] to the pair of vectors
// (x, y): x' = c·x − s·y, y' = s·x + c·y.
func rotate(x, y []float64, c, s float64) { gemm.RotF64(c, s, x, y) }

// completeBasis extends the r orthonormal vectors of length m in basis
// to want of them: a Householder QR of the m×r matrix they form, whose
// complete Q begins with them (up to sign), gives the rest as its
// columns r, r+1, … (O(m·r) each, not O(m²)).
func completeBasis(basis [][]float64, m, want int) [][]float64 {
	r := len(basis)
	if r >= want {
		return basis
	}
	cols := make([]float64, 0, m*r)
	for _, u := range basis {
		cols = append(cols, u...)
	}
	tau := householderFactor(cols, m, r)
	rest := reflectedIdentity(cols, tau, m, r, want-r)
	for c := range want - r {
		basis = append(basis, rest[c*m:(c+1)*m])
	}
	return basis
}

// normalizeSign makes the entry of largest magnitude (the first such) of
// the count entries x[start], x[start+stride], … positive, negating them
// all, and partner (a matching singular vector) with them, when it is
// negative.
func normalizeSign(x []float64, start, stride, count int, partner []float64) {
	best, at := -1.0, start
	for i := range count {
		if v := math.Abs(x[start+i*stride]); v > best {
			best, at = v, start+i*stride
		}
	}
	if count == 0 || x[at] >= 0 {
		return
	}
	for i := range count {
		x[start+i*stride] = -x[start+i*stride]
	}
	for i := range partner {
		partner[i] = -partner[i]
	}
}

// transposeMatrix is the n×m transpose of the m×n row-major a.
func transposeMatrix(a []float64, m, n int) []float64 {
	t := make([]float64, len(a))
	for i := range m {
		for j := range n {
			t[j*m+i] = a[i*n+j]
		}
	}
	return t
}

func allFinite(a []float64) bool {
	for _, x := range a {
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return false
		}
	}
	return true
}

func fillNaN(a []float64) {
	for i := range a {
		a[i] = math.NaN()
	}
}
