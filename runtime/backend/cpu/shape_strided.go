package cpu

import (
	"fmt"
	"runtime"
	"sync"
	"unsafe"
)

// stridedView describes a strided read of a contiguous source buffer: the
// element at multi-index i is src[off + sum(i[k] * strides[k])]. Strides
// are in elements and may be zero (broadcast) or negative (reversed slice).
// permute, expand, index and split are all one strided gather into a
// contiguous result.
type stridedView struct {
	shape, strides []int
	off            int
}

// coalesce drops dimensions of size 1 and merges neighbours that are
// contiguous with each other, so the copy loops run over as few and as long
// dimensions as possible. It reports false when the view is empty.
func (v stridedView) coalesce() (stridedView, bool) {
	out := stridedView{off: v.off}
	for k, n := range v.shape {
		if n == 0 {
			return out, false
		}
		if n == 1 {
			continue
		}
		s := v.strides[k]
		if last := len(out.shape) - 1; last >= 0 && out.strides[last] == s*n {
			out.shape[last] *= n
			out.strides[last] = s
			continue
		}
		out.shape = append(out.shape, n)
		out.strides = append(out.strides, s)
	}
	return out, true
}

// Tile sizes of the transpose path: transposeLine bytes of each result
// row, transposeRun elements of each source row (tiles of 64-128 KiB,
// which stay in L2).
const (
	transposeLine = 128
	transposeRun  = 1024
)

// stridedGather copies the view of src into dst (contiguous, row-major in
// the view's shape); esize is the element size in bytes.
func stridedGather(dst, src []byte, esize int, v stridedView) {
	v, ok := v.coalesce()
	if !ok {
		return
	}
	r := len(v.shape)
	if r == 0 {
		copy(dst[:esize], src[v.off*esize:])
		return
	}
	if v.strides[r-1] == 1 {
		// Contiguous runs: one copy per row of the innermost dimension.
		run := v.shape[r-1] * esize
		rows := len(dst) / run
		stridedParallel(rows, run, func(lo, hi int) {
			it := newOdometer(v.shape[:r-1], v.strides[:r-1], v.off, lo)
			for o := lo; o < hi; o++ {
				s := it.pos * esize
				copy(dst[o*run:(o+1)*run], src[s:s+run])
				it.next()
			}
		})
		return
	}
	switch esize {
	case 1:
		gatherTyped(dst, src, v)
	case 2:
		gatherTyped(asWords[uint16](dst), asWords[uint16](src), v)
	case 4:
		gatherTyped(asWords[uint32](dst), asWords[uint32](src), v)
	case 8:
		gatherTyped(asWords[uint64](dst), asWords[uint64](src), v)
	default:
		panic(fmt.Sprintf("cpu: stridedGather on an element size of %d", esize))
	}
}

// asWords views an 8-byte aligned byte buffer as elements of type T.
func asWords[T uint16 | uint32 | uint64](b []byte) []T {
	var z T
	n := len(b) / int(unsafe.Sizeof(z))
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), n)
}

// gatherTyped is stridedGather for a coalesced view whose innermost stride
// is not 1, element by element.
func gatherTyped[T uint8 | uint16 | uint32 | uint64](dst, src []T, v stridedView) {
	r := len(v.shape)
	if r >= 2 && v.strides[r-2] == 1 {
		gatherTransposed(dst, src, v)
		return
	}
	n, s := v.shape[r-1], v.strides[r-1]
	rows := len(dst) / n
	stridedParallel(rows, n, func(lo, hi int) {
		it := newOdometer(v.shape[:r-1], v.strides[:r-1], v.off, lo)
		for o := lo; o < hi; o++ {
			d := dst[o*n : (o+1)*n]
			p := it.pos
			for j := range d {
				d[j] = src[p]
				p += s
			}
			it.next()
		}
	})
}

// gatherTransposed handles views whose last two dimensions are a
// transpose (the second-to-last has stride 1). Writing straight from a
// strided read misses the cache on nearly every element (and with a
// power-of-two stride every line of a small tile falls into the same cache
// set), so tiles go through a buffer: a tile is transposeRun contiguous
// source elements of a few source rows, read as whole cache lines in
// long streams, then written out as one cache line per result row. Work is
// split over blocks of result columns.
func gatherTransposed[T uint8 | uint16 | uint32 | uint64](dst, src []T, v stridedView) {
	var z T
	bj := transposeLine / int(unsafe.Sizeof(z)) // result columns per tile: one cache line
	r := len(v.shape)
	rowsN, colsN, cs := v.shape[r-2], v.shape[r-1], v.strides[r-1]
	blocks := (colsN + bj - 1) / bj
	outer := len(dst) / (rowsN * colsN)
	stridedParallel(outer*blocks, bj*rowsN, func(lo, hi int) {
		buf := make([]T, min(transposeRun, rowsN)*bj) // a tile of at most rowsN source elements
		for u := lo; u < hi; u++ {
			o, blk := u/blocks, u%blocks
			base := newOdometer(v.shape[:r-2], v.strides[:r-2], v.off, o).pos
			plane := dst[o*rowsN*colsN : (o+1)*rowsN*colsN]
			j0, j1 := blk*bj, min((blk+1)*bj, colsN)
			w := j1 - j0
			for i0 := 0; i0 < rowsN; i0 += transposeRun {
				i1 := min(i0+transposeRun, rowsN)
				for j := j0; j < j1; j++ {
					at := base + j*cs + i0
					col := buf[j-j0:]
					for ii, x := range src[at : at+i1-i0] {
						col[ii*bj] = x
					}
				}
				for i := i0; i < i1; i++ {
					copy(plane[i*colsN+j0:i*colsN+j1], buf[(i-i0)*bj:(i-i0)*bj+w])
				}
			}
		}
	})
}

// odometer walks the multi-indices of shape in row-major order, keeping
// the matching source offset.
type odometer struct {
	shape, strides []int
	idx            []int
	pos            int
}

// newOdometer starts at the linear index start.
func newOdometer(shape, strides []int, off, start int) *odometer {
	it := &odometer{shape: shape, strides: strides, idx: make([]int, len(shape)), pos: off}
	for k := len(shape) - 1; k >= 0 && start > 0; k-- {
		i := start % shape[k]
		start /= shape[k]
		it.idx[k] = i
		it.pos += i * strides[k]
	}
	return it
}

func (it *odometer) next() {
	for k := len(it.shape) - 1; k >= 0; k-- {
		it.idx[k]++
		it.pos += it.strides[k]
		if it.idx[k] < it.shape[k] {
			return
		}
		it.pos -= it.idx[k] * it.strides[k]
		it.idx[k] = 0
	}
}

// parallelMinWork is the least work (in elements or bytes) worth a goroutine.
const parallelMinWork = 1 << 16

// stridedParallel runs fn over [0, units) split into contiguous chunks, one
// per CPU, when the total work (units * cost) is worth it.
func stridedParallel(units, cost int, fn func(lo, hi int)) {
	workers := runtime.GOMAXPROCS(0)
	if cost < 1 {
		cost = 1
	}
	workers = min(workers, units, units*cost/parallelMinWork)
	if workers <= 1 {
		fn(0, units)
		return
	}
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := units*w/workers, units*(w+1)/workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(lo, hi)
		}()
	}
	wg.Wait()
}
