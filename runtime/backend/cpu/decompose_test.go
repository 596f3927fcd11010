package cpu

import (
	"math"
	"math/rand"
	"strings"
	"testing"
)

// matmulRM is the product of the row-major m×k a and k×n b.
func matmulRM(a, b []float64, m, k, n int) []float64 {
	c := make([]float64, m*n)
	for i := range m {
		for j := range n {
			for l := range k {
				c[i*n+j] += a[i*k+l] * b[l*n+j]
			}
		}
	}
	return c
}

// orthonormalColumns fails unless the rows×cols x has orthonormal columns.
func orthonormalColumns(t *testing.T, what string, x []float64, rows, cols int) {
	t.Helper()
	g := matmulRM(transposeMatrix(x, rows, cols), x, cols, rows, cols)
	for i := range cols {
		for j := range cols {
			want := 0.0
			if i == j {
				want = 1
			}
			if math.Abs(g[i*cols+j]-want) > 1e-12 {
				t.Fatalf("%s: columns %d and %d have inner product %g, want %g", what, i, j, g[i*cols+j], want)
			}
		}
	}
}

func sameValues(t *testing.T, what string, got, want []float64) {
	t.Helper()
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-11*(1+math.Abs(want[i])) {
			t.Fatalf("%s: element %d is %g, want %g", what, i, got[i], want[i])
		}
	}
}

// largestPositive fails unless each column of x (rows×cols) has its
// first entry of largest magnitude positive.
func largestPositive(t *testing.T, what string, x []float64, rows, cols int) {
	t.Helper()
	for c := range cols {
		best, at := -1.0, 0
		for r := range rows {
			if v := math.Abs(x[r*cols+c]); v > best {
				best, at = v, r
			}
		}
		if x[at*cols+c] < 0 {
			t.Fatalf("%s: column %d's largest entry %g is negative", what, c, x[at*cols+c])
		}
	}
}

func randMatrix(r *rand.Rand, m, n int) []float64 {
	a := make([]float64, m*n)
	for i := range a {
		a[i] = r.NormFloat64()
	}
	return a
}

// TestHouseholderQRFactors: Q·R = A, Q orthonormal, R upper triangular,
// for tall, wide and square matrices, reduced and complete.
func TestHouseholderQRFactors(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	// Past 2·qrBlock columns the factorisation and Q go by blocks; one
	// such case has a zero column among the panels.
	for _, mn := range [][2]int{{4, 4}, {6, 3}, {3, 6}, {1, 5}, {5, 1}, {0, 3}, {3, 0}, {150, 100}, {100, 150}, {130, 130}} {
		m, n := mn[0], mn[1]
		for _, complete := range []bool{false, true} {
			a := randMatrix(r, m, n)
			if m == 130 {
				for i := range m {
					a[i*n+40] = 0
				}
			}
			q, rr := householderQR(append([]float64(nil), a...), m, n, complete)
			k := len(rr) / max(n, 1)
			if n == 0 {
				k = len(q) / max(m, 1)
			}
			orthonormalColumns(t, "Q", q, m, k)
			for i := range k {
				for j := range min(i, n) {
					if rr[i*n+j] != 0 {
						t.Fatalf("%dx%d: R[%d,%d] = %g below the diagonal", m, n, i, j, rr[i*n+j])
					}
				}
			}
			sameValues(t, "Q·R", matmulRM(q, rr, m, k, n), a)
		}
	}
	// A zero column keeps H = I (LAPACK's τ = 0), as torch's [[0, 1], [0,
	// 2], [0, 0]] gives Q = I's first columns and R = [[0, 1], [0, 2]].
	q, rr := householderQR([]float64{0, 1, 0, 2, 0, 0}, 3, 2, false)
	sameValues(t, "Q of a zero column", q, []float64{1, 0, 0, 1, 0, 0})
	sameValues(t, "R of a zero column", rr, []float64{0, 1, 0, 2})
}

// TestSymmetricEigen: V·diag(w)·Vᵀ = A with V orthonormal, w ascending and
// signs normalised; a non-finite entry gives NaN.
func TestSymmetricEigen(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	// Random ones, then repeated eigenvalues (the identity, a diagonal
	// with repeats), an already diagonal and a zero matrix, a rank-one one.
	cases := [][]float64{}
	for _, n := range []int{1, 2, 5, 12, 40} {
		cases = append(cases, symmetricFrom(randMatrix(r, n, n), n, false))
	}
	eye4 := make([]float64, 16)
	diag := make([]float64, 16)
	for i, v := range []float64{3, -1, 3, 0} {
		eye4[i*5], diag[i*5] = 1, v
	}
	u := randMatrix(r, 4, 1)
	cases = append(cases, eye4, diag, make([]float64, 16), matmulRM(u, transposeMatrix(u, 4, 1), 4, 1, 4))
	for _, a := range cases {
		n := int(math.Sqrt(float64(len(a))))
		w, v, err := symmetricEigen(append([]float64(nil), a...), n)
		if err != nil {
			t.Fatal(err)
		}
		orthonormalColumns(t, "V", v, n, n)
		largestPositive(t, "V", v, n, n)
		for i := 1; i < n; i++ {
			if w[i] < w[i-1] {
				t.Fatalf("eigenvalues %v not ascending", w)
			}
		}
		vw := append([]float64(nil), v...)
		for i := range n {
			for j := range n {
				vw[i*n+j] *= w[j]
			}
		}
		sameValues(t, "V·diag(w)·Vᵀ", matmulRM(vw, transposeMatrix(v, n, n), n, n, n), a)
	}
	w, _, err := symmetricEigen([]float64{1, math.NaN(), math.NaN(), 2}, 2)
	if !math.IsNaN(w[0]) || !math.IsNaN(w[1]) || err != nil {
		t.Errorf("eigh of a NaN matrix: %v (%v), want NaN", w, err)
	}
}

// TestSymmetricEigenReportsNoConvergence: QL steps cut short are an
// error, not values that look converged.
func TestSymmetricEigenReportsNoConvergence(t *testing.T) {
	defer func(n int) { qlStepsPerValue = n }(qlStepsPerValue)
	qlStepsPerValue = 1
	a := randMatrix(rand.New(rand.NewSource(5)), 6, 6)
	sym := symmetricFrom(a, 6, false)
	if _, _, err := symmetricEigen(sym, 6); err == nil || !strings.Contains(err.Error(), "failed to converge") {
		t.Fatalf("one QL step per eigenvalue: error %v, want a failure to converge", err)
	}
}

// TestJacobiSVD: U·diag(S)·Vh = A with orthonormal factors, S descending
// and U's signs normalised, for full-rank and rank-deficient matrices of
// every shape, reduced and full.
func TestJacobiSVD(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	cases := [][]float64{}
	shapes := [][2]int{{4, 4}, {7, 3}, {3, 7}, {1, 4}, {4, 1}, {0, 3}, {3, 0}, {5, 5}, {6, 4}}
	for _, mn := range shapes[:7] {
		cases = append(cases, randMatrix(r, mn[0], mn[1]))
	}
	// Rank 2 (a sum of two outer products) and zero.
	x, y, z, w := randMatrix(r, 5, 1), randMatrix(r, 1, 5), randMatrix(r, 5, 1), randMatrix(r, 1, 5)
	low := matmulRM(x, y, 5, 1, 5)
	for i, v := range matmulRM(z, w, 5, 1, 5) {
		low[i] += v
	}
	cases = append(cases, low, make([]float64, 24))
	for ci, a := range cases {
		m, n := shapes[ci][0], shapes[ci][1]
		k := min(m, n)
		for _, full := range []bool{false, true} {
			u, s, vh := jacobiSVD(a, m, n, full)
			ucols, vrows := k, k
			if full {
				ucols, vrows = m, n
			}
			orthonormalColumns(t, "U", u, m, ucols)
			orthonormalColumns(t, "Vhᵀ", transposeMatrix(vh, vrows, n), n, vrows)
			largestPositive(t, "U", u, m, ucols)
			for i := 1; i < k; i++ {
				if s[i] > s[i-1] {
					t.Fatalf("singular values %v not descending", s)
				}
			}
			us := make([]float64, m*k)
			for i := range m {
				for j := range k {
					us[i*k+j] = u[i*ucols+j] * s[j]
				}
			}
			sameValues(t, "U·diag(S)·Vh", matmulRM(us, vh[:k*n], m, k, n), a)
		}
	}
}

// TestLUFactorRect: P·A = L·U for tall, wide and square matrices, each
// pivot the column's largest entry (so |L| ≤ 1), and the pivots replay
// the permutation as LAPACK's ipiv does.
func TestLUFactorRect(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	// Past 2·luBlock columns the factorisation runs by panels; one case
	// there has a zero column, which must be reported and skipped.
	for _, dims := range [][3]int{{4, 4, -1}, {5, 3, -1}, {3, 5, -1}, {1, 4, -1}, {4, 1, -1}, {150, 100, -1}, {100, 150, -1}, {130, 130, 40}} {
		m, n, zeroCol := dims[0], dims[1], dims[2]
		k := min(m, n)
		a := randMatrix(r, m, n)
		if zeroCol >= 0 {
			for i := range m {
				a[i*n+zeroCol] = 0
			}
		}
		lu := append([]float64(nil), a...)
		perm, pivots := make([]int, m), make([]int, k)
		if _, zero := luFactorRect(lu, m, n, perm, pivots); zero != zeroCol {
			t.Fatalf("%dx%d: zero pivot at %d, want %d", m, n, zero, zeroCol)
		}
		l, u := make([]float64, m*k), make([]float64, k*n)
		for i := range m {
			for j := range k {
				switch {
				case i == j:
					l[i*k+j] = 1
				case i > j:
					l[i*k+j] = lu[i*n+j]
					if math.Abs(l[i*k+j]) > 1 {
						t.Fatalf("%dx%d: |L[%d, %d]| = %g > 1: not the largest pivot", m, n, i, j, l[i*k+j])
					}
				}
			}
		}
		for i := range k {
			for j := i; j < n; j++ {
				u[i*n+j] = lu[i*n+j]
			}
		}
		pa := make([]float64, m*n)
		for i := range m {
			copy(pa[i*n:(i+1)*n], a[perm[i]*n:(perm[i]+1)*n])
		}
		sameValues(t, "P·A vs L·U", matmulRM(l, u, m, k, n), pa)
		replay := make([]int, m)
		for i := range replay {
			replay[i] = i
		}
		for i, p := range pivots {
			replay[i], replay[p] = replay[p], replay[i]
		}
		for i := range m {
			if replay[i] != perm[i] {
				t.Fatalf("%dx%d: the pivots %v replay to %v, not the permutation %v", m, n, pivots, replay, perm)
			}
		}
	}
}

// TestLUFactorRectZeroPivot: a zero column is skipped (no exchange) and
// reported, the next columns still eliminated, as LAPACK's getrf.
func TestLUFactorRectZeroPivot(t *testing.T) {
	lu := []float64{0, 1, 0, 2, 0, 3}
	perm, pivots := make([]int, 3), make([]int, 2)
	if _, zero := luFactorRect(lu, 3, 2, perm, pivots); zero != 0 {
		t.Fatalf("zero pivot reported at %d, want 0", zero)
	}
	if pivots[0] != 0 || pivots[1] != 2 {
		t.Fatalf("pivots %v, want [0 2]", pivots)
	}
	sameValues(t, "LU", lu, []float64{0, 1, 0, 3, 0, 2.0 / 3}) // torch's lu_factor_ex
}
