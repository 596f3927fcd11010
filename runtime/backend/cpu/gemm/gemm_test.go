package gemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// naive is the textbook triple loop in float64, the reference.
func naive(transA, transB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) []float32 {
	out := append([]float32(nil), c...)
	for i := range m {
		for j := range n {
			var s float64
			for p := range k {
				ai, bi := i*lda+p, p*ldb+j
				if transA {
					ai = p*lda + i
				}
				if transB {
					bi = j*ldb + p
				}
				av, bv := a[ai], b[bi]
				s += float64(av) * float64(bv)
			}
			v := float64(alpha) * s
			if beta != 0 {
				v += float64(beta) * float64(c[i*ldc+j])
			}
			out[i*ldc+j] = float32(v)
		}
	}
	return out
}

func randSlice(r *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(r.NormFloat64())
	}
	return s
}

// machines lists the portable machine and, when this CPU has a faster one,
// that one too.
func machines() []machine {
	ms := []machine{portable}
	if best.name != portable.name {
		ms = append(ms, best)
	}
	return ms
}

// check runs one product with both kernels and 1 and 2 workers and compares
// with the reference; the stride pad makes every leading dimension larger
// than the matrix.
func check(t *testing.T, tA, tB bool, m, n, k, pad int, alpha, beta float32) {
	t.Helper()
	r := rand.New(rand.NewPCG(uint64(m*1000003+n*1009+k), uint64(pad)))
	ar, ac := m, k
	if tA {
		ar, ac = k, m
	}
	br, bc := k, n
	if tB {
		br, bc = n, k
	}
	lda, ldb, ldc := ac+pad, bc+pad, n+pad
	a := randSlice(r, max(0, (ar-1)*lda+ac))
	b := randSlice(r, max(0, (br-1)*ldb+bc))
	c0 := randSlice(r, max(0, (m-1)*ldc+n))
	if beta == 0 {
		for i := range c0 {
			c0[i] = float32(math.NaN()) // beta 0 must not read C
		}
	}
	want := naive(tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c0, ldc)
	for _, mach := range machines() {
		for _, workers := range []int{1, 2, 3} {
			c := append([]float32(nil), c0...)
			sgemm(mach, workers, tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
			for i := range m {
				for j := range n {
					g, w := c[i*ldc+j], want[i*ldc+j]
					tol := 1e-5 * float64(k+1) * (1 + math.Abs(float64(w)))
					if math.Abs(float64(g-w)) > tol || math.IsNaN(float64(g)) {
						t.Fatalf("%s workers=%d tA=%v tB=%v m=%d n=%d k=%d alpha=%v beta=%v: C[%d,%d] = %v, want %v",
							mach.name, workers, tA, tB, m, n, k, alpha, beta, i, j, g, w)
					}
				}
			}
			// Padding between rows is never touched.
			for i := range m - 1 {
				for j := n; j < ldc; j++ {
					if c[i*ldc+j] != c0[i*ldc+j] && !(math.IsNaN(float64(c[i*ldc+j])) && math.IsNaN(float64(c0[i*ldc+j]))) {
						t.Fatalf("%s: padding C[%d,%d] changed", mach.name, i, j)
					}
				}
			}
		}
	}
}

func TestSgemmOddSizes(t *testing.T) {
	sizes := []int{1, 7, 17, 33, 65, 127, 129}
	for _, tA := range []bool{false, true} {
		for _, tB := range []bool{false, true} {
			for _, m := range sizes {
				for _, n := range sizes {
					for _, k := range []int{1, 17, 129} {
						if testing.Short() && m*n*k > 100000 {
							continue
						}
						check(t, tA, tB, m, n, k, 0, 1, 0)
					}
				}
			}
		}
	}
}

func TestSgemmAlphaBetaStrides(t *testing.T) {
	for _, tc := range []struct {
		m, n, k, pad int
		alpha, beta  float32
	}{
		{33, 65, 17, 3, 1, 1},
		{65, 33, 129, 5, 0.5, 0},
		{17, 129, 65, 1, -2, 0.25},
		{129, 17, 7, 2, 1, -1},
		{6, 16, 256, 0, 1, 1},
		{12, 32, 513, 4, 1, 0},
		{300, 70, 300, 0, 1, 0}, // several KC blocks and row blocks
	} {
		for _, tA := range []bool{false, true} {
			for _, tB := range []bool{false, true} {
				check(t, tA, tB, tc.m, tc.n, tc.k, tc.pad, tc.alpha, tc.beta)
			}
		}
	}
}

func TestSgemmLargeBlocks(t *testing.T) {
	if testing.Short() {
		t.Skip("large product")
	}
	// Crosses the NC boundary (4080 columns) and several MC blocks.
	check(t, false, false, 150, 4100, 40, 0, 1, 0)
	check(t, false, true, 150, 4100, 40, 0, 1, 1)
}

func TestSgemmDegenerate(t *testing.T) {
	// k = 0: C = beta·C.
	c := []float32{1, 2, 3, 4}
	Sgemm(false, false, 2, 2, 0, 1, nil, 0, nil, 2, 3, c, 2)
	if fmt.Sprint(c) != "[3 6 9 12]" {
		t.Fatalf("k=0, beta=3: got %v", c)
	}
	c = []float32{float32(math.NaN()), 2, 3, 4}
	Sgemm(false, false, 2, 2, 0, 1, nil, 0, nil, 2, 0, c, 2)
	if fmt.Sprint(c) != "[0 0 0 0]" {
		t.Fatalf("k=0, beta=0: got %v", c)
	}
	// m = 0 and n = 0 touch nothing.
	Sgemm(false, false, 0, 3, 2, 1, nil, 2, make([]float32, 6), 3, 0, nil, 3)
	Sgemm(false, false, 3, 0, 2, 1, make([]float32, 6), 2, nil, 0, 0, nil, 0)
}

func TestSgemmShortSlicePanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("a too-short A did not panic")
		}
	}()
	Sgemm(false, false, 2, 2, 2, 1, make([]float32, 3), 2, make([]float32, 4), 2, 0, make([]float32, 4), 2)
}

// TestWorkers: products whose depth blocks are small run in one goroutine
// (the MLP's at batch 64), large ones on all that are offered; a deep k
// counts one block, not its whole depth.
func TestWorkers(t *testing.T) {
	for _, c := range []struct{ m, n, k, want int }{
		{64, 128, 784, 1},
		{128, 784, 64, 1},
		{64, 10, 128, 1},
		{256, 256, 256, 4},
		{1024, 1024, 1024, 4},
		{64, 64, 1 << 20, 1},
		{1, 1 << 24, 1, 4},
	} {
		if got := Workers(4, c.m, c.n, c.k); got != c.want {
			t.Errorf("Workers(4, %d, %d, %d) = %d, want %d", c.m, c.n, c.k, got, c.want)
		}
	}
}

// TestPackAMatchesPortable: every machine packs A's micro-panels as the
// portable loop does, value for value, for depths that are and are not
// multiples of the assembly's eight steps, strided rows and row counts
// with a partial last panel, and writes nothing past the block.
func TestPackAMatchesPortable(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for _, mach := range machines() {
		for _, c := range []struct{ rows, kc, lda, p0 int }{
			{6, 8, 8, 0}, {6, 7, 9, 0}, {12, 256, 784, 512}, {64, 16, 784, 768}, {13, 33, 40, 3}, {5, 64, 64, 0},
		} {
			a := randSlice(r, (c.rows+1)*c.lda)
			want := make([]float32, roundUp(c.rows, mr)*c.kc)
			got := make([]float32, len(want)+8)
			for i := range got {
				got[i] = -1
			}
			ref := &problem{a: a, lda: c.lda, alpha: 1, mach: portable}
			ref.packA(want, 0, c.rows, c.p0, c.kc)
			p := &problem{a: a, lda: c.lda, alpha: 1, mach: mach}
			p.packA(got, 0, c.rows, c.p0, c.kc)
			for i, w := range want {
				if got[i] != w {
					t.Fatalf("%s %+v: element %d = %v, portable %v", mach.name, c, i, got[i], w)
				}
			}
			for i := len(want); i < len(got); i++ {
				if got[i] != -1 {
					t.Fatalf("%s %+v: wrote element %d past the block", mach.name, c, i)
				}
			}
		}
	}
}
