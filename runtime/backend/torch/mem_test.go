package torch

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/tref-lang/tref/lang/pos"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/placement"
	"github.com/tref-lang/tref/runtime/placement/trace"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// wsProbe records the largest working set of the ops placed on the
// accelerator.
type wsProbe struct {
	placement.Base
	max int64
}

func (w *wsProbe) BeforeOp(_ *placement.Engine, ev *placement.OpEvent) error {
	w.max = max(w.max, ev.WorkingSet)
	return nil
}

// runOnTorch runs p on torch:cpu under mem bytes (0: resident) and
// strategy, and returns its results, its totals and the largest working
// set; it checks that libtorch holds no tensor at the end.
func runOnTorch(t *testing.T, p randomProgram, lookahead int, mem int64, strategy string) ([]*tensor.Dense, *trace.Totals, int64) {
	t.Helper()
	return runOn(t, "torch:cpu", p, lookahead, mem, strategy)
}

// runOn is runOnTorch on device dev.
func runOn(t *testing.T, dev string, p randomProgram, lookahead int, mem int64, strategy string) ([]*tensor.Dense, *trace.Totals, int64) {
	t.Helper()
	probe := &wsProbe{}
	rec := trace.NewRecorder()
	ex, err := placement.NewExecutor(placement.Config{Device: dev, Mem: mem, Strategy: strategy, Trace: rec,
		Middleware: []placement.Middleware{probe, &placement.BudgetGuard{}}})
	if err != nil {
		t.Fatal(err)
	}
	eng := ex.(*placement.Engine)
	got := p.run(t, eng, lookahead)
	if st := eng.Accelerator().Stats(); st.LiveRefs != 0 || st.LiveBytes != 0 {
		t.Fatalf("libtorch still holds %d tensors, %d bytes", st.LiveRefs, st.LiveBytes)
	}
	tot, err := eng.Finish()
	if err == nil {
		err = eng.Accelerator().Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	return got, tot, probe.max
}

// TestMemDifferential runs random programs on torch:cpu under budgets
// from the largest op's working set up, with every strategy that uses the
// device: every result is bit-identical to torch:cpu with every tensor
// resident, libtorch never holds more bytes than the budget, and nothing
// is left at the end. Real tensors move between tref's host buffers and
// libtorch: prefetches, evictions, write-backs, frees at last use.
func TestMemDifferential(t *testing.T) {
	plugin(t)
	count := 60
	if testing.Short() {
		count = 15
	}
	var seen trace.Totals
	for i := range count {
		p := randomProgram{n: 8 + i%9, inputs: 3 + i%3, steps: 6 + i%7, loops: 2 + i%3, seed: uint64(1000 + i)}
		lookahead := []int{1, 4, 16, 64}[i%4]
		want, res, maxWS := runOnTorch(t, p, lookahead, 0, "flow")
		if res.Fallbacks != 0 || res.Evictions != 0 {
			t.Fatalf("program %d resident: %d fallbacks, %d evictions", i, res.Fallbacks, res.Evictions)
		}
		peak := res.PeakBytes["torch:cpu"]
		for _, budget := range []int64{maxWS, maxWS + maxWS/3, max(maxWS, peak/2), max(maxWS, peak/4)} {
			for _, st := range []string{"flow", "lru", "genoa"} {
				name := fmt.Sprintf("program %d (%+v) lookahead %d, %s under %d bytes", i, p, lookahead, st, budget)
				got, tot, _ := runOnTorch(t, p, lookahead, budget, st)
				if len(got) != len(want) {
					t.Fatalf("%s: %d results, resident %d", name, len(got), len(want))
				}
				for j := range want {
					if msg := identical(got[j], want[j]); msg != "" {
						t.Fatalf("%s: result %d: %s", name, j, msg)
					}
				}
				if p := tot.PeakBytes["torch:cpu"]; p > budget || tot.Budget != budget {
					t.Fatalf("%s: libtorch held %d bytes at its peak, budget %d (summary says %d)", name, p, budget, tot.Budget)
				}
				if tot.Fallbacks != 0 {
					t.Fatalf("%s: %d ops ran on the host", name, tot.Fallbacks)
				}
				seen.Evictions += tot.Evictions
				seen.BytesD2H += tot.BytesD2H
				seen.PrefetchHits += tot.PrefetchHits
				seen.WastedPrefetches += tot.WastedPrefetches
			}
		}
	}
	if seen.Evictions == 0 || seen.BytesD2H == 0 || seen.PrefetchHits == 0 {
		t.Fatalf("the programs did not exercise evictions, write-backs and prefetches: %+v", seen)
	}
	t.Logf("%d evictions, %d bytes written back or read, %d prefetch hits", seen.Evictions, seen.BytesD2H, seen.PrefetchHits)
}

// identical compares bit for bit (NaNs included).
func identical(got, want *tensor.Dense) string {
	if got.DType != want.DType || !got.Shape.Equal(want.Shape) {
		return fmt.Sprintf("got %v, want %v", got.Meta, want.Meta)
	}
	for i := range want.Buf {
		if got.Buf[i] != want.Buf[i] {
			k := i / 4
			return fmt.Sprintf("element %d is %v, resident gives %v", k,
				math.Float32frombits(leU32(got.Buf[4*k:])), math.Float32frombits(leU32(want.Buf[4*k:])))
		}
	}
	return ""
}

func leU32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}

// TestMemBelowWorkingSet: a budget smaller than an op's working set is an
// error naming the op and both sizes, not a silent run on the host (whose
// kernels are not libtorch's).
func TestMemBelowWorkingSet(t *testing.T) {
	plugin(t)
	// matmul of two [8, 8] float32 tensors: 3 x 256 bytes.
	for _, mem := range []int64{767, 1} {
		ex, err := placement.NewExecutor(placement.Config{Device: "torch:cpu", Mem: mem})
		if err != nil {
			t.Fatal(err)
		}
		rt := refs.New(ex, refs.Options{Lookahead: 4})
		meta := tensor.Meta{Shape: tensor.Shape{8, 8}, DType: tensor.Float32}
		a := rt.FromHost(refs.Site{Pos: pos.Pos{File: "m.tr", Line: 1, Col: 1}}, tensor.NewDense(meta))
		b := rt.FromHost(refs.Site{Pos: pos.Pos{File: "m.tr", Line: 2, Col: 1}}, tensor.NewDense(meta))
		c, err := rt.Submit(refs.Site{Pos: pos.Pos{File: "m.tr", Line: 3, Col: 7}}, ops.Matmul, nil, a, b)
		if err != nil {
			t.Fatal(err)
		}
		_, err = rt.Read(c)
		if err == nil {
			t.Fatalf("--mem %d: matmul ran", mem)
		}
		msg := err.Error()
		if !strings.Contains(msg, "working set 768B exceeds the torch:cpu budget of") || !strings.Contains(msg, "raise --mem") || strings.Contains(msg, "\n") {
			t.Fatalf("--mem %d: error %q, want one line naming the op and both sizes", mem, msg)
		}
		for _, r := range []*refs.Ref{a, b, c} {
			rt.Release(r)
		}
		rt.Flush()
		if st := ex.(*placement.Engine).Accelerator().Stats(); st.LiveRefs != 0 {
			t.Fatalf("--mem %d: libtorch holds %d tensors after the error", mem, st.LiveRefs)
		}
	}
}

// TestMemFallbackToHost: under a budget, ops libtorch cannot run here
// (int32 tensors) run on the host between ops that run in libtorch; the
// values cross both ways as real copies, and the result is the resident
// run's.
func TestMemFallbackToHost(t *testing.T) {
	plugin(t)
	run := func(mem int64) (*tensor.Dense, *trace.Totals) {
		rec := trace.NewRecorder()
		ex, err := placement.NewExecutor(placement.Config{Device: "torch:cpu", Mem: mem, Trace: rec})
		if err != nil {
			t.Fatal(err)
		}
		rt := refs.New(ex, refs.Options{Lookahead: 8})
		site := refs.Site{Pos: pos.Pos{File: "f.tr", Line: 1, Col: 1}}
		x := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{16, 16}, DType: tensor.Float32})
		for i := range x.F32() {
			x.F32()[i] = float32(i%37) * 1.75
		}
		r := rt.FromHost(site, x)
		submit := func(op ops.Op, attrs any, ins ...*refs.Ref) *refs.Ref {
			out, err := rt.Submit(site, op, attrs, ins...)
			if err != nil {
				t.Fatal(err)
			}
			return out
		}
		y := submit(ops.Mul, nil, r, r)                               // libtorch
		i := submit(ops.Astype, ops.CastAttrs{To: tensor.Int32}, y)   // host: int32
		f := submit(ops.Astype, ops.CastAttrs{To: tensor.Float32}, i) // host: reads int32
		z := submit(ops.Add, nil, f, r)                               // libtorch
		for _, v := range []*refs.Ref{r, y, i, f} {
			rt.Release(v)
		}
		d, err := rt.Read(z)
		if err != nil {
			t.Fatal(err)
		}
		out := d.Clone()
		rt.Release(z)
		if err := rt.Flush(); err != nil {
			t.Fatal(err)
		}
		eng := ex.(*placement.Engine)
		if st := eng.Accelerator().Stats(); st.LiveRefs != 0 || rt.LiveRefs() != 0 {
			t.Fatalf("--mem %d: %d tensors in libtorch, %d refs alive at the end", mem, st.LiveRefs, rt.LiveRefs())
		}
		tot, err := eng.Finish()
		if err != nil {
			t.Fatal(err)
		}
		return out, tot
	}
	want, _ := run(0)
	got, tot := run(3 * 1024) // three [16, 16] float32 tensors
	if msg := identical(got, want); msg != "" {
		t.Fatal(msg)
	}
	if tot.Fallbacks != 2 || tot.PeakBytes["torch:cpu"] > 3*1024 || tot.BytesD2H == 0 {
		t.Fatalf("%d fallbacks, peak %d bytes, %d bytes back to the host", tot.Fallbacks, tot.PeakBytes["torch:cpu"], tot.BytesD2H)
	}
}
