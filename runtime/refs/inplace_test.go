package refs_test

import (
	"strings"
	"testing"
	"unsafe"

	"github.com/tref-lang/tref/lang/pos"
	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

func bufAddr(t *testing.T, rt *refs.Runtime, r *refs.Ref) *byte {
	t.Helper()
	d, err := rt.Read(r)
	if err != nil {
		t.Fatal(err)
	}
	return unsafe.SliceData(d.Buf)
}

func wantAll(t *testing.T, rt *refs.Runtime, r *refs.Ref, v float32) {
	t.Helper()
	d, err := rt.Read(r)
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range d.F32() {
		if x != v {
			t.Fatalf("ref#%d[%d] = %v, want %v", r.ID(), i, x, v)
		}
	}
}

// An elementwise op whose operand dies at that op writes its result into
// the operand's buffer; while the operand is alive (a variable still holds
// it) the result gets a buffer of its own and the operand keeps its values.
func TestInplaceWhenOperandDies(t *testing.T) {
	rt := refs.New(&cpu.Device{}, refs.Options{Lookahead: 8})
	site := refs.Site{}

	// The operand dies: neg(x) takes x's buffer.
	x := hostVec(rt, 256, 3)
	xbuf := bufAddr(t, rt, x)
	y, err := rt.Submit(site, ops.Neg, nil, x)
	if err != nil {
		t.Fatal(err)
	}
	rt.Release(x) // the variable's last use was the op
	if got := bufAddr(t, rt, y); got != xbuf {
		t.Error("neg of a dying operand did not write into its buffer")
	}
	wantAll(t, rt, y, -3)
	if s := rt.HostPool().Stats(); s.LiveRefs != 1 || s.LiveBytes != 1024 || s.PeakBytes != 1024 || s.Misses != 0 {
		t.Errorf("in place: %+v; want one 1024-byte buffer, never two", s)
	}

	// The operand lives on: relu(y) needs a new buffer; y is unchanged.
	z, err := rt.Submit(site, ops.Relu, nil, y)
	if err != nil {
		t.Fatal(err)
	}
	if got := bufAddr(t, rt, z); got == xbuf {
		t.Error("relu wrote into an operand that is still alive")
	}
	wantAll(t, rt, z, 0)
	wantAll(t, rt, y, -3)
	if s := rt.HostPool().Stats(); s.LiveBytes != 2048 || s.Misses != 1 {
		t.Errorf("operand alive: %+v; want two buffers", s)
	}

	// A binary op takes the buffer of whichever operand dies: here the
	// second (z), while y stays.
	zbuf := bufAddr(t, rt, z)
	w, err := rt.Submit(site, ops.Add, nil, y, z)
	if err != nil {
		t.Fatal(err)
	}
	rt.Release(z)
	if got := bufAddr(t, rt, w); got != zbuf {
		t.Error("add did not reuse its dying second operand")
	}
	wantAll(t, rt, w, -3)
	wantAll(t, rt, y, -3)
	rt.Release(w)
	rt.Release(y)
	if rt.LiveRefs() != 0 || rt.HostPool().Stats().LiveBytes != 0 {
		t.Errorf("%d refs, %d bytes alive", rt.LiveRefs(), rt.HostPool().Stats().LiveBytes)
	}
}

// A dying operand whose shape or dtype differs from the result's (a
// broadcast, a promotion) is not reused; nor is one used twice by the op.
func TestInplaceNeedsSameShapeAndDType(t *testing.T) {
	rt := refs.New(&cpu.Device{}, refs.Options{Lookahead: 8})
	site := refs.Site{}
	small := hostVec(rt, 1, 2)
	big := hostVec(rt, 64, 5)
	bigbuf, smallbuf := bufAddr(t, rt, big), bufAddr(t, rt, small)
	// small dies, but the result has big's shape; big stays alive.
	r1, err := rt.Submit(site, ops.Mul, nil, small, big)
	if err != nil {
		t.Fatal(err)
	}
	rt.Release(small)
	if a := bufAddr(t, rt, r1); a == bigbuf || a == smallbuf {
		t.Error("a broadcast result reused an operand's buffer")
	}
	wantAll(t, rt, r1, 10)
	wantAll(t, rt, big, 5)

	// int64 operand dies; the sum promotes to float32.
	id := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{64}, DType: tensor.Int64})
	for i := range id.I64() {
		id.I64()[i] = 1
	}
	ints := rt.FromHost(site, id)
	intbuf := bufAddr(t, rt, ints)
	r2, err := rt.Submit(site, ops.Add, nil, ints, r1)
	if err != nil {
		t.Fatal(err)
	}
	rt.Release(ints)
	if a := bufAddr(t, rt, r2); a == intbuf {
		t.Error("a promoted result reused the int64 operand's buffer")
	}
	wantAll(t, rt, r2, 11)

	// The same ref twice: two references, so it is not dying at the op...
	r3, err := rt.Submit(site, ops.Mul, nil, big, big)
	if err != nil {
		t.Fatal(err)
	}
	if a := bufAddr(t, rt, r3); a == bigbuf {
		t.Error("big * big wrote into big, which is still alive")
	}
	wantAll(t, rt, r3, 25)
	wantAll(t, rt, big, 5)
	for _, r := range []*refs.Ref{big, r1, r2, r3} {
		rt.Release(r)
	}

	// ...and NoInplace turns reuse off.
	rt2 := refs.New(&cpu.Device{NoInplace: true}, refs.Options{Lookahead: 8})
	x := hostVec(rt2, 16, 1)
	xbuf := bufAddr(t, rt2, x)
	y, err := rt2.Submit(site, ops.Exp, nil, x)
	if err != nil {
		t.Fatal(err)
	}
	rt2.Release(x)
	if bufAddr(t, rt2, y) == xbuf {
		t.Error("NoInplace still reused a dying operand")
	}
	rt2.Release(y)
}

// A reshape of an operand that dies at it takes the operand's buffer and
// copies nothing (ops.Def.KeepsBytes), and the buffer takes the new
// shape; a reshape of a live operand gets a copy, and the operand keeps
// its own shape and values.
func TestReshapeOfDyingOperandKeepsItsBuffer(t *testing.T) {
	rt := refs.New(&cpu.Device{}, refs.Options{Lookahead: 8})
	site := refs.Site{}
	d := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{24}, DType: tensor.Float32})
	for i := range d.F32() {
		d.F32()[i] = float32(i)
	}
	x := rt.FromHost(site, d)
	xbuf := bufAddr(t, rt, x)

	// x lives on (the variable still holds it): y is a copy.
	y, err := rt.Submit(site, ops.Reshape, ops.ReshapeAttrs{Shape: tensor.Shape{4, 6}}, x)
	if err != nil {
		t.Fatal(err)
	}
	if bufAddr(t, rt, y) == xbuf {
		t.Error("a reshape took the buffer of an operand that is still alive")
	}
	// y dies at the next reshape: z takes its buffer.
	ybuf := bufAddr(t, rt, y)
	z, err := rt.Submit(site, ops.Reshape, ops.ReshapeAttrs{Shape: tensor.Shape{2, 3, 4}}, y)
	if err != nil {
		t.Fatal(err)
	}
	rt.Release(y)
	misses := rt.HostPool().Stats().Misses
	zd, err := rt.Read(z)
	if err != nil {
		t.Fatal(err)
	}
	if unsafe.SliceData(zd.Buf) != ybuf {
		t.Error("a reshape of a dying operand copied it")
	}
	if s := rt.HostPool().Stats(); s.Misses != misses || s.LiveRefs != 2 {
		t.Errorf("after the reshape of a dying operand: %+v; want no new buffer and two live", s)
	}
	if !zd.Shape.Equal(tensor.Shape{2, 3, 4}) {
		t.Errorf("the taken buffer has shape %v, want [2 3 4]", zd.Shape)
	}
	xd, err := rt.Read(x)
	if err != nil {
		t.Fatal(err)
	}
	if !xd.Shape.Equal(tensor.Shape{24}) {
		t.Errorf("x's buffer has shape %v, want [24]", xd.Shape)
	}
	for i := range 24 {
		if zd.F32()[i] != float32(i) || xd.F32()[i] != float32(i) {
			t.Fatalf("element %d: z %v, x %v, want %d", i, zd.F32()[i], xd.F32()[i], i)
		}
	}
	rt.Release(x)
	rt.Release(z)
	if rt.LiveRefs() != 0 || rt.HostPool().Stats().LiveBytes != 0 {
		t.Errorf("%d refs, %d bytes alive", rt.LiveRefs(), rt.HostPool().Stats().LiveBytes)
	}
}

// With TrackRefs, the refs alive at the end are listed oldest first, each
// with the site that made it; freed refs are not.
func TestLeaksNameTheirSites(t *testing.T) {
	rt := refs.New(&cpu.Device{}, refs.Options{Lookahead: 8, TrackRefs: true})
	a := rt.FromHost(refs.Site{Pos: pos.Pos{File: "m.tr", Line: 1, Col: 9}}, tensor.NewDense(tensor.Meta{Shape: tensor.Shape{3}, DType: tensor.Float32}))
	b, err := rt.Submit(refs.Site{Pos: pos.Pos{File: "m.tr", Line: 2, Col: 11}}, ops.Neg, nil, a)
	if err != nil {
		t.Fatal(err)
	}
	c, err := rt.Submit(refs.Site{Pos: pos.Pos{File: "m.tr", Line: 3, Col: 5}}, ops.Exp, nil, b)
	if err != nil {
		t.Fatal(err)
	}
	rt.Release(c)
	if err := rt.Flush(); err != nil {
		t.Fatal(err)
	}
	leaks := rt.Leaks()
	var got []string
	for _, r := range leaks {
		got = append(got, r.Site().Pos.String()+" "+r.Meta().String())
	}
	if want := "m.tr:1:9 float32[3]|m.tr:2:11 float32[3]"; strings.Join(got, "|") != want {
		t.Errorf("leaks %q, want %q", strings.Join(got, "|"), want)
	}
	if rt.LiveRefs() != 2 {
		t.Errorf("%d live refs, want 2", rt.LiveRefs())
	}
	rt.Release(a)
	rt.Release(b)
	if len(rt.Leaks()) != 0 || rt.LiveRefs() != 0 {
		t.Errorf("after releasing: %d leaks, %d live", len(rt.Leaks()), rt.LiveRefs())
	}
}
