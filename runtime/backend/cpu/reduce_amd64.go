//go:build amd64 && !purego

package cpu

import "math"

// AVX2 paths of row reductions (reduce_amd64.s); the scalar loops of
// argmax/argmin, var/std and any/all reached a fifth to a third of memory
// speed.

//go:noescape
func sumF32Stream(x *float32, n int, pf int) float64

//go:noescape
func sqDevF32Stream(x *float32, n int, mean float64, pf int) float64

//go:noescape
func maxF32Stream(x *float32, n int, pf int) (m float32, nan bool)

//go:noescape
func minF32Stream(x *float32, n int, pf int) (m float32, nan bool)

//go:noescape
func indexEqF32AVX2(x *float32, n int, v float32) int

//go:noescape
func colSumF32AVX2(acc *float64, x *float32, stride int, rows int, n int)

//go:noescape
func hasZeroF32AVX2(x *float32, n int) bool

//go:noescape
func hasNonzeroF32AVX2(x *float32, n int) bool

//go:noescape
func hasNonzeroU8AVX2(x *uint8, n int) bool

// argRowF32 is the value and index of the first largest (isMax) or
// smallest element of a float32 row, or of its first NaN. ok is false when
// the vectorised path does not apply (no AVX2, or a row shorter than 32):
// the caller scans instead. The row is taken in blocks that stay in the L1
// cache: a block's extremum costs what max costs, and only a block that
// beats the best so far is searched again for the first index of its
// extremum (on random data a handful of blocks per row). A block holding a
// NaN is scanned for it, and the scan stops there.
func argRowF32(xs []float32, isMax bool) (best float32, bi int, ok bool) {
	if !simdAVX2 || len(xs) < 32 {
		return 0, 0, false
	}
	bi = -1
	for lo := 0; lo < len(xs); lo += argBlock {
		b := xs[lo:min(lo+argBlock, len(xs))]
		m, nan := extremumStream(b, isMax)
		if nan {
			v, i := argScan(b, isMax)
			return v, lo + i, true
		}
		if bi >= 0 && !(isMax && m > best || !isMax && m < best) {
			continue
		}
		i := indexEqF32(b, m)
		if i == len(b) {
			return 0, 0, false // unreachable: m is one of b's elements
		}
		best, bi = m, lo+i
	}
	return best, bi, true
}

// argBlock is the block of argRowF32: 8 KB of float32, in the L1 cache
// when a block is searched again.
const argBlock = 2048

// indexEqF32 is the first i with x[i] == v (-0 equals +0), or len(x).
func indexEqF32(x []float32, v float32) int {
	m := len(x) &^ 7
	if m > 0 {
		if i := indexEqF32AVX2(&x[0], m, v); i < m {
			return i
		}
	}
	for i := m; i < len(x); i++ {
		if x[i] == v {
			return i
		}
	}
	return len(x)
}

// streamAhead is how far ahead of their reads, in bytes, the streaming
// kernels prefetch.
const streamAhead = 1024

// rowSumF32 is the float64 sum of a float32 row.
func rowSumF32(x []float32) float64 {
	m, s := 0, 0.0
	if simdAVX2 {
		if m = len(x) &^ 31; m > 0 {
			s = sumF32Stream(&x[0], m, streamAhead)
		}
	}
	return s + sumRow[float32, float64](x[m:])
}

// sqDevF32 is the float64 sum of (x[i] - mean)², prefetching pf bytes
// ahead of its reads (var/std pass the next block's distance, so that the
// block's second pass, from the cache, overlaps the next block's fetch).
func sqDevF32(x []float32, mean float64, pf int) float64 {
	m, s := 0, 0.0
	if simdAVX2 {
		if m = len(x) &^ 31; m > 0 {
			s = sqDevF32Stream(&x[0], m, mean, pf)
		}
	}
	return s + sqDevRow(x[m:], mean)
}

// rowMaxF32 and rowMinF32 are the largest and smallest element of a
// float32 row (NaN if any element is NaN; the identity when empty).
func rowMaxF32(x []float32) float32 { return extremumNaN(x, true) }

func rowMinF32(x []float32) float32 { return extremumNaN(x, false) }

func extremumNaN(x []float32, isMax bool) float32 {
	m, nan := extremumStream(x, isMax)
	if nan {
		return float32(math.NaN())
	}
	return m
}

// extremumStream is the max (isMax) or min of x and whether x holds a NaN
// (m is then meaningless).
func extremumStream(x []float32, isMax bool) (m float32, nan bool) {
	n := 0
	if simdAVX2 {
		if n = len(x) &^ 31; n > 0 {
			if isMax {
				m, nan = maxF32Stream(&x[0], n, streamAhead)
			} else {
				m, nan = minF32Stream(&x[0], n, streamAhead)
			}
			if nan {
				return m, true
			}
		}
	}
	for _, v := range x[n:] {
		if v != v {
			return v, true
		}
	}
	switch {
	case n == 0 && isMax:
		return maxRow(x), false
	case n == 0:
		return minRow(x), false
	case isMax:
		return max(m, maxRow(x[n:])), false
	}
	return min(m, minRow(x[n:])), false
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
