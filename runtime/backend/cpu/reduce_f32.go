package cpu

import "math"

// Float32 rows (inner = 1) of sum/mean, max/min, var/std and
// argmax/argmin. A core reads memory faster over several streams than
// over one, so rows are read four at a time side by side: groups of four
// rows a quarter of the work apart, or, for a row of segMin elements and
// more, its four quarters. Every row (or quarter) has its own
// accumulators, and a row left over after the groups is computed by the
// same kernel as in a group, so a row's result does not depend on how
// the rows were split between threads.

// segMin is the row length from which a row is read as four quarters.
const segMin = 1 << 16

// rowGroups calls quad for groups of four rows of plan p (inner = 1)
// among o0 <= o < o1, a quarter of the range apart, with the offset in x
// of the first row's element k0 and the distance between the rows, and
// one for the rows left over.
func rowGroups(p plan, o0, o1, k0 int, quad func(off, stride int, os [4]int), one func(off, o int)) {
	q := (o1 - o0) / 4
	for i := range q {
		o := o0 + i
		quad(o*p.r+k0, q*p.r, [4]int{o, o + q, o + 2*q, o + 3*q})
	}
	for o := o0 + 4*q; o < o1; o++ {
		one(o*p.r+k0, o)
	}
}

// sumRowsF32 is sumFamily's partial for float32 rows.
func sumRowsF32(acc []float64, x []float32, p plan, o0, o1, k0, k1 int) {
	n := k1 - k0
	if n >= segMin {
		for o := o0; o < o1; o++ {
			row := x[o*p.r+k0 : o*p.r+k1]
			l := n / 4
			s := sum4F32(row, l, l)
			acc[o] += (s[0] + s[1]) + (s[2] + s[3]) + sumRow[float32, float64](row[4*l:])
		}
		return
	}
	rowGroups(p, o0, o1, k0,
		func(off, stride int, os [4]int) {
			s := sum4F32(x[off:], n, stride)
			for i, o := range os {
				acc[o] += s[i]
			}
		},
		func(off, o int) { acc[o] += sum4F32(x[off:], n, 0)[0] })
}

// extRowsF32 is maxFamily's (isMax) or minFamily's partial for float32
// rows.
func extRowsF32(isMax bool) func(acc, x []float32, p plan, o0, o1, k0, k1 int) {
	return func(acc, x []float32, p plan, o0, o1, k0, k1 int) {
		n := k1 - k0
		fold := func(o int, m float32, nan bool) {
			switch {
			case nan:
				acc[o] = float32(math.NaN())
			case isMax:
				acc[o] = max(acc[o], m)
			default:
				acc[o] = min(acc[o], m)
			}
		}
		if n >= segMin {
			for o := o0; o < o1; o++ {
				row := x[o*p.r+k0 : o*p.r+k1]
				l := n / 4
				m, nan := ext4F32(row, l, l, isMax)
				for i := range 4 {
					fold(o, m[i], nan&(1<<i) != 0)
				}
				m, nan = ext4F32(row[4*l:], n-4*l, 0, isMax)
				fold(o, m[0], nan != 0)
			}
			return
		}
		rowGroups(p, o0, o1, k0,
			func(off, stride int, os [4]int) {
				m, nan := ext4F32(x[off:], n, stride, isMax)
				for i, o := range os {
					fold(o, m[i], nan&(1<<i) != 0)
				}
			},
			func(off, o int) {
				m, nan := ext4F32(x[off:], n, 0, isMax)
				fold(o, m[0], nan != 0)
			})
	}
}

// momentRowsF32 is momentFamily's partial for float32 rows.
func momentRowsF32(acc []moments, x []float32, p plan, o0, o1, k0, k1 int) {
	n := k1 - k0
	if n >= segMin {
		for o := o0; o < o1; o++ {
			row := x[o*p.r+k0 : o*p.r+k1]
			l := n / 4
			ms := moments4F32(row, l, l, 4)
			m := acc[o]
			for _, q := range ms {
				m = m.merge(q)
			}
			acc[o] = m.merge(moments4F32(row[4*l:], n-4*l, 0, 1)[0])
		}
		return
	}
	rowGroups(p, o0, o1, k0,
		func(off, stride int, os [4]int) {
			ms := moments4F32(x[off:], n, stride, 4)
			for i, o := range os {
				acc[o] = acc[o].merge(ms[i])
			}
		},
		func(off, o int) { acc[o] = acc[o].merge(moments4F32(x[off:], n, 0, 1)[0]) })
}

// moments4F32 is the moments of the first streams of the four rows of n
// elements stride apart in x: blocks of each row small enough to stay in
// cache are done in two passes (their mean, then their squared deviations,
// whose pass prefetches the row's next block) and merged with Chan's
// formula, which keeps the accuracy of two passes over the whole row.
func moments4F32(x []float32, n, stride, streams int) (ms [4]moments) {
	for lo := 0; lo < n; lo += moment4Block {
		nb := min(moment4Block, n-lo)
		s := sum4F32(x[lo:], nb, stride)
		for i := range streams {
			b := x[i*stride+lo : i*stride+lo+nb]
			mean := s[i] / float64(nb)
			ms[i] = ms[i].merge(moments{float64(nb), mean, sqDevF32(b, mean, 4*moment4Block)})
		}
	}
	return ms
}

// moment4Block is the block of moments4F32: four rows' blocks and the
// next four, which their second passes prefetch, take 16 KB of the L1
// cache.
const moment4Block = 512

// argRowsF32 is argFamily's partial for float32 rows.
func argRowsF32(isMax bool) func(acc []argAcc[float32], x []float32, p plan, o0, o1, k0, k1 int) {
	return func(acc []argAcc[float32], x []float32, p plan, o0, o1, k0, k1 int) {
		n := k1 - k0
		if n == 0 {
			return
		}
		// put offers the value v at index k0+i of row o, after the
		// row's earlier indices.
		put := func(o int, v float32, i int) {
			if e := (argAcc[float32]{v, int64(k0 + i)}); argBetter(e.v, acc[o], isMax) {
				acc[o] = e
			}
		}
		if n >= segMin {
			for o := o0; o < o1; o++ {
				row := x[o*p.r+k0 : o*p.r+k1]
				l := n / 4
				best, idx := arg4F32(row, l, l, 4, isMax)
				for i := range 4 {
					put(o, best[i], i*l+idx[i])
				}
				for i := 4 * l; i < n; i++ {
					put(o, row[i], i)
				}
			}
			return
		}
		rowGroups(p, o0, o1, k0,
			func(off, stride int, os [4]int) {
				best, idx := arg4F32(x[off:], n, stride, 4, isMax)
				for i, o := range os {
					put(o, best[i], idx[i])
				}
			},
			func(off, o int) {
				best, idx := arg4F32(x[off:], n, 0, 1, isMax)
				put(o, best[0], idx[0])
			})
	}
}

// arg4F32 is, for the first streams of the four rows of n > 0 elements
// stride apart in x, the value and index of the row's first largest
// (isMax) or smallest element, or of its first NaN. The rows are taken in
// blocks that stay in the L1 cache: a block's extremum costs what max
// costs, and only a block that beats the row's best so far is searched
// again for the first index of its extremum (on random data a handful of
// blocks per row). A row's first block with a NaN is searched for it, and
// the row is done.
func arg4F32(x []float32, n, stride, streams int, isMax bool) (best [4]float32, idx [4]int) {
	done := 0
	for lo := 0; lo < n && done != 1<<streams-1; lo += argBlock {
		nb := min(argBlock, n-lo)
		m, nan := ext4F32(x[lo:], nb, stride, isMax)
		for i := range streams {
			if done&(1<<i) != 0 {
				continue
			}
			b := x[i*stride+lo : i*stride+lo+nb]
			if nan&(1<<i) != 0 {
				j := indexNaNF32(b)
				best[i], idx[i] = b[j], lo+j
				done |= 1 << i
				continue
			}
			if lo > 0 && !(isMax && m[i] > best[i] || !isMax && m[i] < best[i]) {
				continue
			}
			// m[i] is one of b's elements (±0 compare equal).
			j := indexEqF32(b, m[i])
			best[i], idx[i] = b[j], lo+j
		}
	}
	return best, idx
}

// argBlock is the block of arg4F32: four rows' blocks take 16 KB, in the
// L1 cache when a block is searched again.
const argBlock = 1024
