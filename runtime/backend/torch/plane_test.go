package torch

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"unsafe"

	"github.com/tref-lang/tref/runtime/backend/cuda"
	"github.com/tref-lang/tref/runtime/device"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/placement"
	"github.com/tref-lang/tref/runtime/placement/trace"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// fakeTorchKernels runs libtorch's CPU kernels (through the plugin's
// functions for plane memory, as on CUDA) as work on the fake CUDA
// runtime's streams, over the fake's device memory.
type fakeTorchKernels struct {
	f *cuda.Fake
	k *planeKernels
}

func (t fakeTorchKernels) Supports(op *refs.Op) string { return t.k.Supports(op) }

func (t fakeTorchKernels) Launch(s cuda.Stream, op *refs.Op, out cuda.Ptr, ins []cuda.Ptr) error {
	ins = append([]cuda.Ptr(nil), ins...)
	c, err := t.k.prepare(op)
	if err != nil {
		return err
	}
	return t.f.Launch(s, func() {
		addr := func(p cuda.Ptr, want int64) (uintptr, bool) {
			b := t.f.Bytes(p)
			if int64(len(b)) != want {
				t.f.Fail(fmt.Errorf("kernel %s on %#x: %d bytes allocated, %d wanted", c.op.Name(), p, len(b), want))
				return 0, false
			}
			return uintptr(unsafe.Pointer(unsafe.SliceData(b))), true
		}
		as := make([]uintptr, len(ins))
		for i, p := range ins {
			a, ok := addr(p, c.inputs[i].Bytes())
			if !ok {
				return
			}
			as[i] = a
		}
		o, ok := addr(out, c.out.Bytes())
		if !ok {
			return
		}
		if err := t.k.run(c, o, as); err != nil {
			t.f.Fail(err)
		}
	})
}

func init() {
	device.Register(device.Kind{Name: "torchfake", Indexed: true, Open: func(spec device.Spec, _ device.Options) (device.Device, error) {
		lib, err := Load("")
		if err != nil {
			return nil, err
		}
		k, err := newPlaneKernels(lib, -1)
		if err != nil {
			return nil, err
		}
		f := cuda.NewFake(1 << 30)
		f.CopiesFirst = spec.Index == 1
		return cuda.NewPlane(f, fakeTorchKernels{f, k}, cuda.Config{Name: spec.Name, Staging: 8 << 10})
	}})
}

// TestPlaneDifferential: random programs on the CUDA data plane over the
// fake runtime, with libtorch's kernels run on the plane's memory by the
// plugin's tt_wrap_memory and tt_op_into (the calls the plane makes on a
// GPU), under flow, lru and genoa and budgets down to the largest working
// set, are bit-identical with torch:cpu resident. torchfake:1 runs the
// copies before the kernels, torchfake:0 the other way round.
func TestPlaneDifferential(t *testing.T) {
	if _, err := newPlaneKernels(plugin(t), -1); err != nil {
		// A plugin built before tt_wrap_memory (a stale cache).
		if os.Getenv("TREF_REQUIRE_TORCH") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	count := 24
	if testing.Short() {
		count = 8
	}
	var evictions int64
	for i := range count {
		p := randomProgram{n: 8 + i%9, inputs: 3 + i%3, steps: 6 + i%7, loops: 2 + i%3, seed: uint64(2000 + i)}
		lookahead := []int{1, 4, 16, 64}[i%4]
		want, res, maxWS := runOnTorch(t, p, lookahead, 0, "flow")
		peak := res.PeakBytes["torch:cpu"]
		dev := fmt.Sprintf("torchfake:%d", i%2)
		for _, budget := range []int64{0, maxWS, max(maxWS, peak/2), max(maxWS, peak/4)} {
			for _, st := range []string{"flow", "lru", "genoa"} {
				name := fmt.Sprintf("program %d (%+v) lookahead %d on %s, %s under %d bytes", i, p, lookahead, dev, st, budget)
				got, tot, _ := runOn(t, dev, p, lookahead, budget, st)
				if len(got) != len(want) {
					t.Fatalf("%s: %d results, torch:cpu %d", name, len(got), len(want))
				}
				for j := range want {
					if msg := identical(got[j], want[j]); msg != "" {
						t.Fatalf("%s: result %d: %s", name, j, msg)
					}
				}
				if budget > 0 && tot.PeakBytes[dev] > budget {
					t.Fatalf("%s: peak %d bytes", name, tot.PeakBytes[dev])
				}
				evictions += tot.Evictions
			}
		}
	}
	if evictions == 0 {
		t.Fatal("no evictions")
	}
}

// TestPlaneFull: full on the CUDA data plane fills the plane's own memory
// in place (the plugin's tt_op_into with the output given) and copies
// nothing to the device: zeros + ones, read back, is ones, and the only
// copy is the result's way home.
func TestPlaneFull(t *testing.T) {
	if _, err := newPlaneKernels(plugin(t), -1); err != nil {
		t.Skip(err)
	}
	rec := trace.NewRecorder()
	ex, err := placement.NewExecutor(placement.Config{Device: "torchfake:0", Strategy: "flow", Trace: rec})
	if err != nil {
		t.Fatal(err)
	}
	eng := ex.(*placement.Engine)
	rt := refs.New(eng, refs.Options{Lookahead: 8})
	full := func(v ops.Scalar) *refs.Ref {
		r, err := rt.Submit(refs.Site{}, ops.Full, ops.FullAttrs{Shape: tensor.Shape{64, 33}, Value: v})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	a, b := full(ops.FloatScalar(0, tensor.Float32)), full(ops.FloatScalar(1, tensor.Float32))
	sum, err := rt.Submit(refs.Site{}, ops.Add, nil, a, b)
	if err != nil {
		t.Fatal(err)
	}
	rt.Release(a)
	rt.Release(b)
	d, err := rt.Read(sum)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range d.F32() {
		if v != 1 {
			t.Fatalf("element %d is %v, want 1", i, v)
		}
	}
	rt.Release(sum)
	tot, err := eng.Finish()
	if err == nil {
		err = eng.Accelerator().Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	if tot.BytesH2D != 0 || tot.BytesD2H != 64*33*4 {
		t.Errorf("moved %d bytes in and %d out, want 0 and %d", tot.BytesH2D, tot.BytesD2H, 64*33*4)
	}
}

// TestPlaneWritesInPlace: on the CUDA data plane the ops with an out=
// variant (matmul of matrices, add, exp, relu as clamp_min) write the
// plane's output directly; pow's result is copied there; the values are
// torch:cpu's.
func TestPlaneWritesInPlace(t *testing.T) {
	lib := plugin(t)
	if _, err := newPlaneKernels(lib, -1); err != nil {
		t.Skip(err)
	}
	// x is a fresh input: the runtime takes the buffer it is given.
	x := func() *tensor.Dense {
		d := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{8, 8}, DType: tensor.Float32})
		for i := range d.F32() {
			d.F32()[i] = float32(i%5) - 2
		}
		return d
	}
	// run computes matmul(x, x), + x, exp(x), relu of the sum and x ** x
	// on dev.
	run := func(dev string) [][]float32 {
		ex, err := placement.NewExecutor(placement.Config{Device: dev, Strategy: "flow", Trace: trace.NewRecorder()})
		if err != nil {
			t.Fatal(err)
		}
		eng := ex.(*placement.Engine)
		rt := refs.New(eng, refs.Options{Lookahead: 8})
		submit := func(op ops.Op, ins ...*refs.Ref) *refs.Ref {
			r, err := rt.Submit(refs.Site{}, op, nil, ins...)
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
		a := rt.FromHost(refs.Site{}, x())
		mm := submit(ops.Matmul, a, a)
		sum := submit(ops.Add, mm, a)
		e := submit(ops.Exp, a)
		r := submit(ops.Relu, sum)
		pw := submit(ops.Pow, a, a)
		var got [][]float32
		for _, ref := range []*refs.Ref{mm, sum, e, r, pw} {
			d, err := rt.Read(ref)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, append([]float32(nil), d.F32()...))
		}
		for _, ref := range []*refs.Ref{a, mm, sum, e, r, pw} {
			rt.Release(ref)
		}
		if _, err := eng.Finish(); err != nil {
			t.Fatal(err)
		}
		if err := eng.Accelerator().Close(); err != nil {
			t.Fatal(err)
		}
		return got
	}
	want := run("torch:cpu")
	perBefore := lib.IntoOpStats()
	got := run("torchfake:0")
	perAfter := lib.IntoOpStats()
	before, after := Total(perBefore), Total(perAfter)
	for i, name := range []string{"matmul", "add", "exp", "relu", "pow"} {
		for j := range want[i] {
			if got[i][j] != want[i][j] {
				t.Fatalf("%s element %d: %v, torch:cpu %v", name, j, got[i][j], want[i][j])
			}
		}
	}
	if direct, copied := after.Direct-before.Direct, after.Copied-before.Copied; direct != 4 || copied != 1 {
		t.Fatalf("%d ops wrote their output directly and %d were copied, want 4 and 1 (pow)", direct, copied)
	}
	// Per op: the same counts, and the time of each op's part.
	for op, want := range map[string][2]int64{"matmul": {1, 0}, "add": {1, 0}, "exp": {1, 0}, "relu": {1, 0}, "pow": {0, 1}} {
		d := perAfter[op].Sub(perBefore[op])
		if d.Direct != want[0] || d.Copied != want[1] || d.OpNs <= 0 || (d.Copied > 0) != (d.CopyNs > 0) {
			t.Errorf("%s: %+v, want %d written directly and %d copied, with their times", op, d, want[0], want[1])
		}
	}
}

// TestTuneFromEnv: the TREF_CUDA_* settings reach the plane's Config in
// their units, and a bad one is an error naming it.
func TestTuneFromEnv(t *testing.T) {
	env := map[string]string{"TREF_CUDA_STAGE": "sync", "TREF_CUDA_STAGING_MIB": "32", "TREF_CUDA_CHUNK_MIB": "4",
		"TREF_CUDA_COPY_SPLIT_KIB": "1024", "TREF_CUDA_COPY_PIECE_KIB": "256", "TREF_CUDA_STAGING_REGISTER": "0", "TREF_CUDA_PREALLOC": "3", "TREF_CUDA_PIN_AT": "birth"}
	var cfg cuda.Config
	if err := tuneFromEnv(&cfg, func(k string) string { return env[k] }); err != nil {
		t.Fatal(err)
	}
	want := cuda.Config{StageAsync: -1, Staging: 32 << 20, Chunk: 4 << 20, CopySplit: 1 << 20, CopyPiece: 256 << 10, StagingHostAlloc: true, Prealloc: 3, PinAt: cuda.PinAtBirth}
	if cfg != want {
		t.Fatalf("got %+v\nwant %+v", cfg, want)
	}
	var none cuda.Config
	if err := tuneFromEnv(&none, func(k string) string { return map[string]string{"TREF_CUDA_PREALLOC": "0"}[k] }); err != nil || none.Prealloc != -1 {
		t.Fatalf("TREF_CUDA_PREALLOC=0: %+v (%v), want Prealloc -1 (none ahead)", none, err)
	}
	var wait cuda.Config
	if err := tuneFromEnv(&wait, func(k string) string { return map[string]string{"TREF_CUDA_STAGE": "wait"}[k] }); err != nil || wait != (cuda.Config{StageWait: true}) {
		t.Fatalf("TREF_CUDA_STAGE=wait: %+v (%v), want StageWait alone", wait, err)
	}
	for _, bad := range []struct{ name, value string }{
		{"TREF_CUDA_CHUNK_MIB", "0"}, {"TREF_CUDA_CHUNK_MIB", "-1"}, {"TREF_CUDA_CHUNK_MIB", "x"},
		{"TREF_CUDA_CHUNK_MIB", "2097152"}, {"TREF_CUDA_STAGING_REGISTER", "yes"}, {"TREF_CUDA_PIN_AT", "third"}, {"TREF_CUDA_STAGE", "later"},
		{"TREF_CUDA_PREALLOC", "-1"}, {"TREF_CUDA_PREALLOC", "65"},
	} {
		err := tuneFromEnv(&cfg, func(k string) string {
			if k == bad.name {
				return bad.value
			}
			return ""
		})
		if err == nil || !strings.Contains(err.Error(), bad.name) {
			t.Errorf("%s=%s: %v", bad.name, bad.value, err)
		}
	}
}
