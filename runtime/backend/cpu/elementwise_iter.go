package cpu

import (
	"runtime"
	"sync"

	"github.com/tref-lang/tref/runtime/tensor"
)

// parallelMin is the element count from which a kernel splits its work
// over goroutines; below it a goroutine costs more than it saves.
const parallelMin = 256 << 10

// parallelFor calls fn on disjoint chunks covering [0, n): serially for
// small n, else on up to GOMAXPROCS goroutines. Chunk bounds are multiples
// of 64 elements so neighbouring chunks do not share cache lines. It
// returns the first error any chunk reported.
func parallelFor(n int, fn func(lo, hi int) error) error {
	workers := runtime.GOMAXPROCS(0)
	if n < parallelMin || workers < 2 {
		return fn(0, n)
	}
	workers = min(workers, n/(parallelMin/4))
	chunk := (n/workers + 63) &^ 63
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := 1; w < workers; w++ {
		lo := w * chunk
		if lo >= n {
			break
		}
		hi := min(lo+chunk, n)
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[w] = fn(lo, hi)
		}()
	}
	errs[0] = fn(0, min(chunk, n))
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// maxInputs bounds the operands of a broadcasting kernel (where has three).
const maxInputs = 3

// bcastIter walks an output shape and its broadcast inputs in row-major
// order, one innermost row at a time. Dimensions of size 1 are dropped and
// neighbouring dimensions that are contiguous in every operand are merged,
// so rows are as long as the data allows. Because every input is a
// contiguous tensor, an input's stride in the innermost merged dimension is
// 1 (it advances with the output) or 0 (it is broadcast along the row).
type bcastIter struct {
	nin     int
	shape   []int
	strides [maxInputs][]int
	// inner[k] is input k's stride along a row: 0 or 1.
	inner [maxInputs]int
}

// newBcastIter prepares the walk of out (the broadcast of ins' shapes).
func newBcastIter(out tensor.Shape, ins ...tensor.Shape) *bcastIter {
	it := &bcastIter{nin: len(ins)}
	r := len(out)
	var full [maxInputs][]int
	for k, s := range ins {
		st := make([]int, r)
		acc := 1
		for i := r - 1; i >= 0; i-- {
			j := i - (r - len(s))
			if j >= 0 && s[j] != 1 {
				st[i] = acc
				acc *= s[j]
			}
		}
		full[k] = st
	}
	for i := range r {
		if out[i] == 1 {
			continue
		}
		if p := len(it.shape) - 1; p >= 0 && it.mergeable(full, p, i, out[i]) {
			it.shape[p] *= out[i]
			for k := range it.nin {
				it.strides[k][p] = full[k][i]
			}
			continue
		}
		it.shape = append(it.shape, out[i])
		for k := range it.nin {
			it.strides[k] = append(it.strides[k], full[k][i])
		}
	}
	if len(it.shape) == 0 {
		it.shape = []int{1}
		for k := range it.nin {
			it.strides[k] = []int{0}
		}
	}
	last := len(it.shape) - 1
	for k := range it.nin {
		it.inner[k] = it.strides[k][last]
	}
	return it
}

// mergeable reports whether kept dim p can absorb original dim i (of size
// n) in every operand.
func (it *bcastIter) mergeable(full [maxInputs][]int, p, i, n int) bool {
	for k := range it.nin {
		if it.strides[k][p] != full[k][i]*n {
			return false
		}
	}
	return true
}

// rows calls fn for each row segment of the output's flat range [lo, hi):
// pos is the output offset, off the inputs' offsets and n the row length.
func (it *bcastIter) rows(lo, hi int, fn func(pos int, off *[maxInputs]int, n int)) {
	if lo >= hi {
		return
	}
	rank := len(it.shape)
	last := rank - 1
	var idxBuf [8]int
	idx := idxBuf[:0]
	if rank > len(idxBuf) {
		idx = make([]int, 0, rank)
	}
	idx = idx[:rank]
	var off [maxInputs]int
	rem := lo
	for d := last; d >= 0; d-- {
		idx[d] = rem % it.shape[d]
		rem /= it.shape[d]
		for k := range it.nin {
			off[k] += idx[d] * it.strides[k][d]
		}
	}
	rowLen := it.shape[last]
	for pos := lo; pos < hi; {
		n := min(rowLen-idx[last], hi-pos)
		fn(pos, &off, n)
		pos += n
		idx[last] += n
		for k := range it.nin {
			off[k] += n * it.inner[k]
		}
		for d := last; d > 0 && idx[d] == it.shape[d]; d-- {
			idx[d] = 0
			idx[d-1]++
			for k := range it.nin {
				off[k] += it.strides[k][d-1] - it.shape[d]*it.strides[k][d]
			}
		}
	}
}

// rowOf is the part of an input that one row reads: n elements from off,
// or the single element at off when the input is broadcast along the row.
func rowOf[T any](x []T, off, inner, n int) []T {
	if inner == 0 {
		return x[off : off+1]
	}
	return x[off : off+n]
}
