package sim

import (
	"testing"

	"github.com/tref-lang/tref/runtime/device"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// TestDataPlane moves a tensor in, runs an op on it, moves the result
// out, and checks the memory the device holds on the way.
func TestDataPlane(t *testing.T) {
	d := New("sim:0", true)
	if c := d.Caps(); c.Clock != device.Virtual || !c.InPlace || !c.ExactFallback || c.Memory != DefaultMem {
		t.Fatalf("caps %+v", c)
	}
	if New("sim:1", false).Caps().InPlace {
		t.Fatal("in-place results not turned off")
	}
	m := tensor.Meta{Shape: tensor.Shape{4}, DType: tensor.Float32}
	src := tensor.NewDense(m)
	copy(src.F32(), []float32{1, -2, 3, -4})
	rt := refs.New(&noHost{}, refs.Options{Lookahead: 1 << 20})
	x := rt.FromHost(refs.Site{}, src)
	y, err := rt.Submit(refs.Site{}, ops.Relu, nil, x)
	if err != nil {
		t.Fatal(err)
	}
	if why := d.Supports(y.Op()); why != "" {
		t.Fatal(why)
	}
	in, _ := d.Alloc(m)
	out, _ := d.Alloc(m)
	if _, err := d.CopyIn(in, src); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Run(y.Op(), out, []device.Memory{in}); err != nil {
		t.Fatal(err)
	}
	dst := tensor.NewDense(m)
	if _, err := d.CopyOut(dst, out); err != nil {
		t.Fatal(err)
	}
	if got := dst.F32(); got[0] != 1 || got[1] != 0 || got[2] != 3 || got[3] != 0 {
		t.Fatalf("relu gave %v", got)
	}
	if st := d.Stats(); st.LiveRefs != 2 || st.LiveBytes != 32 {
		t.Fatalf("stats %+v", st)
	}
	if d.Close() == nil {
		t.Fatal("Close with live buffers did not complain")
	}
	short := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{3}, DType: tensor.Float32})
	if _, err := d.CopyIn(in, short); err == nil {
		t.Fatal("a copy of the wrong size succeeded")
	}
	d.Free(in)
	d.Free(out)
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	rt.Release(y)
	rt.Release(x)
}

// noHost is an executor that is never asked to run anything.
type noHost struct{}

func (*noHost) Execute(*refs.Runtime, *refs.Op, []*refs.Op) error { panic("ran") }
func (*noHost) ToHost(*refs.Runtime, *refs.Ref) error             { panic("read") }
func (*noHost) Drop(*refs.Runtime, *refs.Ref)                     {}
func (*noHost) Sync(*refs.Runtime) error                          { return nil }
func (*noHost) Stats() []refs.DeviceStats                         { return nil }

// TestCacheWithinBudget: the blocks the device caches after frees stay
// within what its live blocks leave of the budget (--mem), so that
// memstats never reports more cached bytes than the card has (it cached up
// to 64 MiB under any budget).
func TestCacheWithinBudget(t *testing.T) {
	dev, err := device.Open(device.Spec{Kind: "sim", Name: "sim:0"}, device.Options{Mem: 256 << 10})
	if err != nil {
		t.Fatal(err)
	}
	d := dev.(*Device)
	check := func(when string) {
		t.Helper()
		st := d.Stats()
		if st.CachedBytes > 256<<10 || st.LiveBytes+st.SlackBytes+st.CachedBytes > 256<<10 {
			t.Fatalf("%s: %d live, %d slack, %d cached bytes: past the 256 KiB budget", when, st.LiveBytes, st.SlackBytes, st.CachedBytes)
		}
	}
	var live []device.Memory
	for n := 1; n < 60; n++ {
		m := tensor.Meta{Shape: tensor.Shape{n * 256}, DType: tensor.Float32}
		mem, err := d.Alloc(m)
		if err != nil {
			t.Fatal(err)
		}
		check("after an allocation")
		live = append(live, mem)
		if len(live) > 2 {
			d.Free(live[0])
			live = live[1:]
			check("after a free")
		}
	}
	if d.Stats().CachedBytes == 0 {
		t.Error("nothing cached: the test does not exercise the cache")
	}
	for _, mem := range live {
		d.Free(mem)
	}
	check("at the end")
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
}
