package placement

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/tref-lang/tref/runtime/placement/trace"
	"github.com/tref-lang/tref/runtime/refs"
)

// policy is a test middleware with hooks set per test.
type policy struct {
	Base
	beforeOp    func(*OpEvent)
	beforeEvict func(*EvictEvent)
	oom         func(*OOMEvent)
	ooms        int
	moves       []MoveEvent
	allocs      int
	frees       int
}

func (p *policy) BeforeOp(_ *Engine, ev *OpEvent) error {
	if p.beforeOp != nil {
		p.beforeOp(ev)
	}
	return nil
}

func (p *policy) BeforeEvict(_ *Engine, ev *EvictEvent) error {
	if p.beforeEvict != nil {
		p.beforeEvict(ev)
	}
	return nil
}

func (p *policy) OnOOM(_ *Engine, ev *OOMEvent) {
	p.ooms++
	if p.oom != nil {
		p.oom(ev)
	}
}

func (p *policy) AfterMove(_ *Engine, ev *MoveEvent)   { p.moves = append(p.moves, *ev) }
func (p *policy) OnAlloc(_ *Engine, _ *MemEvent) error { p.allocs++; return nil }
func (p *policy) OnFree(_ *Engine, _ *MemEvent)        { p.frees++ }
func (p *policy) OnEvent(_ *Engine, _ *trace.Event)    {}
func (p *policy) install(h *harness) *policy           { h.eng.chain = append(h.eng.chain, p); return p }
func (l *eventLog) count(k trace.Kind) int             { return len(l.find(k)) }

// sweep reads n weights of 1 KiB through a matmul each, twice, with room
// for two: lru evicts all the time.
func sweep(h *harness, n int) ([]*refs.Ref, []float32) {
	var ws []*refs.Ref
	for i := range n {
		ws = append(ws, h.host(i+1, 16, 16))
	}
	x := h.host(0, 1, 16)
	var out []float32
	for range 2 {
		for _, w := range ws {
			y := h.op("ptest_matmul", x, w)
			out = append(out, h.read(y)...)
			h.rt.Release(y)
		}
	}
	h.finish(append(ws, x)...)
	return ws, out
}

func TestMiddlewareVetoKeepsRef(t *testing.T) {
	log := &eventLog{}
	h := newHarness(t, "lru", 2*1024+256, 4, log)
	var keep uint64
	vetoes := 0
	(&policy{beforeEvict: func(ev *EvictEvent) {
		if ev.Ref.ID() == keep {
			ev.Veto = true
			vetoes++
		}
	}}).install(h)
	keep = 1 // the first weight the sweep makes
	ws, got := sweep(h, 4)
	if ws[0].ID() != keep {
		t.Fatalf("test setup: first weight is ref#%d", ws[0].ID())
	}
	if slices.Contains(log.refs(trace.Evict), keep) || vetoes == 0 {
		t.Fatalf("ref#%d was evicted (%d vetoes): evictions %v", keep, vetoes, log.refs(trace.Evict))
	}
	_, want := sweep(newHarness(t, "cpu", 0, 4), 4)
	if !slices.Equal(got, want) {
		t.Fatal("results differ from cpu")
	}
}

func TestMiddlewareInsteadEvictsAnother(t *testing.T) {
	log := &eventLog{}
	h := newHarness(t, "lru", 2*1024+256, 4, log)
	p := (&policy{}).install(h)
	redirected := 0
	p.beforeEvict = func(ev *EvictEvent) {
		// Prefer evicting the newest resident weight other than the victim.
		for s := h.eng.resident.tail; s != nil; s = s.prev {
			if s.ref != ev.Ref && s.pins == 0 && s.Bytes() == 1024 {
				ev.Instead = s.ref
				redirected++
				return
			}
		}
	}
	sweep(h, 4)
	if redirected == 0 || log.count(trace.Evict) == 0 {
		t.Fatalf("%d redirections, %d evictions", redirected, log.count(trace.Evict))
	}
}

func TestMiddlewareOOMFallsBack(t *testing.T) {
	log := &eventLog{}
	h := newHarness(t, "lru", 2*1024+256, 4, log)
	p := (&policy{beforeEvict: func(ev *EvictEvent) { ev.Veto = true }}).install(h)
	_, got := sweep(h, 4)
	if p.ooms == 0 {
		t.Fatal("vetoing every eviction should run out of memory")
	}
	fb := log.find(trace.Fallback)
	if len(fb) == 0 || !strings.Contains(fb[0].Reason, "cannot be evicted") {
		t.Fatalf("fallbacks %+v, want ones explaining that nothing can be evicted", fb)
	}
	_, want := sweep(newHarness(t, "cpu", 0, 4), 4)
	if !slices.Equal(got, want) {
		t.Fatal("results differ from cpu")
	}
}

func TestMiddlewareMovesOpToHost(t *testing.T) {
	log := &eventLog{}
	h := newHarness(t, "flow", 1<<20, 4, log)
	p := (&policy{beforeOp: func(ev *OpEvent) {
		if ev.Op.Op == ptestRelu {
			ev.Device = HostDevice
		}
	}}).install(h)
	x := h.host(0, 4, 16)
	w := h.host(1, 16, 16)
	y := h.op("ptest_matmul", x, w)
	z := h.op("ptest_relu", y)
	h.read(z)
	h.finish(x, w, y, z)
	for _, e := range log.find(trace.OpEnd) {
		want := "sim:0"
		if e.Op == "ptest_relu" {
			want = HostDevice
		}
		if e.Device != want {
			t.Fatalf("%s ran on %s, want %s", e.Op, e.Device, want)
		}
	}
	// y went back to the host for the relu: one d2h, seen by AfterMove.
	var d2h int
	for _, m := range p.moves {
		if m.Kind == trace.D2H && m.Ref == y {
			d2h++
		}
	}
	if d2h != 1 || p.allocs == 0 || p.allocs != p.frees {
		t.Fatalf("%d d2h of y, %d allocs, %d frees", d2h, p.allocs, p.frees)
	}
}

func TestBudgetGuardRefusesOverLimit(t *testing.T) {
	h := newHarness(t, "flow", 1<<20, 4)
	h.guard.Limit = 1024 // tighter than the device: the guard fails the op
	x := h.host(0, 16, 16)
	y := h.op("ptest_relu", x)
	_, err := h.rt.Read(y)
	if err == nil || !strings.Contains(err.Error(), "budget guard") {
		t.Fatalf("got %v, want a budget guard error", err)
	}
	h.guard.Violations = 0
	h.finish(x, y)
}

func TestLoggerAndStats(t *testing.T) {
	var buf bytes.Buffer
	stats := NewStats()
	ex, err := NewExecutor(Config{Device: "sim", Mem: 2*1024 + 256, Strategy: "lru", Cost: testParams,
		Middleware: []Middleware{stats, &Logger{W: &buf}}})
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, eng: ex.(*Engine), guard: &BudgetGuard{}, rt: refs.New(ex, refs.Options{Lookahead: 4})}
	var ws []*refs.Ref
	for i := range 3 {
		ws = append(ws, h.host(i, 16, 16))
	}
	x := h.host(9, 1, 16)
	for _, w := range ws {
		y := h.op("ptest_matmul", x, w)
		h.read(y)
		h.rt.Release(y)
	}
	for _, r := range append(ws, x) {
		h.rt.Release(r)
	}
	if err := h.rt.Flush(); err != nil {
		t.Fatal(err)
	}
	if stats.Count[trace.OpEnd] != 3 || stats.Bytes[trace.H2D] != 3*1024+64 || stats.Count[trace.Evict] == 0 {
		t.Fatalf("stats: %d ops, %d bytes h2d, %d evictions", stats.Count[trace.OpEnd], stats.Bytes[trace.H2D], stats.Count[trace.Evict])
	}
	if !strings.Contains(buf.String(), "placement: ") || !strings.Contains(buf.String(), " evict ref#") {
		t.Fatalf("logger wrote:\n%s", buf.String())
	}
}

func TestHints(t *testing.T) {
	log := &eventLog{}
	h := newHarness(t, "lru", 2*1024+256, 4, log)
	hinted := false
	var ws []*refs.Ref
	for i := range 4 {
		ws = append(ws, h.host(i+1, 16, 16))
	}
	if err := h.eng.Hint(h.rt, ws[0], HintKeep, refs.Site{}); err != nil {
		t.Fatal(err)
	}
	x := h.host(0, 1, 16)
	for range 2 {
		for _, w := range ws {
			y := h.op("ptest_matmul", x, w)
			h.read(y)
			h.rt.Release(y)
			if w == ws[3] && !hinted {
				// ws[3] is resident now; offload sends it away at once.
				if h.eng.State(w).buf == nil {
					t.Fatal("ws[3] should be resident after its use")
				}
				if err := h.eng.Hint(h.rt, w, HintOffload, refs.Site{}); err != nil {
					t.Fatal(err)
				}
				if h.eng.State(w).buf != nil {
					t.Fatal("hint_offload left the ref on the device")
				}
				hinted = true
			}
		}
	}
	if err := h.eng.Hint(h.rt, ws[0], "sideways", refs.Site{}); err == nil || !strings.Contains(err.Error(), "unknown placement hint") {
		t.Fatalf("bad hint gave %v", err)
	}
	h.finish(append(ws, x)...)
	if slices.Contains(log.refs(trace.Evict), ws[0].ID()) {
		t.Fatal("hint_keep: the kept ref was evicted")
	}
	n := 0
	for _, id := range log.refs(trace.Miss) {
		if id == ws[0].ID() {
			n++
		}
	}
	if n != 1 {
		t.Fatalf("hint_keep: the kept ref was fetched %d times", n)
	}
}
