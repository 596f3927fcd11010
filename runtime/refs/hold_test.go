package refs_test

import (
	"testing"

	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// negs submits n ops neg(x) and returns their results.
func negs(t *testing.T, rt *refs.Runtime, x *refs.Ref, n int) []*refs.Ref {
	t.Helper()
	var rs []*refs.Ref
	for range n {
		r, err := rt.Submit(refs.Site{}, ops.Neg, nil, x)
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, r)
	}
	return rs
}

// TestHoldQueuesBeyondTheLookahead: ops submitted under Hold stay queued
// beyond the lookahead until the hold ends, and the window then
// drains back to the lookahead at the next submit.
func TestHoldQueuesBeyondTheLookahead(t *testing.T) {
	rt := refs.New(&cpu.Device{}, refs.Options{Lookahead: 2})
	x := rt.FromHost(refs.Site{}, tensor.NewDense(tensor.Meta{Shape: tensor.Shape{4}, DType: tensor.Float32}))
	done := rt.Hold()
	rs := negs(t, rt, x, 10)
	if n := len(rt.Window()); n != 10 {
		t.Fatalf("window holds %d ops during the hold, want 10", n)
	}
	done()
	done() // a second call changes nothing
	r, err := rt.Submit(refs.Site{}, ops.Neg, nil, x)
	if err != nil {
		t.Fatal(err)
	}
	rs = append(rs, r)
	if n := len(rt.Window()); n != 2 {
		t.Fatalf("window holds %d ops after it, want the lookahead 2", n)
	}
	for _, r := range append(rs, x) {
		rt.Release(r)
	}
	if err := rt.Flush(); err != nil {
		t.Fatal(err)
	}
	if rt.LiveRefs() != 0 {
		t.Fatalf("%d refs live", rt.LiveRefs())
	}

	// With a lookahead of 0 every op still runs at once.
	rt0 := refs.New(&cpu.Device{}, refs.Options{})
	y := rt0.FromHost(refs.Site{}, tensor.NewDense(tensor.Meta{Shape: tensor.Shape{4}, DType: tensor.Float32}))
	defer rt0.Hold()()
	r0, err := rt0.Submit(refs.Site{}, ops.Neg, nil, y)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(rt0.Window()); n != 0 {
		t.Fatalf("lookahead 0: window holds %d ops", n)
	}
	rt0.Release(r0)
	rt0.Release(y)
}
