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
