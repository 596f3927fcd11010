//go:build !amd64 || purego

package cpu

import (
	"math"
	"slices"
)

// sum4F32 is the float64 sum of each of the four rows x[i*stride:][:n].
func sum4F32(x []float32, n, stride int) (s [4]float64) {
	if n <= 0 {
		return s
	}
	for i := range s {
		s[i] = sumRow[float32, float64](x[i*stride : i*stride+n])
	}
	return s
}

// ext4F32 is the max (isMax) or min of each of the four rows
// x[i*stride:][:n] (the identity when n is 0), and a mask of the rows
// holding a NaN (bit i for row i; m[i] is then meaningless).
func ext4F32(x []float32, n, stride int, isMax bool) (m [4]float32, nan int) {
	for i := range m {
		if n <= 0 {
			m[i] = float32(math.Inf(1))
			if isMax {
				m[i] = float32(math.Inf(-1))
			}
			continue
		}
		row := x[i*stride : i*stride+n]
		if isMax {
			m[i] = maxRow(row)
		} else {
			m[i] = minRow(row)
		}
		if m[i] != m[i] {
			nan |= 1 << i
		}
	}
	return m, nan
}

// indexEqF32 is the first i with x[i] == v (-0 equals +0), or len(x).
func indexEqF32(x []float32, v float32) int {
	if i := slices.IndexFunc(x, func(e float32) bool { return e == v }); i >= 0 {
		return i
	}
	return len(x)
}

// indexNaNF32 is the index of the first NaN of x, or len(x).
func indexNaNF32(x []float32) int {
	if i := slices.IndexFunc(x, func(e float32) bool { return e != e }); i >= 0 {
		return i
	}
	return len(x)
}

// sqDevF32 is the float64 sum of (x[i] - mean)² (pf, a prefetch distance,
// has no use here).
func sqDevF32(x []float32, mean float64, _ int) float64 { return sqDevRow(x, mean) }

// colSumF32 adds rows float32 rows of len(acc) columns, stride elements
// apart in x, into float64 column accumulators, row after row.
func colSumF32(acc []float64, x []float32, stride, rows int) {
	for k := range rows {
		row := x[k*stride : k*stride+len(acc)]
		for j, v := range row {
			acc[j] += float64(v)
		}
	}
}

// hasZeroF32 reports whether some element of x is ±0.
func hasZeroF32(x []float32) bool { return slices.Contains(x, 0) }

// hasNonzeroF32 reports whether some element of x is nonzero (NaN is).
func hasNonzeroF32(x []float32) bool {
	return slices.IndexFunc(x, func(v float32) bool { return v != 0 }) >= 0
}

// hasNonzeroU8 reports whether some byte of x is nonzero.
func hasNonzeroU8(x []uint8) bool {
	return slices.IndexFunc(x, func(v uint8) bool { return v != 0 }) >= 0
}
