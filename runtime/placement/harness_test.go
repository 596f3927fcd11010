package placement

import (
	"testing"

	"github.com/tref-lang/tref/lang/pos"
	_ "github.com/tref-lang/tref/runtime/backend/sim" // registers --device sim
	"github.com/tref-lang/tref/runtime/device"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/placement/trace"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// harness runs hand-made op streams through a refs.Runtime.
type harness struct {
	t     testing.TB
	rt    *refs.Runtime
	eng   *Engine // nil on the plain cpu device
	rec   *trace.Recorder
	guard *BudgetGuard
	line  int
}

// testParams is a small, round cost model: 1 GB/s links (1 byte/ns),
// 1 GFLOP/s... scaled so that small test tensors take visible time.
var testParams = device.Cost{H2D: 1e9, D2H: 1e9, Flops: 1e12, MemBandwidth: 1e11, LatencyNs: 100,
	HostFlops: 1e8, HostMemBandwidth: 1e8}

func newHarness(t testing.TB, strategy string, mem int64, lookahead int, sinks ...trace.Sink) *harness {
	t.Helper()
	h := &harness{t: t, rec: trace.NewRecorder(sinks...), guard: &BudgetGuard{}}
	cfg := Config{Device: "sim", Mem: mem, Strategy: strategy, Cost: testParams, Trace: h.rec,
		Middleware: []Middleware{h.guard}}
	if strategy == "cpu" {
		cfg = Config{Device: "cpu"}
		h.rec = nil
	}
	ex, err := NewExecutor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h.eng, _ = ex.(*Engine)
	h.rt = refs.New(ex, refs.Options{Lookahead: lookahead, TrackRefs: true})
	return h
}

// site gives each submitted op a distinct position unless pos is set.
func (h *harness) site(at string) refs.Site {
	if at == "" {
		h.line++
		return refs.Site{Pos: pos.Pos{File: "t.tr", Line: h.line, Col: 1}}
	}
	p, ok := pos.Parse(at)
	if !ok {
		p = pos.Pos{File: at}
	}
	return refs.Site{Pos: p}
}

// host makes a float32 tensor of shape with deterministic values.
func (h *harness) host(seed int, shape ...int) *refs.Ref {
	d := tensor.NewDense(tensor.Meta{Shape: tensor.Shape(shape), DType: tensor.Float32})
	f := d.F32()
	for i := range f {
		f[i] = float32((i*7+seed*13)%17)/8 - 1
	}
	return h.rt.FromHost(h.site(""), d)
}

func (h *harness) op(name string, ins ...*refs.Ref) *refs.Ref {
	return h.opAt("", name, ins...)
}

func (h *harness) opAt(pos, name string, ins ...*refs.Ref) *refs.Ref {
	h.t.Helper()
	return h.opWith(pos, name, nil, ins...)
}

// opWith is opAt with the op's attributes.
func (h *harness) opWith(pos, name string, attrs any, ins ...*refs.Ref) *refs.Ref {
	h.t.Helper()
	r, err := h.rt.Submit(h.site(pos), ops.MustLookup(name), attrs, ins...)
	if err != nil {
		h.t.Fatal(err)
	}
	return r
}

func (h *harness) read(r *refs.Ref) []float32 {
	h.t.Helper()
	d, err := h.rt.Read(r)
	if err != nil {
		h.t.Fatal(err)
	}
	return append([]float32(nil), d.F32()...)
}

// finish flushes, checks that nothing leaked and returns the totals.
func (h *harness) finish(live ...*refs.Ref) *trace.Totals {
	h.t.Helper()
	for _, r := range live {
		h.rt.Release(r)
	}
	if err := h.rt.Flush(); err != nil {
		h.t.Fatal(err)
	}
	if n := h.rt.LiveRefs(); n != 0 {
		h.t.Fatalf("%d refs alive at the end: %v", n, h.rt.Leaks())
	}
	if h.eng == nil {
		return nil
	}
	for _, s := range h.rt.MemStats() {
		if s.Device != "cpu" && (s.LiveBytes != 0 || s.LiveRefs != 0) {
			h.t.Fatalf("%s holds %d bytes in %d buffers at the end", s.Device, s.LiveBytes, s.LiveRefs)
		}
	}
	if h.guard.Violations != 0 {
		h.t.Fatalf("budget guard saw %d violations", h.guard.Violations)
	}
	tot, err := h.eng.Finish()
	if err != nil {
		h.t.Fatal(err)
	}
	if peak := tot.PeakBytes[h.eng.Device()]; peak > tot.Budget {
		h.t.Fatalf("peak %d bytes above the budget of %d", peak, tot.Budget)
	}
	return tot
}
