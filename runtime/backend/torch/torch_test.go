package torch

import (
	"os"
	"strings"
	"testing"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// noSuchOp is registered in tref but not implemented by the plugin.
var noSuchOp = ops.Register(&ops.Def{Name: "no_such_op", Infer: func(in []tensor.Meta, _ any) (tensor.Meta, error) { return in[0], nil }})

// plugin loads the plugin or skips; with TREF_REQUIRE_TORCH=1 (set by
// .ci/run, which builds the plugin first) a missing plugin fails instead.
func plugin(t testing.TB) *Lib {
	t.Helper()
	lib, err := Load("")
	if err != nil {
		if os.Getenv("TREF_REQUIRE_TORCH") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	return lib
}

func denseF32(shape tensor.Shape, vals ...float32) *tensor.Dense {
	d := tensor.NewDense(tensor.Meta{Shape: shape, DType: tensor.Float32})
	copy(d.F32(), vals)
	return d
}

func TestRoundTripAndOp(t *testing.T) {
	lib := plugin(t)
	a, err := lib.FromHost(denseF32(tensor.Shape{2, 2}, 1, 2, 3, 4), -1)
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Free(a)
	b, err := lib.FromHost(denseF32(tensor.Shape{2}, 10, 20), -1)
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Free(b)
	c, err := lib.Op(ops.Add, []Handle{a, b}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Free(c)
	if m := lib.Meta(c); m.String() != "float32[2, 2]" {
		t.Fatalf("meta %v", m)
	}
	out := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{2, 2}, DType: tensor.Float32})
	if err := lib.ToHost(c, out); err != nil {
		t.Fatal(err)
	}
	want := []float32{11, 22, 13, 24}
	for i, v := range out.F32() {
		if v != want[i] {
			t.Fatalf("add: got %v, want %v", out.F32(), want)
		}
	}
}

func TestErrorsCrossTheABIAsMessages(t *testing.T) {
	lib := plugin(t)
	a, _ := lib.FromHost(denseF32(tensor.Shape{2, 3}), -1)
	b, _ := lib.FromHost(denseF32(tensor.Shape{4, 5}), -1)
	defer lib.Free(a)
	defer lib.Free(b)
	if _, err := lib.Op(ops.Matmul, []Handle{a, b}, nil, nil); err == nil || !strings.Contains(err.Error(), "torch:") {
		t.Fatalf("matmul of [2,3] and [4,5]: err = %v, want a torch error", err)
	}
	if _, err := lib.op(cstring("no_such_op"), []Handle{a}, nil, nil); err == nil || !strings.Contains(err.Error(), "no op no_such_op") {
		t.Fatalf("unknown op: err = %v", err)
	}
	if _, err := lib.Op(ops.Astype, []Handle{a}, nil, nil); err == nil || !strings.Contains(err.Error(), "missing int attribute") {
		t.Fatalf("missing attribute: err = %v", err)
	}
	if lib.HasOp(noSuchOp) || !lib.HasOp(ops.Add) {
		t.Fatal("HasOp disagrees with the plugin")
	}
}

// TestResultsOwnTheirStorage: a result that would be a view into a larger
// operand (a slice) gets its own storage, so that freeing the operand
// frees its memory: the engine counts each tensor's own bytes.
func TestResultsOwnTheirStorage(t *testing.T) {
	lib := plugin(t)
	x, err := lib.FromHost(denseF32(tensor.Shape{64, 64}), -1)
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Free(x)
	if n := lib.StorageBytes(x); n != 64*64*4 {
		t.Fatalf("a tensor of 16 KiB keeps %d bytes", n)
	}
	// x[0:1]: one dimension, kept, from 0, one row, step 1.
	row, err := lib.Op(ops.Index, []Handle{x}, []int64{1, 1, 0, 1, 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Free(row)
	if m := lib.Meta(row); m.String() != "float32[1, 64]" {
		t.Fatalf("x[0:1] is %v", m)
	}
	if n := lib.StorageBytes(row); n != 64*4 {
		t.Fatalf("x[0:1] keeps %d bytes alive, want its own 256", n)
	}
}
