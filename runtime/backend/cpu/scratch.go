package cpu

import (
	"sync"
	"sync/atomic"
)

// Scratch buffers of the convolution kernels (im2col columns, padded
// planes) come from pools, so that running a model allocates no scratch
// per op: per-call buffers were two thirds of the bytes an OCR model's
// inference allocated.
var scratch32, scratch64 sync.Pool

// scratchPool is the pool of T's scratch buffers.
func scratchPool[T float32 | float64]() *sync.Pool {
	var z T
	if _, ok := any(z).(float64); ok {
		return &scratch64
	}
	return &scratch32
}

// workerScratch gives forTasks' goroutines (at most workers of them) a
// buffer of size elements each, carved from one pooled buffer; release
// returns it to the pool once the tasks are done. Contents are undefined.
func workerScratch[T float32 | float64](workers, size int) (newScratch func() []T, release func()) {
	pool := scratchPool[T]()
	n := max(1, workers) * size
	buf, ok := pool.Get().(*[]T)
	if !ok || cap(*buf) < n {
		s := make([]T, n)
		buf = &s
	}
	all := (*buf)[:n]
	var next atomic.Int64
	newScratch = func() []T {
		k := int(next.Add(1) - 1)
		return all[k*size : (k+1)*size : (k+1)*size]
	}
	return newScratch, func() { pool.Put(buf) }
}

// fill sets every element of s to v, by doubling copies (memmove) past
// the first 16: on long rows several times faster than a loop of stores
// (convolutions start each output row from its bias).
func fill[T any](s []T, v T) {
	k := min(len(s), 16) // short rows: the stores beat the calls
	for i := range k {
		s[i] = v
	}
	repeatPrefix(s, k)
}

// repeatPrefix fills s[k:] with copies of s[:k] (k > 0), doubling the
// filled prefix with each copy (memmove).
func repeatPrefix[T any](s []T, k int) {
	for ; k < len(s); k *= 2 {
		copy(s[k:], s[:k])
	}
}
