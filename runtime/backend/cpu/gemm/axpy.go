package gemm

// Level-1 float64 routines for the blocked loops here and the cpu
// backend's factorisations: the AVX2 assembly where the CPU has it
// (axpy_amd64.go), else portable loops.

// AxpyF64 adds a·x to y (len(y) ≥ len(x)).
func AxpyF64(a float64, x, y []float64) { axpyF64(a, x, y) }

// DotF64 is the sum of x[i]·y[i] (len(y) ≥ len(x)).
func DotF64(x, y []float64) float64 { return dotF64(x, y) }

// RotF64 rotates the pairs (x[i], y[i]) of the plane: x[i] = c·x[i] −
// s·y[i], y[i] = s·x[i] + c·y[i] (len(y) ≥ len(x)).
func RotF64(c, s float64, x, y []float64) { rotF64(c, s, x, y) }

var (
	axpyF64 = axpyGo[float64]
	dotF64  = dotGo[float64]
	rotF64  = rotF64Go
	// fusedF64 is set where the routines are the AVX2 ones, which fuse
	// each multiply-add.
	fusedF64 = false
)

// axpyGo is the portable a·x added to y.
func axpyGo[T Number](a T, x, y []T) {
	y = y[:len(x)]
	for j, v := range x {
		y[j] += a * v
	}
}

// dotGo is the portable Σ x[i]·y[i], in two interleaved sums.
func dotGo[T Number](x, y []T) T {
	y = y[:len(x)]
	var s0, s1 T
	p := 0
	for ; p+1 < len(x); p += 2 {
		s0 += x[p] * y[p]
		s1 += x[p+1] * y[p+1]
	}
	if p < len(x) {
		s0 += x[p] * y[p]
	}
	return s0 + s1
}

func rotF64Go(c, s float64, x, y []float64) {
	y = y[:len(x)]
	for i, xi := range x {
		yi := y[i]
		x[i], y[i] = c*xi-s*yi, s*xi+c*yi
	}
}

// dotOf is the sum of x[i]·y[i] (len(y) ≥ len(x)), by dotF64 for
// float64.
func dotOf[T Number](x, y []T) T {
	if xf, ok := any(x).([]float64); ok {
		return T(dotF64(xf, any(y).([]float64)))
	}
	return dotGo(x, y)
}

// axpy adds a·x to y, by axpyF64 for float64.
func axpy[T Number](a T, x, y []T) {
	if yf, ok := any(y).([]float64); ok {
		axpyF64(float64(a), any(x).([]float64), yf)
		return
	}
	axpyGo(a, x, y)
}
