package placement

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tref-lang/tref/runtime/placement/trace"
	"github.com/tref-lang/tref/runtime/refs"
)

// eventLog is a sink that keeps every event.
type eventLog struct{ evs []trace.Event }

func (l *eventLog) Event(e *trace.Event) error         { l.evs = append(l.evs, *e); return nil }
func (l *eventLog) Counter(string, int64, int64) error { return nil }
func (l *eventLog) Close(*trace.Totals) error          { return nil }

// refs lists the refs of the events of kind k, in order.
func (l *eventLog) refs(k trace.Kind) []uint64 {
	var ids []uint64
	for _, e := range l.evs {
		if e.Kind == k {
			ids = append(ids, e.Ref)
		}
	}
	return ids
}

func (l *eventLog) find(k trace.Kind) []trace.Event {
	var out []trace.Event
	for _, e := range l.evs {
		if e.Kind == k {
			out = append(out, e)
		}
	}
	return out
}

// abcStream reads weights a, b, then c and a with the window showing a's
// second read when c is fetched on demand: the budget holds two weights,
// so one of a (read next) and b (never read again) must go.
func abcStream(t *testing.T, strategy string) (*eventLog, [3]*refs.Ref) {
	log := &eventLog{}
	h := newHarness(t, strategy, 2*256+3*32, 8, log)
	var w [3]*refs.Ref
	for i := range w {
		w[i] = h.host(i, 8, 8) // 256 bytes each
	}
	v := h.host(9, 1, 8) // 32 bytes
	for _, x := range w[:2] {
		y := h.op("ptest_matmul", v, x)
		h.read(y)
		h.rt.Release(y)
	}
	y3 := h.op("ptest_matmul", v, w[2])
	y4 := h.op("ptest_matmul", v, w[0])
	h.read(y4)
	h.read(y3)
	h.finish(w[0], w[1], w[2], v, y3, y4)
	return log, w
}

func TestLRUEvictsLeastRecentlyUsed(t *testing.T) {
	log, w := abcStream(t, "lru")
	ev := log.refs(trace.Evict)
	if len(ev) == 0 || ev[0] != w[0].ID() {
		t.Fatalf("lru evicted %v first, want ref#%d (least recently used)", ev, w[0].ID())
	}
	// a was evicted, so its second read misses.
	if misses := log.refs(trace.Miss); !slices.Contains(misses[2:], w[0].ID()) {
		t.Fatalf("lru misses %v, want a's second read among them", misses)
	}
}

func TestFlowEvictsFurthestNextUse(t *testing.T) {
	log, w := abcStream(t, "flow")
	ev := log.refs(trace.Evict)
	if len(ev) == 0 || ev[0] != w[1].ID() {
		t.Fatalf("flow evicted %v first, want ref#%d (never read again)", ev, w[1].ID())
	}
	if slices.Contains(ev, w[0].ID()) {
		t.Fatalf("flow evicted ref#%d, which is read again", w[0].ID())
	}
	if hits := log.refs(trace.Hit); !slices.Contains(hits, w[0].ID()) {
		t.Fatalf("a's second read should hit: hits %v", hits)
	}
}

func TestGenoaFreesEverythingAfterEachOp(t *testing.T) {
	log := &eventLog{}
	h := newHarness(t, "genoa", 1<<20, 8, log)
	x := h.host(0, 4, 16)
	w := h.host(1, 16, 16)
	y := h.op("ptest_matmul", x, w)
	z := h.op("ptest_relu", y)
	h.rt.Release(y)
	h.read(z)
	tot := h.finish(x, w, z)
	// Every result goes straight back: two ops, two results of 256 bytes.
	if tot.BytesD2H != 2*256 {
		t.Fatalf("genoa moved %d bytes back, want %d (each result once)", tot.BytesD2H, 2*256)
	}
	// The relu's operand y went back and came in again.
	if tot.BytesH2D != 256+1024+256 {
		t.Fatalf("genoa moved %d bytes in, want %d", tot.BytesH2D, 256+1024+256)
	}
	// Nothing stays: each op ends with its copies freed.
	used := int64(0)
	for _, e := range log.evs {
		switch e.Kind {
		case trace.Alloc:
			used += e.Bytes
		case trace.Free:
			used -= e.Bytes
		case trace.OpStart:
			// y dies at the relu, whose result takes over its buffer.
			if e.Ref == z.ID() && used != 256 {
				t.Fatalf("at relu %d bytes are allocated, want only its operand's", used)
			}
		}
	}
}

func TestNoneRunsOnHost(t *testing.T) {
	log := &eventLog{}
	h := newHarness(t, "none", 1<<20, 8, log)
	x := h.host(0, 4, 16)
	y := h.op("ptest_relu", x)
	h.read(y)
	tot := h.finish(x, y)
	if tot.BytesH2D+tot.BytesD2H != 0 || tot.PeakBytes["sim:0"] != 0 {
		t.Fatalf("none moved %d bytes, peak %d on sim:0", tot.BytesH2D+tot.BytesD2H, tot.PeakBytes["sim:0"])
	}
	for _, e := range log.find(trace.OpEnd) {
		if e.Device != "cpu" || e.Stream != trace.StreamHost {
			t.Fatalf("op ran on %s/%s, want the host", e.Device, e.Stream)
		}
	}
}

func TestFlowPrefetchesWindowInOrder(t *testing.T) {
	log := &eventLog{}
	h := newHarness(t, "flow", 1<<20, 16, log)
	var ws []*refs.Ref
	for i := range 5 {
		ws = append(ws, h.host(i+1, 16, 16))
	}
	x := h.host(0, 4, 16)
	for _, w := range ws {
		y := h.op("ptest_matmul", x, w)
		h.rt.Release(x)
		x = y
	}
	h.read(x)
	tot := h.finish(append(ws, x)...)
	// The first op's operands are fetched on demand, the others prefetched
	// in order of need.
	pre := log.refs(trace.Prefetch)
	want := []uint64{ws[1].ID(), ws[2].ID(), ws[3].ID(), ws[4].ID()}
	if !slices.Equal(pre, want) {
		t.Fatalf("prefetched %v, want %v", pre, want)
	}
	if tot.PrefetchMisses != 2 || tot.PrefetchHits != 8 {
		t.Fatalf("hits %d misses %d, want 8 and 2", tot.PrefetchHits, tot.PrefetchMisses)
	}
	// The copy engine streams back to back: each prefetch starts when the
	// previous copy ends.
	var end int64
	for i, e := range log.find(trace.H2D) {
		if i > 0 && e.T != end {
			t.Fatalf("copy %d starts at %d, the previous one ended at %d", i, e.T, end)
		}
		end = e.End()
	}
	if tot.WastedPrefetches != 0 || tot.BytesH2D+tot.BytesD2H != tot.BeladyBytes {
		t.Fatalf("flow moved %d bytes (%d wasted prefetches), belady %d", tot.BytesH2D+tot.BytesD2H, tot.WastedPrefetches, tot.BeladyBytes)
	}
}

func TestWriteBackOnlyWithoutHostCopy(t *testing.T) {
	for _, st := range []string{"lru", "flow"} {
		log := &eventLog{}
		// x and a = relu(x) fill a quarter of the budget; the matmul needs
		// x, w and its result: the dirty a must go, written back first.
		h := newHarness(t, st, 1536, 0, log)
		x := h.host(0, 4, 16)
		w := h.host(1, 16, 16)
		a := h.op("ptest_relu", x)
		e := h.op("ptest_matmul", x, w)
		h.read(e)
		h.read(a)
		tot := h.finish(x, w, a, e)
		if wb := log.refs(trace.Writeback); !slices.Equal(wb, []uint64{a.ID()}) {
			t.Fatalf("%s wrote back %v, want only ref#%d (the only dirty victim)", st, wb, a.ID())
		}
		// a's write-back made its host copy valid: reading it moves nothing
		// more; e is read once.
		if tot.BytesD2H != 256+256 {
			t.Fatalf("%s moved %d bytes back, want %d", st, tot.BytesD2H, 512)
		}
	}
}

func TestFallbackWhenWorkingSetTooBig(t *testing.T) {
	log := &eventLog{}
	h := newHarness(t, "flow", 1000, 4, log)
	x := h.host(0, 16, 16) // 1 KiB: x and its result cannot both fit
	y := h.op("ptest_mix", x, x)
	got := h.read(y)
	h.finish(x, y)
	fb := log.find(trace.Fallback)
	if len(fb) != 1 || !strings.Contains(fb[0].Reason, "exceeds") {
		t.Fatalf("fallbacks %+v, want one saying the working set exceeds the budget", fb)
	}
	want := newHarness(t, "cpu", 0, 4)
	x2 := want.host(0, 16, 16)
	y2 := want.op("ptest_mix", x2, x2)
	if !slices.Equal(got, want.read(y2)) {
		t.Fatal("the fallback's result differs from cpu")
	}
	want.finish(x2, y2)
}

// forecastLoop runs passes of: a big temporary that evicts the weights,
// six cheap ops on a small tensor (longer than the window), then the four
// weights. Only the forecast can bring the weights back during the cheap
// ops.
func forecastLoop(t *testing.T, strategy string, passes int, sinks ...trace.Sink) (*eventLog, *trace.Totals) {
	log := &eventLog{}
	h := newHarness(t, strategy, 4*1024+3*256, 2, append(sinks, log)...)
	var ws []*refs.Ref
	for i := range 4 {
		ws = append(ws, h.host(i+1, 16, 16))
	}
	big := h.host(7, 32, 16)
	x := h.host(0, 4, 16)
	for range passes {
		tmp := h.opAt("big:1:1", "ptest_mix", big, big)
		x2 := h.opAt("big:2:1", "ptest_add", x, x)
		h.rt.Release(x)
		x = h.opAt("big:3:1", "ptest_mix", x2, x2)
		h.rt.Release(x2)
		h.read(tmp)
		h.rt.Release(tmp)
		for i := range 6 {
			y := h.opAt(fmt.Sprintf("cheap:%d:1", i), "ptest_relu", x)
			h.rt.Release(x)
			x = y
		}
		for _, w := range ws {
			y := h.opAt("mm:1:1", "ptest_matmul", x, w)
			h.rt.Release(x)
			x = y
		}
	}
	h.read(x)
	return log, h.finish(append(ws, big, x)...)
}

func TestForecastPrefetchesBeyondWindow(t *testing.T) {
	log, tot := forecastLoop(t, "flow", 5)
	var onForecast, hitsOnForecast int
	for _, e := range log.evs {
		if e.Kind == trace.Prefetch && strings.Contains(e.Reason, "predicted") {
			onForecast++
		}
		if e.Kind == trace.Hit && e.Reason == "prefetched on forecast" {
			hitsOnForecast++
		}
	}
	if onForecast == 0 || hitsOnForecast == 0 {
		t.Fatalf("%d prefetches and %d hits on forecast, want some of each", onForecast, hitsOnForecast)
	}
	// The forecast pays: fewer stalls than lru over the same stream.
	_, lru := forecastLoop(t, "lru", 5)
	if tot.StallNs >= lru.StallNs {
		t.Fatalf("flow stalled %dns, lru %dns", tot.StallNs, lru.StallNs)
	}
}

func TestFailingOpSurfacesAndLeaksNothing(t *testing.T) {
	for _, st := range []string{"none", "lru", "flow"} {
		h := newHarness(t, st, 1<<20, 4)
		x := h.host(0, 4, 4)
		y := h.op("ptest_fail", x)
		z := h.op("ptest_relu", y)
		if _, err := h.rt.Read(z); err == nil || !strings.Contains(err.Error(), "failed on purpose") {
			t.Fatalf("%s: reading a failed op's dependent gave %v", st, err)
		}
		h.rt.Release(x)
		h.rt.Release(y)
		h.rt.Release(z)
		if err := h.rt.Flush(); err != nil {
			t.Fatal(err)
		}
		if h.rt.LiveRefs() != 0 || h.eng.Model().Used() != 0 {
			t.Fatalf("%s: %d refs and %d device bytes left", st, h.rt.LiveRefs(), h.eng.Model().Used())
		}
	}
}
