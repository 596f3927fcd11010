package cpu

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/tref-lang/tref/runtime/backend/cpu/gemm"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// kept counts the packed matrices rt's cache holds for weight id.
func kept(rt *refs.Runtime, id uint64) int {
	c, _ := rt.HostPool().Kept().(*packCache)
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for k := range c.byKey {
		if k.id == id {
			n++
		}
	}
	return n
}

// convOnRuntime runs conv2d(x, w, b) on rt as a script would: x a fresh
// ref, w and b the given ones.
func convOnRuntime(t *testing.T, rt *refs.Runtime, a ops.Conv2dAttrs, x *tensor.Dense, w, b *refs.Ref) *tensor.Dense {
	t.Helper()
	xr := rt.FromHost(refs.Site{}, x.Clone())
	defer rt.Release(xr)
	ins := []*refs.Ref{xr, w}
	if b != nil {
		ins = append(ins, b)
	}
	y, err := rt.Submit(refs.Site{}, ops.Conv2d, a, ins...)
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Release(y)
	d, err := rt.Read(y)
	if err != nil {
		t.Fatal(err)
	}
	return d.Clone()
}

func sameBits(t *testing.T, what string, got, want *tensor.Dense) {
	t.Helper()
	g, w := got.F32(), want.F32()
	for i := range w {
		if g[i] != w[i] {
			t.Fatalf("%s: element %d = %v, want %v", what, i, g[i], w[i])
		}
	}
}

// TestPackedConvWeights runs convolutions over constant weights (refs
// made from data) several times: from the second call their packed
// matrices come from the cache, and every result is the plain kernel's,
// bit for bit. A new weight of the same shape (a new identity) and a
// weight computed by an op (no identity) never take another's packing.
func TestPackedConvWeights(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	one := [2]int{1, 1}
	for _, tc := range []struct {
		name string
		x, w []int
		a    ops.Conv2dAttrs
	}{
		{"im2col-chunked", []int{2, 16, 40, 40}, []int{8, 16, 3, 3}, ops.Conv2dAttrs{Stride: [2]int{2, 2}, PadLo: one, PadHi: one, Dilation: one, Groups: 1}},
		{"im2col-groups", []int{3, 4, 17, 19}, []int{6, 2, 3, 3}, ops.Conv2dAttrs{Stride: [2]int{2, 3}, PadLo: [2]int{2, 1}, PadHi: [2]int{2, 1}, Dilation: [2]int{2, 1}, Groups: 2}},
		{"pointwise-groups", []int{3, 8, 7, 9}, []int{12, 2, 1, 1}, ops.Conv2dAttrs{Stride: one, Dilation: one, Groups: 4}},
		{"pointwise-deep", []int{1, 300, 6, 7}, []int{20, 300, 1, 1}, ops.Conv2dAttrs{Stride: one, Dilation: one, Groups: 1}},
		{"shifted-groups", []int{2, 32, 9, 11}, []int{6, 16, 3, 2}, ops.Conv2dAttrs{Stride: one, PadLo: [2]int{2, 1}, PadHi: [2]int{1, 0}, Dilation: [2]int{2, 1}, Groups: 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rt := refs.New(&Device{}, refs.Options{Lookahead: 4, TrackRefs: true})
			x := randDense(r, tensor.Float32, tc.x...)
			w := randDense(r, tensor.Float32, tc.w...)
			b := randDense(r, tensor.Float32, tc.w[0])
			wr, br := rt.FromHost(refs.Site{}, w.Clone()), rt.FromHost(refs.Site{}, b.Clone())
			want := execShapeOp(t, "conv2d", tc.a, x, w, b)
			for call := range 3 {
				sameBits(t, "call "+string(rune('1'+call)), convOnRuntime(t, rt, tc.a, x, wr, br), want)
			}
			if kept(rt, wr.ConstID()) == 0 {
				t.Errorf("weight %d: nothing kept after three calls", wr.ConstID())
			}
			// Another weight of the same shape.
			w2 := randDense(r, tensor.Float32, tc.w...)
			w2r := rt.FromHost(refs.Site{}, w2.Clone())
			if w2r.ConstID() == wr.ConstID() {
				t.Fatalf("two weights share ConstID %d", wr.ConstID())
			}
			want2 := execShapeOp(t, "conv2d", tc.a, x, w2, b)
			for range 3 {
				sameBits(t, "second weight", convOnRuntime(t, rt, tc.a, x, w2r, br), want2)
			}
			// A weight computed by an op: a new result on every call,
			// never kept.
			twoD := tensor.NewDense(tensor.Meta{DType: tensor.Float32})
			twoD.F32()[0] = 2
			two := rt.FromHost(refs.Site{}, twoD)
			for range 3 {
				w3, err := rt.Submit(refs.Site{}, ops.Mul, nil, wr, two)
				if err != nil {
					t.Fatal(err)
				}
				if w3.ConstID() != 0 {
					t.Fatalf("an op's result has ConstID %d", w3.ConstID())
				}
				w3d := w.Clone()
				for i, v := range w3d.F32() {
					w3d.F32()[i] = 2 * v
				}
				sameBits(t, "computed weight", convOnRuntime(t, rt, tc.a, x, w3, br), execShapeOp(t, "conv2d", tc.a, x, w3d, b))
				rt.Release(w3)
			}
			for _, ref := range []*refs.Ref{wr, br, w2r, two} {
				rt.Release(ref)
			}
			if n := rt.LiveRefs(); n != 0 {
				t.Errorf("%d refs leaked", n)
			}
			// The weights died: their packings went with them.
			if n := rt.HostPool().Stats().KeptBytes; n != 0 {
				t.Errorf("%d bytes of packings kept after every weight died", n)
			}
		})
	}
}

// TestPackCacheBudget checks the cache's bound: a matrix is kept the
// second time it is asked for, the least recently used go first, and a
// matrix over the whole budget is packed but never kept.
func TestPackCacheBudget(t *testing.T) {
	a := make([]float32, 12*10)
	for i := range a {
		a[i] = float32(i)
	}
	size := gemm.PackA(false, 12, 10, a, 10).Bytes()
	c := newPackCache(3 * size)
	for id := uint64(1); id <= 4; id++ {
		if c.get(id, 0, 12, 10, a, 10, nil) != nil {
			t.Fatalf("weight %d kept the first time it was seen", id)
		}
		if c.get(id, 0, 12, 10, a, 10, nil) == nil {
			t.Fatalf("weight %d: no packing the second time", id)
		}
		if id == 3 {
			c.get(1, 0, 12, 10, a, 10, nil) // 1 is now more recent than 2
		}
	}
	if c.bytes.Load() > int64(c.budget) || len(c.byKey) != 3 {
		t.Fatalf("%d bytes in %d entries, budget %d", c.bytes.Load(), len(c.byKey), c.budget)
	}
	for id, want := range map[uint64]bool{1: true, 2: false, 3: true, 4: true} {
		if _, ok := c.byKey[packKey{id, 0, 12, 10}]; ok != want {
			t.Errorf("weight %d kept = %v, want %v", id, ok, want)
		}
	}
	small := newPackCache(size - 1)
	small.get(9, 0, 12, 10, a, 10, nil)
	if pa := small.get(9, 0, 12, 10, a, 10, nil); pa == nil || len(small.byKey) != 0 || small.bytes.Load() != 0 {
		t.Errorf("a matrix over the budget: %v, %d kept, %d bytes", pa, len(small.byKey), small.bytes.Load())
	}
	// The same weight in another layout (other dimensions) is another
	// entry.
	c.get(1, 0, 6, 20, a, 20, nil)
	if pa := c.get(1, 0, 6, 20, a, 20, nil); pa == nil || pa.Rows() != 6 || pa.Depth() != 20 {
		t.Errorf("weight 1 as 6×20: got %v", pa)
	}
}

// TestPackCacheConcurrent has goroutines ask for the same matrices at
// once (run with -race): each gets a packing of the right matrix.
func TestPackCacheConcurrent(t *testing.T) {
	c := newPackCache(1 << 20)
	a := make([]float32, 40*30)
	for i := range a {
		a[i] = float32(i % 7)
	}
	b := make([]float32, 30*5)
	for i := range b {
		b[i] = 1
	}
	want := make([]float32, 40*5)
	gemm.SgemmWorkers(1, false, false, 40, 5, 30, 1, a, 30, b, 5, 0, want, 5)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 50 {
				pa := c.get(uint64(1+i%3), g%2, 40, 30, a, 30, nil)
				if pa == nil {
					continue
				}
				got := make([]float32, 40*5)
				gemm.SgemmPackedA(1, pa, false, 5, b, 5, 0, got, 5)
				for j := range want {
					if got[j] != want[j] {
						t.Errorf("element %d = %v, want %v", j, got[j], want[j])
						return
					}
				}
			}
		})
	}
	wg.Wait()
}

// TestPackedLinearWeights is TestPackedConvWeights for linear: a
// constant weight's Wᵀ is multiplied packed from the second call, with
// the plain kernel's bits; another weight of the same shape is not
// confused with it. One row is dot products, packed never.
func TestPackedLinearWeights(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	rt := refs.New(&Device{}, refs.Options{Lookahead: 4, TrackRefs: true})
	for _, rows := range []int{1, 5} {
		x := randDense(r, tensor.Float32, rows, 300)
		var prev uint64
		for range 2 {
			w := randDense(r, tensor.Float32, 40, 300)
			b := randDense(r, tensor.Float32, 40)
			wr, br := rt.FromHost(refs.Site{}, w.Clone()), rt.FromHost(refs.Site{}, b.Clone())
			if wr.ConstID() == prev {
				t.Fatalf("two weights share ConstID %d", prev)
			}
			prev = wr.ConstID()
			threeCalls(t, rt, ops.Linear, execShapeOp(t, "linear", nil, x, w, b), x, wr, br)
			want := 1
			if rows == 1 {
				want = 0 // dot products with W's rows (linearMM): nothing packed
			}
			if kept(rt, wr.ConstID()) != want {
				t.Errorf("weight %d, %d rows: %d packings kept, want %d", wr.ConstID(), rows, kept(rt, wr.ConstID()), want)
			}
			rt.Release(wr)
			rt.Release(br)
		}
	}
	if n := rt.LiveRefs(); n != 0 {
		t.Errorf("%d refs leaked", n)
	}
}

// TestPackedMatmulWeights: a batch of rows times a constant matrix
// multiplies it packed from the second call, with the plain kernel's
// bits; a batched B (not one matrix) and an op's result are left alone.
func TestPackedMatmulWeights(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	rt := refs.New(&Device{}, refs.Options{Lookahead: 4, TrackRefs: true})
	for _, tc := range []struct{ x, w []int }{
		{[]int{2, 3, 300}, []int{300, 40}},
		{[]int{300}, []int{300, 7}},
		{[]int{2, 5, 20}, []int{2, 20, 6}}, // batched B: not kept
	} {
		x, w := randDense(r, tensor.Float32, tc.x...), randDense(r, tensor.Float32, tc.w...)
		wr := rt.FromHost(refs.Site{}, w.Clone())
		threeCalls(t, rt, ops.Matmul, execShapeOp(t, "matmul", nil, x, w), x, wr)
		if want := len(tc.w) == 2; (kept(rt, wr.ConstID()) == 1) != want {
			t.Errorf("%v @ %v: %d packings kept", tc.x, tc.w, kept(rt, wr.ConstID()))
		}
		rt.Release(wr)
	}
	if n := rt.LiveRefs(); n != 0 {
		t.Errorf("%d refs leaked", n)
	}
}

// threeCalls runs op(x, weights...) three times on rt, x a fresh ref
// each time: every result must be want, bit for bit.
func threeCalls(t *testing.T, rt *refs.Runtime, op ops.Op, want, x *tensor.Dense, weights ...*refs.Ref) {
	t.Helper()
	for call := range 3 {
		xr := rt.FromHost(refs.Site{}, x.Clone())
		y, err := rt.Submit(refs.Site{}, op, nil, append([]*refs.Ref{xr}, weights...)...)
		if err != nil {
			t.Fatal(err)
		}
		got, err := rt.Read(y)
		if err != nil {
			t.Fatal(err)
		}
		sameBits(t, fmt.Sprintf("%s call %d", op, call+1), got, want)
		rt.Release(y)
		rt.Release(xr)
	}
}

// TestPackedWeightsUnderHostLimit checks that packings are host memory
// like any other: they count against the host limit (Stats.KeptBytes),
// take only the room it leaves, are given up before an allocation would
// fail, and the results never change.
func TestPackedWeightsUnderHostLimit(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	one := [2]int{1, 1}
	a := ops.Conv2dAttrs{Stride: one, PadLo: one, PadHi: one, Dilation: one, Groups: 1}
	x := randDense(r, tensor.Float32, 1, 64, 16, 16)
	w := randDense(r, tensor.Float32, 64, 64, 3, 3)
	b := randDense(r, tensor.Float32, 64)
	want := execShapeOp(t, "conv2d", a, x, w, b)
	run := func(t *testing.T, limit int64) (*refs.Runtime, *refs.Ref, *refs.Ref) {
		rt := refs.New(&Device{}, refs.Options{Lookahead: 4})
		rt.HostPool().Limit = limit
		wr, br := rt.FromHost(refs.Site{}, w.Clone()), rt.FromHost(refs.Site{}, b.Clone())
		for call := range 3 {
			sameBits(t, fmt.Sprintf("call %d", call+1), convOnRuntime(t, rt, a, x, wr, br), want)
		}
		return rt, wr, br
	}
	weights := int64(len(w.Buf) + len(b.Buf))
	io := int64(len(x.Buf) + len(want.Buf))
	var packed int64 // the packings' bytes without a limit

	t.Run("room", func(t *testing.T) {
		rt, wr, br := run(t, 0)
		s := rt.HostPool().Stats()
		packed = s.KeptBytes
		if packed == 0 || kept(rt, wr.ConstID()) == 0 {
			t.Fatalf("no limit: %d bytes kept in %d packings", s.KeptBytes, kept(rt, wr.ConstID()))
		}
		// A limit that leaves no room besides the live tensors and the
		// kept packings: an allocation gives up as many packings as it
		// needs (least recently used first) rather than fail.
		pool := rt.HostPool()
		pool.Limit = s.LiveBytes + s.KeptBytes
		if err := pool.Check(packed / 2); err != nil {
			t.Fatalf("an allocation the packings make room for: %v", err)
		}
		if k := pool.Stats().KeptBytes; k > packed-packed/2 || k == 0 {
			t.Errorf("%d of %d bytes kept after an allocation needed %d", k, packed, packed/2)
		}
		if err := pool.Check(packed + 1); err == nil {
			t.Errorf("an allocation over the limit with nothing kept passed")
		}
		rt.Release(wr)
		rt.Release(br)
	})
	t.Run("no-room", func(t *testing.T) {
		// Room for the weights, the input and the result, not for a
		// packing: nothing is kept and the results are the same.
		rt, wr, br := run(t, weights+io+packed/2)
		if s := rt.HostPool().Stats(); s.KeptBytes != 0 || s.LiveBytes+s.KeptBytes > rt.HostPool().Limit {
			t.Errorf("limit %d: %d bytes kept, %d live", rt.HostPool().Limit, s.KeptBytes, s.LiveBytes)
		}
		rt.Release(wr)
		rt.Release(br)
	})
	t.Run("just-room", func(t *testing.T) {
		// Room for the packings beside the weights, an input and a
		// result live and another cached.
		rt, wr, br := run(t, weights+2*io+packed+4096)
		s := rt.HostPool().Stats()
		if s.KeptBytes != packed {
			t.Errorf("limit %d: %d bytes kept, want %d", rt.HostPool().Limit, s.KeptBytes, packed)
		}
		if held := s.LiveBytes + s.KeptBytes + s.CachedBytes; held > rt.HostPool().Limit {
			t.Errorf("%d bytes held over the limit %d", held, rt.HostPool().Limit)
		}
		rt.Release(wr)
		rt.Release(br)
		if n := rt.HostPool().Stats().KeptBytes; n != 0 {
			t.Errorf("%d bytes kept after the weight died", n)
		}
	})
}
