package refs_test

import (
	"fmt"
	"testing"

	"github.com/tref-lang/tref/lang/pos"
	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// hostVec hands the runtime a float32 vector of n elements, all v.
func hostVec(rt *refs.Runtime, n int, v float32) *refs.Ref {
	d := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{n}, DType: tensor.Float32})
	for i := range d.F32() {
		d.F32()[i] = v
	}
	return rt.FromHost(refs.Site{Pos: pos.Pos{File: "t.tr", Line: 1, Col: 1}}, d)
}

// submit queues op over ins and drops the caller's references to ins, as
// the evaluator does at a variable's last use.
func submit(t *testing.T, rt *refs.Runtime, op ops.Op, ins ...*refs.Ref) *refs.Ref {
	t.Helper()
	r, err := rt.Submit(refs.Site{Pos: pos.Pos{File: "t.tr", Line: 2, Col: 1}}, op, nil, ins...)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range ins {
		rt.Release(in)
	}
	return r
}

// The chain x, y -> a = x + y -> b = -a -> c = exp(b), c read: the
// minimum is x, y and a together (1200 bytes). The cpu device measures
// that much without in-place reuse, and 800 with it (a takes x's buffer).
func TestMinPeakChain(t *testing.T) {
	for _, tc := range []struct {
		inplace  bool
		measured int64
	}{{false, 1200}, {true, 800}} {
		rt := refs.New(&cpu.Device{NoInplace: !tc.inplace}, refs.Options{Lookahead: 8})
		l := refs.NewLiveness()
		rt.SetObserver(l)
		x := hostVec(rt, 100, 1)
		y := hostVec(rt, 100, 2)
		a := submit(t, rt, ops.Add, x, y)
		b := submit(t, rt, ops.Neg, a)
		c := submit(t, rt, ops.Exp, b)
		d, err := rt.Read(c)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := d.F32()[99], float32(0.049787067); got != want {
			t.Fatalf("exp(-(1+2)) = %v, want %v", got, want)
		}
		rt.Release(c)
		mp := l.MinPeak()
		if mp.Bytes != 1200 || mp.At != 3 || len(mp.Live) != 3 {
			t.Errorf("minimum %d bytes at point %d with %d tensors; want 1200 at 3 with x, y, a",
				mp.Bytes, mp.At, len(mp.Live))
		}
		for i, want := range []uint64{x.ID(), y.ID(), a.ID()} {
			if i < len(mp.Live) && (mp.Live[i].ID != want || mp.Live[i].Bytes != 400) {
				t.Errorf("live[%d] = %+v, want ref#%d of 400 bytes", i, mp.Live[i], want)
			}
		}
		if got := rt.HostPool().Stats().PeakBytes; got != tc.measured {
			t.Errorf("inplace=%v: measured peak %d, want %d", tc.inplace, got, tc.measured)
		}
		if rt.LiveRefs() != 0 {
			t.Errorf("%d refs alive", rt.LiveRefs())
		}
	}
}

// A read by the program is a use: a tensor read after the chain stays
// live through it. A tensor never used needs no storage. A lazy tensor is
// live from its first use only.
func TestMinPeakReadsUnusedLazy(t *testing.T) {
	rt := refs.New(&cpu.Device{}, refs.Options{Lookahead: 8})
	l := refs.NewLiveness()
	rt.SetObserver(l)
	m := tensor.Meta{Shape: tensor.Shape{1000}, DType: tensor.Float32}
	lazy := rt.Lazy(refs.Site{}, m, func() (*tensor.Dense, error) { return tensor.NewDense(m), nil })
	keep := hostVec(rt, 10, 5) // 40 bytes, read at the end
	unused := hostVec(rt, 500, 0)
	rt.Release(unused)
	a := hostVec(rt, 100, 1)
	b := submit(t, rt, ops.Neg, a)  // point 5: a, b, keep = 840
	c := submit(t, rt, ops.Relu, b) // point 6: b, c, keep = 840
	s, err := rt.Submit(refs.Site{}, ops.Add, nil, c, lazy)
	if err == nil {
		t.Fatal("adding [100] and [1000] should fail to broadcast")
	}
	if s != nil {
		t.Fatal("a failed submit returned a ref")
	}
	lz := submit(t, rt, ops.Exp, lazy) // point 7: lazy, its exp, c, keep = 8440
	for _, r := range []*refs.Ref{lz, c, keep} {
		if _, err := rt.Read(r); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range []*refs.Ref{keep, c, lz} {
		rt.Release(r)
	}
	mp := l.MinPeak()
	if mp.Bytes != 8440 || mp.At != 7 {
		t.Errorf("minimum %d bytes at %d, want 8440 at 7 (lazy, exp, c, keep)", mp.Bytes, mp.At)
	}
	// Before the lazy tensor's first use the minimum is 840.
	rt2 := refs.New(&cpu.Device{}, refs.Options{Lookahead: 8})
	l2 := refs.NewLiveness()
	rt2.SetObserver(l2)
	lazy2 := rt2.Lazy(refs.Site{}, m, func() (*tensor.Dense, error) { return tensor.NewDense(m), nil })
	keep2 := hostVec(rt2, 10, 5)
	c2 := submit(t, rt2, ops.Relu, submit(t, rt2, ops.Neg, hostVec(rt2, 100, 1)))
	for _, r := range []*refs.Ref{c2, keep2} {
		if _, err := rt2.Read(r); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range []*refs.Ref{keep2, c2, lazy2} {
		rt2.Release(r)
	}
	if mp := l2.MinPeak(); mp.Bytes != 840 {
		t.Errorf("unused lazy tensor counted: minimum %d bytes, want 840", mp.Bytes)
	}
	if l2.Tensors() != 5 {
		t.Errorf("recorded %d tensors, want 5", l2.Tensors())
	}
}

// Reads the cpu executor makes of an op's inputs while running it are not
// the program's reads: they must not stretch the inputs' lives to the
// point where the window happens to run.
func TestMinPeakIgnoresExecutorReads(t *testing.T) {
	rt := refs.New(&cpu.Device{NoInplace: true}, refs.Options{Lookahead: 64})
	l := refs.NewLiveness()
	rt.SetObserver(l)
	a := hostVec(rt, 100, 1)
	b := submit(t, rt, ops.Neg, a) // point 2: a, b
	for range 10 {
		rt.Release(hostVec(rt, 1, 0))
	}
	last := submit(t, rt, ops.Exp, b) // point 13: b, last
	if _, err := rt.Read(last); err != nil {
		t.Fatal(err)
	}
	rt.Release(last)
	if mp := l.MinPeak(); mp.Bytes != 800 {
		t.Errorf("minimum %d, want 800 (two 400-byte tensors at a time)", mp.Bytes)
	}
}

// The timeline gives the minimum's live bytes at every program point; its
// largest value is MinPeak.
func TestLivenessTimeline(t *testing.T) {
	rt := refs.New(&cpu.Device{}, refs.Options{Lookahead: 8})
	l := refs.NewLiveness()
	rt.SetObserver(l)
	x := hostVec(rt, 100, 1)          // 1: x
	y := hostVec(rt, 100, 2)          // 2: x y
	a := submit(t, rt, ops.Add, x, y) // 3: x y a
	b := submit(t, rt, ops.Neg, a)    // 4: a b
	rt.Release(hostVec(rt, 5, 0))     // 5: b (unused)
	c := submit(t, rt, ops.Exp, b)    // 6: b c
	if _, err := rt.Read(c); err != nil {
		t.Fatal(err)
	}
	rt.Release(c)
	got := fmt.Sprint(l.Timeline())
	if want := "[400 800 1200 800 400 800]"; got != want {
		t.Errorf("timeline %s, want %s", got, want)
	}
}
