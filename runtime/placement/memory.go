package placement

import (
	"errors"
	"fmt"
	"slices"

	"github.com/tref-lang/tref/runtime/device"
	"github.com/tref-lang/tref/runtime/placement/trace"
	"github.com/tref-lang/tref/runtime/refs"
)

// candidates lists the resident refs that may be evicted now, least
// recently used first: not pinned by the op being run, not kept by a hint,
// not vetoed during this search.
func (e *Engine) candidates() []*RefState {
	c := e.scratch[:0]
	for s := e.resident.head; s != nil; s = s.next {
		if s.pins > 0 || s.keep || len(e.vetoed) > 0 && slices.Contains(e.vetoed, s) {
			continue
		}
		c = append(c, s)
	}
	e.scratch = c
	return c
}

// makeRoom evicts until need more bytes fit the budget. before is the
// sequence number of the use the room is for: the strategy may refuse to
// evict refs needed sooner, which fails a prefetch quietly (errNoRoom) and
// a demand (an op's operand or result) with an *oomError after the OOM
// middleware had its say.
func (e *Engine) makeRoom(need int64, before uint64, forOp *refs.Op, why roomFor, demand bool) error {
	e.vetoed = e.vetoed[:0]
	retried := false
	for e.model.Used()+need > e.model.Capacity() {
		v := e.strategy.Victim(e.view(), need, before)
		if v == nil {
			if !demand {
				return errNoRoom
			}
			oom := OOMEvent{Op: forOp, Need: need, Used: e.model.Used(), Capacity: e.model.Capacity()}
			for _, m := range e.chain {
				m.OnOOM(e, &oom)
			}
			if oom.Retry && !retried {
				retried = true
				e.vetoed = e.vetoed[:0]
				continue
			}
			return &oomError{fmt.Sprintf("no room for %s (%s) on %s: %s of %s held by refs that cannot be evicted",
				why.String(), trace.FormatBytes(need), e.devName, trace.FormatBytes(e.model.Used()), trace.FormatBytes(e.model.Capacity()))}
		}
		if len(e.chain) > 0 {
			next, _ := e.NextKey(v)
			dist := int64(-1)
			if next != NoUse && e.cur != nil {
				dist = int64(next - e.cur.Seq)
			}
			ev := EvictEvent{Ref: v.ref, NextUse: dist, Dirty: v.Dirty(), Reason: "room for " + why.String()}
			for _, m := range e.chain {
				if err := m.BeforeEvict(e, &ev); err != nil {
					return err
				}
			}
			if ev.Veto {
				e.vetoed = append(e.vetoed, v)
				continue
			}
			if ev.Instead != nil {
				alt := e.State(ev.Instead)
				if alt == nil || alt.buf == nil || alt.pins > 0 {
					return fmt.Errorf("middleware asked to evict ref#%d instead of ref#%d, but it is not an evictable resident ref",
						ev.Instead.ID(), v.ref.ID())
				}
				v = alt
			}
		}
		reason := ""
		if e.tracing {
			reason = "room for " + why.String() + ": " + e.describeNext(v)
		}
		if err := e.evict(v, reason); err != nil {
			return err
		}
	}
	return nil
}

// alloc takes accelerator memory for s, usable from earliest on: a
// buffer in the model, backed by the device's memory.
func (e *Engine) alloc(s *RefState, earliest int64) (*device.Buffer, error) {
	buf, err := e.model.Alloc(s.Bytes(), earliest)
	if err != nil {
		return nil, err
	}
	if buf.Mem, err = e.dev.Alloc(s.ref.Meta()); err != nil {
		e.model.Free(buf)
		return nil, err
	}
	e.emit(trace.Event{T: e.allocTime(buf), Kind: trace.Alloc, Device: e.devName, Ref: s.ref.ID(), Bytes: buf.Bytes()})
	if len(e.chain) > 0 {
		ev := MemEvent{Device: e.devName, Ref: s.ref, Bytes: buf.Bytes(), T: e.allocTime(buf), Used: e.model.Used(), Capacity: e.model.Capacity()}
		for _, m := range e.chain {
			if err := m.OnAlloc(e, &ev); err != nil {
				e.free(buf)
				return nil, err
			}
		}
	}
	return buf, nil
}

// allocTime is when a trace shows buf's allocation.
func (e *Engine) allocTime(buf *device.Buffer) int64 {
	if e.wall {
		return e.dev.Now()
	}
	return buf.AllocAt
}

// free returns buf's memory to the device and the model.
func (e *Engine) free(buf *device.Buffer) {
	e.dev.Free(buf.Mem)
	e.model.Free(buf)
}

// release frees s's accelerator copy.
func (e *Engine) release(s *RefState, reason string) {
	buf := s.buf
	if buf == nil {
		return
	}
	if s.prefetched {
		e.wasted++
		e.wastedBytes += buf.Bytes()
		s.prefetched, s.fromForecast = false, false
		if e.tracing {
			reason += " (prefetched, never used)"
		}
	}
	s.buf = nil
	e.resident.remove(s)
	s.ref.Copies = nil
	// The model reuses buf once freed: read it first.
	at, n := buf.Release(), buf.Bytes()
	e.free(buf)
	if e.wall {
		at = e.dev.Now()
	}
	e.emit(trace.Event{T: at, Kind: trace.Free, Device: e.devName, Ref: s.ref.ID(), Bytes: n, Reason: reason})
	if len(e.chain) > 0 {
		ev := MemEvent{Device: e.devName, Ref: s.ref, Bytes: n, T: at, Used: e.model.Used(), Capacity: e.model.Capacity()}
		for _, m := range e.chain {
			m.OnFree(e, &ev)
		}
	}
}

// copyIn brings s's host data to the accelerator on the h2d engine,
// starting no earlier than notBefore.
func (e *Engine) copyIn(s *RefState, reason string, notBefore int64) error {
	h, err := e.rt.Read(s.ref)
	if err != nil {
		return err
	}
	ready := max(s.hostReady, notBefore)
	buf, err := e.alloc(s, max(e.model.H2DFree(), ready))
	if err != nil {
		return err
	}
	measured, err := e.dev.CopyIn(buf.Mem, h)
	if err != nil {
		e.free(buf)
		return err
	}
	span := e.shown(e.model.CopyIn(buf, ready, s.copiedIn), measured)
	s.copiedIn = true
	s.buf = buf
	e.resident.pushBack(s)
	s.setCopy(e.devName)
	if n := len(s.uses); n > 0 && e.watcher != nil {
		e.watcher.Gained(s.uses[n-1].Seq)
	}
	e.moved(s, trace.H2D, span, reason)
	return nil
}

// moved reports a copy to the trace and the middleware.
func (e *Engine) moved(s *RefState, kind trace.Kind, span device.Span, reason string) {
	from, to, stream := HostDevice, e.devName, trace.StreamH2D
	if kind == trace.D2H {
		from, to, stream = e.devName, HostDevice, trace.StreamD2H
	}
	e.emit(trace.Event{T: span.Start, Dur: span.Dur(), Kind: kind, Device: e.devName, Stream: stream, Ref: s.ref.ID(), Bytes: s.Bytes(), Reason: reason, Work: span.Work})
	if len(e.chain) > 0 {
		ev := MoveEvent{Ref: s.ref, Kind: kind, From: from, To: to, Start: span.Start, End: span.End, Reason: reason}
		for _, m := range e.chain {
			m.AfterMove(e, &ev)
		}
	}
}

// copyOut makes s's host copy valid from its accelerator copy.
func (e *Engine) copyOut(s *RefState, reason string) error {
	h, err := e.rt.AllocHost(s.ref)
	if err != nil {
		return err
	}
	measured, err := e.dev.CopyOut(h, s.buf.Mem)
	if err != nil {
		return err
	}
	e.rt.SetHostValid(s.ref, true)
	span := e.model.CopyOut(s.buf)
	s.hostReady = span.End
	e.moved(s, trace.D2H, e.shown(span, measured), reason)
	return nil
}

// roomFor says what memory is made for; it becomes words only for a
// trace, a middleware or an error.
type roomFor struct {
	what string // "operand of", "result of" (op) or "prefetch of" (ref)
	op   *refs.Op
	ref  *refs.Ref
}

func (r roomFor) String() string {
	if r.ref != nil {
		return fmt.Sprintf("%s ref#%d", r.what, r.ref.ID())
	}
	return r.what + " " + r.op.Op.Name()
}

// fetch brings an operand of the current op to the accelerator on demand:
// the device asks for it when it reaches the op, so the copy starts no
// earlier than the compute engine finishes the ops before (unlike a
// prefetch, which the host issues as far ahead as it likes).
func (e *Engine) fetch(s *RefState, use uint64, why roomFor) error {
	if err := e.makeRoom(s.Bytes(), use, e.cur, why, true); err != nil {
		return err
	}
	reason := ""
	if e.tracing {
		reason = "on demand: " + why.String()
	}
	return e.copyIn(s, reason, e.model.ComputeFree())
}

// prefetch is View.Prefetch.
func (e *Engine) prefetch(s *RefState, use uint64, reserve int64, forecast bool) (bool, error) {
	if s.buf != nil || e.dev == nil {
		return s.buf != nil, nil
	}
	if s.Bytes()+reserve > e.model.Capacity() || !e.dev.Holds(s.ref.DType()) {
		return false, nil
	}
	err := e.makeRoom(s.Bytes()+reserve, use, nil, roomFor{what: "prefetch of", ref: s.ref}, false)
	if errors.Is(err, errNoRoom) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	reason := ""
	if e.tracing {
		what := "next use in"
		if forecast {
			what = "next use predicted in"
		}
		reason = fmt.Sprintf("prefetch: %s %d ops", what, use-e.cur.Seq)
		e.emit(trace.Event{T: e.now(), Kind: trace.Prefetch, Device: e.devName, Ref: s.ref.ID(), Bytes: s.Bytes(), Reason: reason})
	}
	if err := e.copyIn(s, reason, 0); err != nil {
		return false, err
	}
	s.prefetched, s.fromForecast = true, forecast
	return true, nil
}

// evict drops s's accelerator copy, writing it back first when the host
// has no valid copy.
func (e *Engine) evict(s *RefState, reason string) error {
	if s.Dirty() {
		e.emit(trace.Event{T: e.now(), Kind: trace.Writeback, Device: e.devName, Ref: s.ref.ID(), Bytes: s.Bytes(), Reason: "no valid host copy"})
		if err := e.copyOut(s, "write-back before eviction"); err != nil {
			return err
		}
	}
	e.emit(trace.Event{T: e.now(), Kind: trace.Evict, Device: e.devName, Ref: s.ref.ID(), Bytes: s.Bytes(), Reason: reason})
	e.release(s, "evicted")
	next, predicted := e.NextKey(s)
	e.lose(next)
	if predicted && e.fc.queueing {
		// Queue the prediction again: a prefetch on forecast may bring it
		// back.
		e.fc.queue.push(pred{id: s.id, at: next, gen: s.gen})
	}
	return nil
}

// ToHost makes r's host copy valid, copying it back from the accelerator;
// the host thread waits for the copy. It implements refs.Executor.
func (e *Engine) ToHost(rt *refs.Runtime, r *refs.Ref) error {
	e.rt = rt
	s := e.State(r)
	if s == nil || s.buf == nil || e.dev == nil {
		return fmt.Errorf("internal: ref#%d has neither a host nor a device copy", r.ID())
	}
	if err := e.copyOut(s, "the host reads it"); err != nil {
		return err
	}
	e.model.WaitHost(s.hostReady)
	switch {
	case e.rec == nil:
	case e.cur != nil:
		e.rec.LogOperandRead(trace.Use{Ref: r.ID(), Bytes: r.Bytes()}) // a host op's operand
	default:
		e.rec.LogRead(trace.Use{Ref: r.ID(), Bytes: r.Bytes()})
	}
	return nil
}

// Drop frees r's accelerator copy when r dies. It implements
// refs.Executor.
func (e *Engine) Drop(rt *refs.Runtime, r *refs.Ref) {
	s := e.State(r)
	if s == nil {
		return
	}
	if s.buf != nil {
		e.release(s, "ref died")
	}
	if e.rec != nil {
		e.rec.LogDeath(r.ID())
	}
	r.Aux = nil
	if r.State() == refs.Pending {
		e.keys.forgetAll() // its op was cancelled: other refs' next uses may change
	}
	if s.pins > 0 {
		s.uses = nil
		forgetKey(s)
		e.states[s.id] = nil // not recycled: its queued predictions are stale
		return               // an op being placed still holds it
	}
	// Recycle the state, keeping its uses' array and id; the generation
	// tells queued predictions for the dead ref from the new owner's.
	clear(s.uses)
	*s = RefState{uses: s.uses[:0], gen: s.gen + 1, id: s.id}
	e.spare = append(e.spare, s)
}

// Sync waits for every engine. It implements refs.Executor.
func (e *Engine) Sync(rt *refs.Runtime) error {
	e.rt = rt
	if e.dev != nil {
		if err := e.dev.Sync(); err != nil {
			return err
		}
		e.model.WaitHost(e.model.Now())
		e.resolveMeasured()
		e.hostCounter(e.now())
	}
	if e.rec != nil {
		e.rec.Flush()
	}
	return nil
}

// Stats reports the accelerator's memory. It implements refs.Executor.
func (e *Engine) Stats() []refs.DeviceStats {
	if e.dev == nil {
		return nil
	}
	ps := e.dev.Stats()
	st := refs.DeviceStats{Device: e.devName, PoolStats: refs.PoolStats{
		LiveRefs:    e.model.Buffers(),
		LiveBytes:   e.model.Used(),
		PeakBytes:   e.peak(),
		CachedBytes: ps.CachedBytes,
		SlackBytes:  ps.SlackBytes,
		Hits:        ps.Hits,
		Misses:      ps.Misses,
	}}
	return []refs.DeviceStats{st}
}
