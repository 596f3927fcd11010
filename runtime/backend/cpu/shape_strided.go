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

// transposeBlock is the tile edge of the blocked transpose path.
const transposeBlock = 32

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
// transpose (the second-to-last has stride 1): it copies square tiles so
// that both the reads and the writes stay within a few cache lines.
func gatherTransposed[T uint8 | uint16 | uint32 | uint64](dst, src []T, v stridedView) {
	r := len(v.shape)
	rowsN, colsN, cs := v.shape[r-2], v.shape[r-1], v.strides[r-1]
	bands := (rowsN + transposeBlock - 1) / transposeBlock
	outer := len(dst) / (rowsN * colsN)
	stridedParallel(outer*bands, transposeBlock*colsN, func(lo, hi int) {
		for u := lo; u < hi; u++ {
			o, band := u/bands, u%bands
			it := newOdometer(v.shape[:r-2], v.strides[:r-2], v.off, o)
			base := it.pos
			plane := dst[o*rowsN*colsN : (o+1)*rowsN*colsN]
			i0, i1 := band*transposeBlock, min((band+1)*transposeBlock, rowsN)
			for j0 := 0; j0 < colsN; j0 += transposeBlock {
				j1 := min(j0+transposeBlock, colsN)
				for j := j0; j < j1; j++ {
					col := base + j*cs
					for i := i0; i < i1; i++ {
						plane[i*colsN+j] = src[col+i]
					}
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
