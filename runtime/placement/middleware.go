package placement

import (
	"github.com/tref-lang/tref/runtime/placement/trace"
	"github.com/tref-lang/tref/runtime/refs"
)

// Middleware sees the engine's events in chain order and may steer it.
// Embed Base to implement only the methods you need. Methods run on the
// runtime's host thread; they must not submit ops.
type Middleware interface {
	// BeforeOp runs before an op is placed; it may change ev.Device (to
	// the host's "cpu" or back to the accelerator) or pin refs with
	// Engine.Pin. An error fails the op.
	BeforeOp(e *Engine, ev *OpEvent) error
	// BeforeEvict runs before a resident ref is evicted; it may set
	// ev.Veto to keep the ref, or ev.Instead to evict another resident
	// ref. An error fails the op that needed the room.
	BeforeEvict(e *Engine, ev *EvictEvent) error
	// AfterMove runs after a copy between host and accelerator is issued.
	AfterMove(e *Engine, ev *MoveEvent)
	// OnAlloc and OnFree run after the accelerator's memory changed. An
	// error from OnAlloc fails the op (the budget guard uses it).
	OnAlloc(e *Engine, ev *MemEvent) error
	OnFree(e *Engine, ev *MemEvent)
	// OnOOM runs when no eviction can make room: the op then runs on the
	// host, or the prefetch is skipped. Setting ev.Retry asks the engine
	// to try again (after the middleware unpinned something).
	OnOOM(e *Engine, ev *OOMEvent)
	// OnEvent sees every trace event (tracer, logger, stats).
	OnEvent(e *Engine, ev *trace.Event)
}

// Base implements every Middleware method as a no-op.
type Base struct{}

// BeforeOp does nothing.
func (Base) BeforeOp(*Engine, *OpEvent) error { return nil }

// BeforeEvict does nothing.
func (Base) BeforeEvict(*Engine, *EvictEvent) error { return nil }

// AfterMove does nothing.
func (Base) AfterMove(*Engine, *MoveEvent) {}

// OnAlloc does nothing.
func (Base) OnAlloc(*Engine, *MemEvent) error { return nil }

// OnFree does nothing.
func (Base) OnFree(*Engine, *MemEvent) {}

// OnOOM does nothing.
func (Base) OnOOM(*Engine, *OOMEvent) {}

// OnEvent does nothing.
func (Base) OnEvent(*Engine, *trace.Event) {}

// OpEvent describes an op about to be placed.
type OpEvent struct {
	Op *refs.Op
	// Device is where it will run: the accelerator's name or "cpu".
	Device string
	// WorkingSet is the bytes its distinct operands and result occupy.
	WorkingSet int64
}

// EvictEvent describes a proposed eviction.
type EvictEvent struct {
	Ref *refs.Ref
	// NextUse is the distance in ops to the ref's next known or predicted
	// use, -1 when none is known.
	NextUse int64
	// Dirty says the accelerator holds the only valid copy: evicting
	// writes it back first.
	Dirty bool
	// Reason is why the engine needs room.
	Reason string
	// Veto keeps the ref resident; Instead names another resident ref to
	// evict in its place.
	Veto    bool
	Instead *refs.Ref
}

// MoveEvent describes a copy between the host and the accelerator.
type MoveEvent struct {
	Ref *refs.Ref
	// Kind is trace.H2D or trace.D2H.
	Kind       trace.Kind
	From, To   string
	Start, End int64
	Reason     string
}

// MemEvent describes an allocation or a free on the accelerator.
type MemEvent struct {
	Device string
	Ref    *refs.Ref
	Bytes  int64
	// T is when the memory is taken or released; Used is the bytes
	// allocated after the change (in program order), Capacity the budget.
	T, Used, Capacity int64
}

// OOMEvent describes a request that no eviction can satisfy.
type OOMEvent struct {
	// Op is the op that needs the memory (the one being run, or the one a
	// prefetch is for).
	Op       *refs.Op
	Need     int64
	Used     int64
	Capacity int64
	Retry    bool
}
