//go:build amd64 && !purego

package cpu

import "math"

// AVX2 paths of row reductions (reduce_amd64.s): the four-row sums and
// extrema, squared deviations, searches and column sums of the float32
// reductions (reduce_f32.go), and the zero tests of any/all.

//go:noescape
func sum4F32AVX2(x *float32, n int, stride int, out *[4]float64)

//go:noescape
func max4F32AVX2(x *float32, n int, stride int, out *[4]float32) (nan int)

//go:noescape
func min4F32AVX2(x *float32, n int, stride int, out *[4]float32) (nan int)

//go:noescape
func sqDevF32Stream(x *float32, n int, mean float64, pf int) float64

//go:noescape
func indexEqF32AVX2(x *float32, n int, v float32) int

//go:noescape
func indexUnordF32AVX2(x *float32, n int, v float32) int

//go:noescape
func colSumF32AVX2(acc *float64, x *float32, stride int, rows int, n int)

//go:noescape
func hasZeroF32AVX2(x *float32, n int) bool

//go:noescape
func hasNonzeroF32AVX2(x *float32, n int) bool

//go:noescape
func hasNonzeroU8AVX2(x *uint8, n int) bool

// sum4F32 is the float64 sum of each of the four rows x[i*stride:][:n].
func sum4F32(x []float32, n, stride int) (s [4]float64) {
	if n <= 0 {
		return s
	}
	x = x[:3*stride+n]
	m := 0
	if simdAVX2 {
		if m = n &^ 15; m > 0 {
			sum4F32AVX2(&x[0], m, stride, &s)
		}
	}
	if m < n {
		for i := range s {
			s[i] += sumRow[float32, float64](x[i*stride+m : i*stride+n])
		}
	}
	return s
}

// ext4F32 is the max (isMax) or min of each of the four rows
// x[i*stride:][:n] (the identity when n is 0), and a mask of the rows
// holding a NaN (bit i for row i; m[i] is then meaningless).
func ext4F32(x []float32, n, stride int, isMax bool) (m [4]float32, nan int) {
	init := float32(math.Inf(1))
	if isMax {
		init = float32(math.Inf(-1))
	}
	m = [4]float32{init, init, init, init}
	if n <= 0 {
		return m, 0
	}
	x = x[:3*stride+n]
	k := 0
	if simdAVX2 {
		if k = n &^ 15; k > 0 {
			if isMax {
				nan = max4F32AVX2(&x[0], k, stride, &m)
			} else {
				nan = min4F32AVX2(&x[0], k, stride, &m)
			}
		}
	}
	for i := range m {
		for _, v := range x[i*stride+k : i*stride+n] {
			switch {
			case v != v:
				nan |= 1 << i
			case isMax:
				m[i] = max(m[i], v)
			default:
				m[i] = min(m[i], v)
			}
		}
	}
	return m, nan
}

// indexEqF32 is the first i with x[i] == v (-0 equals +0), or len(x).
func indexEqF32(x []float32, v float32) int {
	m := 0
	if simdAVX2 {
		if m = len(x) &^ 7; m > 0 {
			if i := indexEqF32AVX2(&x[0], m, v); i < m {
				return i
			}
		}
	}
	for i := m; i < len(x); i++ {
		if x[i] == v {
			return i
		}
	}
	return len(x)
}

// indexNaNF32 is the index of the first NaN of x, or len(x).
func indexNaNF32(x []float32) int {
	m := 0
	if simdAVX2 {
		if m = len(x) &^ 7; m > 0 {
			if i := indexUnordF32AVX2(&x[0], m, 0); i < m {
				return i
			}
		}
	}
	for i := m; i < len(x); i++ {
		if x[i] != x[i] {
			return i
		}
	}
	return len(x)
}

// sqDevF32 is the float64 sum of (x[i] - mean)², prefetching pf bytes
// ahead of its reads (var/std pass the distance to the row's next block,
// so that the block's second pass, from the cache, overlaps the next
// block's fetch).
func sqDevF32(x []float32, mean float64, pf int) float64 {
	m, s := 0, 0.0
	if simdAVX2 {
		if m = len(x) &^ 31; m > 0 {
			s = sqDevF32Stream(&x[0], m, mean, pf)
		}
	}
	return s + sqDevRow(x[m:], mean)
}

// colSumF32 adds rows float32 rows of len(acc) columns, stride elements
// apart in x, into float64 column accumulators, row after row.
func colSumF32(acc []float64, x []float32, stride, rows int) {
	n := len(acc)
	if rows <= 0 || n == 0 {
		return
	}
	x = x[:(rows-1)*stride+n]
	m := 0
	if simdAVX2 {
		if m = n &^ 31; m > 0 {
			colSumF32AVX2(&acc[0], &x[0], stride, rows, m)
		}
	}
	for k := range rows {
		row := x[k*stride+m : k*stride+n]
		for j, v := range row {
			acc[m+j] += float64(v)
		}
	}
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
