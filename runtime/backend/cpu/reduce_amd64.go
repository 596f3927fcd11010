//go:build amd64 && !purego

package cpu

// AVX2 paths of row reductions (reduce_amd64.s); the scalar loops of
// argmax/argmin, var/std and any/all reached a fifth to a third of memory
// speed.

//go:noescape
func argmaxF32AVX2(x *float32, n int, vals *float32, idxs *int32) (nan bool)

//go:noescape
func argminF32AVX2(x *float32, n int, vals *float32, idxs *int32) (nan bool)

//go:noescape
func sqDevF32AVX2(x *float32, n int, mean float64) float64

//go:noescape
func hasZeroF32AVX2(x *float32, n int) bool

//go:noescape
func hasNonzeroF32AVX2(x *float32, n int) bool

//go:noescape
func hasNonzeroU8AVX2(x *uint8, n int) bool

// argRowF32 is the value and index of the first largest (isMax) or
// smallest element of a float32 row. ok is false when the vectorised path
// does not apply (a row shorter than 16 or of 2^31 elements and more, or
// one holding a NaN, which then is the answer): the caller scans instead.
func argRowF32(xs []float32, isMax bool) (best float32, bi int, ok bool) {
	m := len(xs) &^ 15
	if !simdAVX2 || m < 16 || m >= 1<<31 {
		return 0, 0, false
	}
	var vals [16]float32
	var idxs [16]int32
	var nan bool
	if isMax {
		nan = argmaxF32AVX2(&xs[0], m, &vals[0], &idxs[0])
	} else {
		nan = argminF32AVX2(&xs[0], m, &vals[0], &idxs[0])
	}
	if nan {
		return 0, 0, false
	}
	// Each lane holds its first best; among equal bests the smallest
	// index is the first occurrence.
	best, bi = vals[0], int(idxs[0])
	for k := 1; k < len(vals); k++ {
		v, i := vals[k], int(idxs[k])
		if isMax && v > best || !isMax && v < best || v == best && i < bi {
			best, bi = v, i
		}
	}
	for i := m; i < len(xs); i++ {
		v := xs[i]
		if v != v {
			return v, i, true
		}
		if isMax && v > best || !isMax && v < best {
			best, bi = v, i
		}
	}
	return best, bi, true
}

// sqDevF32 is the float64 sum of (x[i] - mean)².
func sqDevF32(x []float32, mean float64) float64 {
	m, s := 0, 0.0
	if simdAVX2 {
		if m = len(x) &^ 15; m > 0 {
			s = sqDevF32AVX2(&x[0], m, mean)
		}
	}
	return s + sqDevRow(x[m:], mean)
}

// hasZeroF32 reports whether some element of x is ±0.
func hasZeroF32(x []float32) bool {
	m := 0
	if simdAVX2 {
		if m = len(x) &^ 31; m > 0 && hasZeroF32AVX2(&x[0], m) {
			return true
		}
	}
	for _, v := range x[m:] {
		if v == 0 {
			return true
		}
	}
	return false
}

// hasNonzeroF32 reports whether some element of x is nonzero (NaN is).
func hasNonzeroF32(x []float32) bool {
	m := 0
	if simdAVX2 {
		if m = len(x) &^ 31; m > 0 && hasNonzeroF32AVX2(&x[0], m) {
			return true
		}
	}
	for _, v := range x[m:] {
		if v != 0 {
			return true
		}
	}
	return false
}

// hasNonzeroU8 reports whether some byte of x is nonzero.
func hasNonzeroU8(x []uint8) bool {
	m := 0
	if simdAVX2 {
		if m = len(x) &^ 127; m > 0 && hasNonzeroU8AVX2(&x[0], m) {
			return true
		}
	}
	for _, v := range x[m:] {
		if v != 0 {
			return true
		}
	}
	return false
}
