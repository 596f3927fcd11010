package cpu

import (
	"container/list"
	"sync"

	"github.com/tref-lang/tref/runtime/backend/cpu/gemm"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Packed constant weights. A convolution multiplies its weight matrix by
// the lowered input, and the GEMM packs that matrix into micro-panels on
// every call: for a model's constant weights the same copy each time (9%
// of the OCR detector's time). A weight whose ref holds data given when
// it was made (refs.Ref.ConstID) never changes while the ref lives, so
// its packed panels are kept here under that identity, which is never
// reused: a freed weight's entry is never found again and ages out. The
// cache is shared by every runtime of the process (a mutex guards it;
// a PackedA is immutable once made) and bounded in bytes, least recently
// used first out. A weight is packed into the cache the second time it
// is seen, so that weights made for one call (a script's fresh tensors)
// do not churn it.

// packBudget bounds the bytes of packed weights kept.
const packBudget = 64 << 20

// seenMax bounds the weights remembered as seen once.
const seenMax = 4096

// packKey is one packed matrix: a weight's identity, which of its
// matrices (part: a group's rows as stored, one kernel tap of a group
// laid out by convShifted, a linear layer's weight transposed; see the
// part functions) and its dimensions.
type packKey struct {
	id         uint64
	part, m, k int
}

// groupPart is the part of a convolution weight that is group g's rows
// as stored; tapPart is tap t of group g, as convShifted lays it out.
func groupPart(g int) int        { return 2 * g }
func tapPart(g, taps, t int) int { return 2*(g*taps+t) + 1 }

// packedMatrix is a kept packing: a *gemm.PackedA or *gemm.PackedB.
type packedMatrix interface{ Bytes() int }

type packEntry struct {
	key    packKey
	packed packedMatrix
}

// packCache is the process's cache of packed weights.
type packCache struct {
	mu     sync.Mutex
	budget int
	bytes  int
	lru    list.List // of *packEntry, most recent first
	byKey  map[packKey]*list.Element
	seen   map[packKey]bool
}

var packs = &packCache{budget: packBudget}

// get returns the packed m×k matrix part of weight id as a left operand,
// packing a (row stride lda; lay, when not nil, writes a first) when it
// is not kept; nil when the weight is seen for the first time (the
// caller multiplies as usual).
func (c *packCache) get(id uint64, part, m, k int, a []float32, lda int, lay func()) *gemm.PackedA {
	pm := c.lookup(packKey{id, part, m, k}, func() packedMatrix {
		if lay != nil {
			lay()
		}
		return gemm.PackA(false, m, k, a, lda)
	})
	if pm == nil {
		return nil
	}
	return pm.(*gemm.PackedA)
}

// linearPart is the part of a linear layer's weight W [n, k] kept as the
// right operand Wᵀ (k×n); matmulPart a matrix product's right operand
// B [k, n] as it is stored.
const (
	linearPart = -1
	matmulPart = -2
)

// getB is get for a weight w as the right operand of k×n products: a
// linear layer's [n, k] transposed (part linearPart), a product's [k,
// n] (matmulPart).
func (c *packCache) getB(id uint64, part, k, n int, w []float32) *gemm.PackedB {
	pm := c.lookup(packKey{id, part, k, n}, func() packedMatrix {
		if part == linearPart {
			return gemm.PackB(true, k, n, w, k)
		}
		return gemm.PackB(false, k, n, w, n)
	})
	if pm == nil {
		return nil
	}
	return pm.(*gemm.PackedB)
}

// lookup returns the packing kept under key, making it with pack the
// second time key is asked for; nil the first time.
func (c *packCache) lookup(key packKey, pack func() packedMatrix) packedMatrix {
	c.mu.Lock()
	if e, ok := c.byKey[key]; ok {
		c.lru.MoveToFront(e)
		pm := e.Value.(*packEntry).packed
		c.mu.Unlock()
		return pm
	}
	if c.byKey == nil {
		c.byKey, c.seen = map[packKey]*list.Element{}, map[packKey]bool{}
	}
	if !c.seen[key] {
		if len(c.seen) >= seenMax {
			clear(c.seen)
		}
		c.seen[key] = true
		c.mu.Unlock()
		return nil
	}
	c.mu.Unlock()
	pm := pack()
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byKey[key]; ok { // packed meanwhile by another worker
		return e.Value.(*packEntry).packed
	}
	if pm.Bytes() > c.budget {
		return pm
	}
	delete(c.seen, key)
	c.byKey[key] = c.lru.PushFront(&packEntry{key, pm})
	c.bytes += pm.Bytes()
	for c.bytes > c.budget {
		e := c.lru.Back()
		old := e.Value.(*packEntry)
		c.lru.Remove(e)
		delete(c.byKey, old.key)
		c.bytes -= old.packed.Bytes()
	}
	return pm
}

// packedMM multiplies a part of a constant weight (the m×k matrix a,
// row stride lda, which lay writes first when it is not nil) by B into C
// as mmFunc does, from the cache when the weight is kept there; it
// reports false when it did nothing (the caller then multiplies as
// usual).
type packedMM[T any] func(workers, part, m, n, k int, a []T, lda int, lay func(), b []T, ldb int, accumulate bool, c []T, ldc int) bool

// packedFor is the packedMM of the weight with identity id (0: none).
func packedFor(id uint64) packedMM[float32] {
	if id == 0 {
		return nil
	}
	return func(workers, part, m, n, k int, a []float32, lda int, lay func(), b []float32, ldb int, accumulate bool, c []float32, ldc int) bool {
		pa := packs.get(id, part, m, k, a, lda, lay)
		if pa == nil {
			return false
		}
		var beta float32
		if accumulate {
			beta = 1
		}
		gemm.SgemmPackedA(gemm.Workers(workers, m, n, k), pa, false, n, b, ldb, beta, c, ldc)
		return true
	}
}

// A WeightKernel runs an op whose weight (input 1) is a constant with
// the work derived from the weight kept across calls: id is its
// refs.Ref.ConstID. It reports false when it did nothing (other dtypes,
// shapes, a weight seen for the first time): the op's kernel then runs.
type WeightKernel func(out *tensor.Dense, ins []*tensor.Dense, attrs any, id uint64) (bool, error)

// weightKernels are the WeightKernels by op; ExecuteOnHost runs them.
var weightKernels = map[ops.Op]WeightKernel{}
