//go:build amd64 && !purego

package cpu

// dwRowF32AVX2 is the depthwise kernel's row (conv_depthwise_amd64.s):
// out[j] = (init ? b : out[j]) + Σ w[a·kw+c] · x[a·ldx + j + c·dw] for
// j < n, a positive multiple of 8.
//
//go:noescape
func dwRowF32AVX2(out, x, w *float32, n, ldx, kh, kw, dw int, b float32, init bool)

// dwRowSIMD runs the unit-stride row of dwRow on the widest multiple of 8
// columns with AVX2 and FMA (float32 only) and returns how many it did.
func dwRowSIMD[T float32 | float64](out, x []T, ldx int, w []T, kh, kw, dw int, b T, init bool) int {
	o, ok := any(out).([]float32)
	n := len(out) &^ 7
	if !ok || !simdMath || n == 0 || kh <= 0 || kw <= 0 {
		return 0
	}
	xf, wf := any(x).([]float32), any(w).([]float32)
	_ = xf[(kh-1)*ldx+(n-1)+(kw-1)*dw]
	_ = wf[kh*kw-1]
	dwRowF32AVX2(&o[0], &xf[0], &wf[0], n, ldx, kh, kw, dw, float32(b), init)
	return n
}
