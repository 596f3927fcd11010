package placement

import (
	"fmt"
	"io"

	"github.com/tref-lang/tref/runtime/placement/trace"
)

// Tracer forwards every event to a trace recorder. The engine installs
// one first in the chain when Config.Trace is set.
type Tracer struct {
	Base
	Rec *trace.Recorder
}

// OnEvent records ev.
func (t *Tracer) OnEvent(_ *Engine, ev *trace.Event) { t.Rec.Emit(*ev) }

// Stats counts events and bytes per kind.
type Stats struct {
	Base
	Count map[trace.Kind]int64
	Bytes map[trace.Kind]int64
}

// NewStats makes an empty Stats middleware.
func NewStats() *Stats {
	return &Stats{Count: map[trace.Kind]int64{}, Bytes: map[trace.Kind]int64{}}
}

// OnEvent counts ev.
func (s *Stats) OnEvent(_ *Engine, ev *trace.Event) {
	s.Count[ev.Kind]++
	s.Bytes[ev.Kind] += ev.Bytes
}

// BudgetGuard fails an op whose allocation would take the accelerator
// past Limit bytes (0: its capacity), counting the bytes allocated in
// program order and at the peak of the virtual timeline: a safety net
// against a placement bug, and a way to enforce a budget tighter than the
// device's for some refs' sake.
type BudgetGuard struct {
	Base
	Limit int64
	// Violations counts the refused allocations.
	Violations int64
}

// OnAlloc checks the budget after an allocation.
func (g *BudgetGuard) OnAlloc(e *Engine, ev *MemEvent) error {
	limit := g.Limit
	if limit == 0 {
		limit = ev.Capacity
	}
	peak := ev.Used
	if e.dev != nil {
		peak = max(peak, e.model.Peak())
	}
	if peak > limit {
		g.Violations++
		return fmt.Errorf("budget guard: %s allocated on %s for ref#%d exceeds the limit of %s",
			trace.FormatBytes(peak), ev.Device, ev.Ref.ID(), trace.FormatBytes(limit))
	}
	return nil
}

// Logger writes one line per decision (everything but op and copy spans)
// to W.
type Logger struct {
	Base
	W io.Writer
}

// OnEvent logs decisions.
func (l *Logger) OnEvent(_ *Engine, ev *trace.Event) {
	switch ev.Kind {
	case trace.OpStart, trace.OpEnd, trace.Alloc, trace.Free:
		return
	}
	ref := ""
	if ev.Ref != 0 {
		ref = fmt.Sprintf(" ref#%d", ev.Ref)
	}
	fmt.Fprintf(l.W, "placement: %s %s%s %s: %s\n", trace.FormatNs(ev.T), ev.Kind, ref, trace.FormatBytes(ev.Bytes), ev.Reason)
}
