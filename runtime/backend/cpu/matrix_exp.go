package cpu

import (
	"math"

	"github.com/tref-lang/tref/runtime/backend/cpu/gemm"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// matrix_exp in float64 (halves through float32) by Higham's scaling and
// squaring with Padé approximants (SIAM J. Matrix Anal. Appl. 26(4),
// 2005): the lowest of degrees 3, 5, 7 and 9 whose bound covers A's
// 1-norm, else degree 13 on A/2ˢ squared s times. A non-finite entry
// makes the result NaN.

func init() {
	Register(ops.MatrixExp, viaFloat32Inputs(matrixExpKernel))
}

func matrixExpKernel(out *tensor.Dense, ins []*tensor.Dense, _ any) error {
	if err := checkInputs("matrix_exp", ins, 1); err != nil {
		return err
	}
	return decompose(out, ins[0], func(a []float64, n, _ int) ([][]float64, error) {
		return [][]float64{expm(a, n)}, nil
	})
}

// padeCoefficients are b_0…b_m of the [m/m] Padé approximants of eˣ.
var padeCoefficients = map[int][]float64{
	3:  {120, 60, 12, 1},
	5:  {30240, 15120, 3360, 420, 30, 1},
	7:  {17297280, 8648640, 1995840, 277200, 25200, 1512, 56, 1},
	9:  {17643225600, 8821612800, 2075673600, 302702400, 30270240, 2162160, 110880, 3960, 90, 1},
	13: {64764752532480000, 32382376266240000, 7771770303897600, 1187353796428800, 129060195264000, 10559470521600, 670442572800, 33522128640, 1323241920, 40840800, 960960, 16380, 182, 1},
}

// padeBounds are θ_m: the largest 1-norm for which degree m is accurate to
// float64's rounding.
var padeBounds = []struct {
	m     int
	theta float64
}{{3, 0.01495585217958292}, {5, 0.2539398330063230}, {7, 0.9504178996162932}, {9, 2.097847961257068}, {13, 5.371920351148152}}

// expm is the exponential of the n×n row-major a.
func expm(a []float64, n int) []float64 {
	if !allFinite(a) {
		r := make([]float64, n*n)
		fillNaN(r)
		return r
	}
	norm := 0.0
	for j := range n {
		col := 0.0
		for i := range n {
			col += math.Abs(a[i*n+j])
		}
		norm = max(norm, col)
	}
	for _, p := range padeBounds[:4] {
		if norm <= p.theta {
			return pade(a, n, p.m)
		}
	}
	s := max(0, int(math.Ceil(math.Log2(norm/padeBounds[4].theta))))
	scaled := make([]float64, len(a))
	for i, v := range a {
		scaled[i] = math.Ldexp(v, -s)
	}
	r := pade(scaled, n, 13)
	for range s {
		r = matmulSquare(r, r, n)
	}
	return r
}

// pade is the [m/m] Padé approximant (V − U)⁻¹(V + U) of e^a, U holding
// the odd powers of a and V the even ones.
func pade(a []float64, n, m int) []float64 {
	b := padeCoefficients[m]
	eye := make([]float64, n*n)
	for i := range n {
		eye[i*n+i] = 1
	}
	a2 := matmulSquare(a, a, n)
	// combine is Σ c_k·x_k.
	combine := func(cs []float64, xs ...[]float64) []float64 {
		r := make([]float64, n*n)
		for k, x := range xs {
			for i, v := range x {
				r[i] += cs[k] * v
			}
		}
		return r
	}
	var u, v []float64
	if m == 13 {
		a4 := matmulSquare(a2, a2, n)
		a6 := matmulSquare(a4, a2, n)
		u = matmulSquare(a6, combine([]float64{b[13], b[11], b[9]}, a6, a4, a2), n)
		u = matmulSquare(a, combine([]float64{1, b[7], b[5], b[3], b[1]}, u, a6, a4, a2, eye), n)
		v = matmulSquare(a6, combine([]float64{b[12], b[10], b[8]}, a6, a4, a2), n)
		v = combine([]float64{1, b[6], b[4], b[2], b[0]}, v, a6, a4, a2, eye)
	} else {
		// powers[k] = a^(2k).
		powers := [][]float64{eye, a2}
		for len(powers) <= m/2 {
			powers = append(powers, matmulSquare(powers[len(powers)-1], a2, n))
		}
		odd, even := make([]float64, 0, m/2+1), make([]float64, 0, m/2+1)
		for k := 0; 2*k+1 <= m; k++ {
			odd = append(odd, b[2*k+1])
			even = append(even, b[2*k])
		}
		u = matmulSquare(a, combine(odd, powers[:len(odd)]...), n)
		v = combine(even, powers[:len(even)]...)
	}
	num, den := make([]float64, n*n), make([]float64, n*n)
	for i := range num {
		num[i], den[i] = v[i]+u[i], v[i]-u[i]
	}
	perm := make([]int, n)
	if _, singular := luFactor(den, n, perm); singular {
		fillNaN(num)
		return num
	}
	r := make([]float64, n*n)
	luSolve(den, n, perm, num, r, n)
	return r
}

// matmulSquare is the product of the n×n row-major x and y (the blocked
// float64 GEMM, its rows split among the cores).
func matmulSquare(x, y []float64, n int) []float64 {
	r := make([]float64, n*n)
	gemm.Gemm(false, false, n, n, n, x, n, y, n, false, r, n)
	return r
}
