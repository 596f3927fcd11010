package cpu

import (
	"container/list"
	"sync"
	"sync/atomic"

	"github.com/tref-lang/tref/runtime/backend/cpu/gemm"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Packed constant weights. A convolution multiplies its weight matrix by
// the lowered input, and the GEMM packs that matrix into micro-panels on
// every call: for a model's constant weights the same copy each time (9%
// of the OCR detector's time). A weight whose ref holds data given when
// it was made (refs.Ref.ConstID) never changes while the ref lives, so
// its packed panels are kept under that identity, which is never reused,
// until the ref dies. Each runtime keeps its own cache as its host pool's
// kept memory (refs.Kept): the packings count against the host limit,
// take only the room the limit leaves, and are given up, least recently
// used first, before a tensor allocation would fail. A mutex guards the
// cache (a kernel's workers ask for packings at once; a PackedA is
// immutable once made). A weight is packed into the cache the second
// time it is seen, so that weights made for one call (a script's fresh
// tensors) do not churn it.

// packBudget bounds the bytes of packed weights a runtime keeps.
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

// packCache is a runtime's cache of packed weights.
type packCache struct {
	mu sync.Mutex
	// budget bounds bytes always; limit, at most budget, is the bound
	// while an op runs: what its host pool left room for (setRoom).
	budget, limit int
	// bytes is what the packings hold: written under the lock, read by
	// Bytes (the host pool asks on every allocation) without it.
	bytes atomic.Int64
	lru   list.List // of *packEntry, most recent first
	byKey map[packKey]*list.Element
	seen  map[packKey]bool
	// held counts the kept entries of each weight (Forget's fast path).
	held map[uint64]int
}

func newPackCache(budget int) *packCache {
	return &packCache{budget: budget, limit: budget}
}

// packsOf returns the cache of the runtime whose host pool is p, made
// on first use, its bound set to the room p leaves; nil when p keeps
// memory of another kind.
func packsOf(p *refs.HostPool) *packCache {
	c, ok := p.Kept().(*packCache)
	if !ok {
		if p.Kept() != nil {
			return nil
		}
		c = newPackCache(packBudget)
		p.SetKept(c)
	}
	c.setRoom(p.KeptRoom())
	return c
}

// setRoom bounds the cache by what it holds and room bytes more (-1:
// no bound but the budget).
func (c *packCache) setRoom(room int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.limit = c.budget
	if room >= 0 {
		c.limit = int(min(int64(c.budget), c.bytes.Load()+room))
	}
}

// Bytes is the memory the packings hold (refs.Kept).
func (c *packCache) Bytes() int64 { return c.bytes.Load() }

// Shrink drops packings, least recently used first, until at most keep
// bytes are held (refs.Kept).
func (c *packCache) Shrink(keep int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.limit = int(min(int64(c.limit), max(keep, 0)))
	c.evict()
}

// Forget drops the packings of weight id, whose ref died (refs.Kept).
func (c *packCache) Forget(id uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.held[id] == 0 {
		return
	}
	for key, e := range c.byKey {
		if key.id == id {
			c.remove(e)
		}
	}
}

// evict drops the least recently used packings until the cache is
// within its limit.
func (c *packCache) evict() {
	for c.bytes.Load() > int64(c.limit) {
		c.remove(c.lru.Back())
	}
}

// remove drops one kept packing.
func (c *packCache) remove(e *list.Element) {
	old := e.Value.(*packEntry)
	c.lru.Remove(e)
	delete(c.byKey, old.key)
	if c.held[old.key.id]--; c.held[old.key.id] == 0 {
		delete(c.held, old.key.id)
	}
	c.bytes.Add(-int64(old.packed.Bytes()))
}

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
		c.byKey, c.seen, c.held = map[packKey]*list.Element{}, map[packKey]bool{}, map[uint64]int{}
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
	if pm.Bytes() > c.limit {
		return pm
	}
	delete(c.seen, key)
	c.byKey[key] = c.lru.PushFront(&packEntry{key, pm})
	c.held[key.id]++
	c.bytes.Add(int64(pm.Bytes()))
	c.evict()
	return pm
}

// packedMM multiplies a part of a constant weight (the m×k matrix a,
// row stride lda, which lay writes first when it is not nil) by B into C
// as mmFunc does, from the cache when the weight is kept there; it
// reports false when it did nothing (the caller then multiplies as
// usual).
type packedMM[T any] func(workers, part, m, n, k int, a []T, lda int, lay func(), b []T, ldb int, accumulate bool, c []T, ldc int) bool

// weight is a constant weight as a WeightKernel sees it: its identity
// (refs.Ref.ConstID; 0 for none) and its runtime's cache of packings.
type weight struct {
	id    uint64
	packs *packCache
}

// packedFor is the packedMM of weight w (nil when it has none).
func packedFor(w weight) packedMM[float32] {
	if w.id == 0 || w.packs == nil {
		return nil
	}
	return func(workers, part, m, n, k int, a []float32, lda int, lay func(), b []float32, ldb int, accumulate bool, c []float32, ldc int) bool {
		pa := w.packs.get(w.id, part, m, k, a, lda, lay)
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
// the work derived from the weight kept across calls in w's cache. It
// reports false when it did nothing (other dtypes, shapes, a weight seen
// for the first time): the op's kernel then runs.
type WeightKernel func(out *tensor.Dense, ins []*tensor.Dense, attrs any, w weight) (bool, error)

// weightKernels are the WeightKernels by op; ExecuteOnHost runs them.
var weightKernels = map[ops.Op]WeightKernel{}
