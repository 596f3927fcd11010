package placement

import (
	"math/bits"
	"slices"

	"github.com/tref-lang/tref/runtime/device"
	"github.com/tref-lang/tref/runtime/refs"
)

// View is what a Strategy sees of the engine, and the requests it may
// make: the current op and the window after it, each ref's next uses
// (exact in the window, predicted by the forecast beyond it), the
// resident refs, the accelerator's memory and clocks, and the cost
// model; the requests are Prefetch, Evict and WriteBack. The engine does
// the mechanics (allocation, copies, residency, events); a view is only
// valid during the Strategy call that received it. It is the engine
// itself, with the methods a strategy may call.
type View Engine

// eng is the engine behind v.
func (v *View) eng() *Engine { return (*Engine)(v) }

// Current is the op being placed (nil outside Execute).
func (v *View) Current() *refs.Op { return v.eng().cur }

// CurSeq is the current op's sequence number (0 outside Execute).
func (v *View) CurSeq() uint64 { return v.eng().curSeq() }

// Window is the exact future: the pending ops after the current one, in
// program order (cancelled ones included: check Op.Cancelled).
func (v *View) Window() []*refs.Op { return v.eng().window }

// WindowEnd is the sequence number of the window's last op (the current
// op's when the window is empty).
func (v *View) WindowEnd() uint64 { return v.eng().windowEnd() }

// Growing reports whether ops entered the window at this step: a window
// that no longer grows is draining (the script waits for a value, or
// ended), so what lies beyond it may not be the steady state the
// forecast learned.
func (v *View) Growing() bool { return v.eng().growing }

// Epoch changes whenever ops of the window were cancelled or skipped: a
// strategy's memo of the window from another epoch is stale.
func (v *View) Epoch() uint64 { return v.eng().keys.epoch }

// Ref is r's bookkeeping, made on first sight.
func (v *View) Ref(r *refs.Ref) *RefState { return v.eng().state(r) }

// State is r's bookkeeping, nil when the engine has not seen r.
func (v *View) State(r *refs.Ref) *RefState { return v.eng().State(r) }

// NextKey is s's next use for eviction and prefetch order (see
// Engine.NextKey): exact in the window, else predicted (the second
// result), else NoUse.
func (v *View) NextKey(s *RefState) (uint64, bool) {
	// The key is memoized until something changes it (see keyCache):
	// strategies ask for it many times, and most keys outlive the step.
	if s.keyEpoch != v.keys.epoch || s.keyLimit <= v.keys.end {
		(*Engine)(v).nextKey(s)
	}
	return s.key, s.keyPred
}

// NextKeyAfter is s's first use after op sequence j of the window (see
// Engine.NextKeyAfter).
func (v *View) NextKeyAfter(s *RefState, j uint64) uint64 { return v.eng().NextKeyAfter(s, j) }

// Uses are the window's ops after the current one that read s, in
// program order (some may be cancelled).
func (v *View) Uses(s *RefState) []*refs.Op {
	v.eng().prune(s)
	return s.uses
}

// PredictedAfter is, for s read by the window (Uses not empty), the
// forecast's prediction of its next read after the window's last one,
// NoUse when there is none beyond the window.
func (v *View) PredictedAfter(s *RefState) uint64 { return v.eng().predictedAfter(s) }

// FirstResident is the least recently used resident ref (nil when none);
// RefState.NextResident walks on.
func (v *View) FirstResident() *RefState { return v.eng().resident.head }

// Vetoed reports whether a middleware vetoed evicting s during the
// current search for room.
func (v *View) Vetoed(s *RefState) bool {
	return len(v.eng().vetoed) > 0 && slices.Contains(v.eng().vetoed, s)
}

// Candidates lists the resident refs that may be evicted now, least
// recently used first: not pinned by the op being placed, not kept, not
// vetoed.
func (v *View) Candidates() []*RefState { return v.eng().candidates() }

// Capacity is the accelerator's budget in bytes; Used the bytes held.
func (v *View) Capacity() int64 { return v.eng().model.Capacity() }

// Used is the bytes the accelerator holds, copies on their way included.
func (v *View) Used() int64 { return v.eng().model.Used() }

// Cost is the cost model.
func (v *View) Cost() device.Cost { return v.eng().model.Cost() }

// HostExact reports whether the host's kernels give the accelerator's
// results bit for bit (device.Caps.ExactFallback): only then may a
// strategy send an op to the host because it is cheaper there, without
// the budget changing the numbers.
func (v *View) HostExact() bool { return v.eng().caps.ExactFallback }

// ComputeFree is when the accelerator's compute engine finishes the
// ops issued so far, in the model's virtual time.
func (v *View) ComputeFree() int64 { return v.eng().model.ComputeFree() }

// H2DFree is when the host-to-device copy engine finishes the copies
// issued so far.
func (v *View) H2DFree() int64 { return v.eng().model.H2DFree() }

// EstNs is the cost model's duration of op on the accelerator, 0 for an
// op not yet in the window.
func (v *View) EstNs(op *refs.Op) int64 { return v.eng().EstNs(op) }

// Cum is, for an op of the window, the running sum of the estimated
// durations (EstNs) of the ops up to it since the engine began (so that
// the time between two ops is the difference of their sums), and its
// working set: the bytes of its distinct operands and result.
func (v *View) Cum(op *refs.Op) (cum, ws int64) { return v.eng().opCum(op) }

// Flops is op's compute work from its cost function.
func (v *View) Flops(op *refs.Op) int64 { return v.eng().opFlops(op) }

// InPlace is the index of the input whose buffer op's result takes over
// on the accelerator (it dies at op and has the result's meta), or -1.
func (v *View) InPlace(op *refs.Op) int { return v.eng().inplaceOf(op) }

// ResultLife is, for the current op or an op o of the window whose
// first op has sequence first and which has n ops, the bytes o's result
// adds on the accelerator and the window index of the last op up to
// which it lives there: its last reader, or n-1 when the script holds it
// beyond its readers. The bytes are 0 (and last 0) when it takes over the
// buffer of an operand that dies at o and is already counted: any for
// the current op (its operands are resident), one that an op of the
// window computes for the others.
func (v *View) ResultLife(o *refs.Op, first uint64, n int) (bytes int64, last int) {
	e := v.eng()
	s := e.State(o.Out)
	ip := -1
	if s == nil || !s.costed || len(o.Def().Inplace) > 8 {
		ip = e.inplaceInput(o)
	} else {
		// inplaceWith, inlined by hand: this runs for every op of the
		// window before the prefetch scan's stop at every step.
		for m := s.inplace; m != 0; m &= m - 1 {
			if i := o.Def().Inplace[bits.TrailingZeros8(m)]; i < len(o.Inputs) && o.Inputs[i].Count() == 1 {
				ip = i
				break
			}
		}
	}
	if ip >= 0 && (o == e.cur || o.Inputs[ip].State() == refs.Pending) {
		return 0, 0
	}
	end := 0
	if o.Seq >= first {
		end = int(o.Seq - first)
	}
	live, bytes := 0, int64(0)
	if s == nil {
		bytes = o.Out.Bytes()
	} else {
		bytes = s.bytes
		// Its readers after o are all in the window, in order.
		for i := len(s.uses) - 1; i >= 0; i-- {
			u := s.uses[i]
			if u.Seq <= o.Seq || u.Cancelled() {
				continue
			}
			if live == 0 {
				end = max(end, int(u.Seq-first))
			}
			live++
		}
	}
	if int(o.Out.Count()) > live {
		end = n - 1
	}
	return bytes, min(end, n-1)
}

// Predicted is the earliest use the forecast predicts beyond the window
// for a ref that is not on the accelerator (stale predictions are
// dropped): the ref's state and the use, or nil. Only a strategy that is
// a PredictionReader has predictions queued. PopPredicted drops it.
func (v *View) Predicted() (*RefState, uint64) {
	e := v.eng()
	q := &e.fc.queue
	end := e.windowEnd()
	for len(*q) > 0 {
		p := (*q)[0]
		s := e.states[p.id]
		if s == nil || p.gen != s.gen || s.ref == nil || s.ref.Aux != s || s.ref.State() != refs.Ready || s.buf != nil || p.at <= end {
			q.pop()
			continue
		}
		if key, pred := e.NextKey(s); !pred || key != p.at {
			q.pop() // stale: a newer prediction is queued
			continue
		}
		return s, p.at
	}
	return nil, 0
}

// PopPredicted drops the earliest queued prediction.
func (v *View) PopPredicted() { v.eng().fc.queue.pop() }

// Prefetch brings s to the accelerator ahead of its use at op sequence
// use, keeping reserve more bytes free for the results of the ops before
// it, and reports whether the copy was issued. It evicts only what the
// strategy's Victim allows for that use; forecast says the use is
// predicted (for the trace).
func (v *View) Prefetch(s *RefState, use uint64, reserve int64, forecast bool) (bool, error) {
	return v.eng().prefetch(s, use, reserve, forecast)
}

// Evict drops s's accelerator copy now, writing it back first when the
// host has no valid copy.
func (v *View) Evict(s *RefState, reason string) error {
	if s.buf == nil {
		return nil
	}
	return v.eng().evict(s, reason)
}

// WriteBack copies s's data to the host when the host has no valid copy,
// keeping the accelerator copy.
func (v *View) WriteBack(s *RefState, reason string) error {
	if !s.Dirty() {
		return nil
	}
	return v.eng().copyOut(s, reason)
}

// Watcher is a Strategy that keeps a memo of the window from step to
// step (flow resumes its prefetch scan where it stopped): the engine
// tells it when residency changes under the memo.
type Watcher interface {
	// Lost says that a ref the window's op of sequence next reads (any
	// op for 0) left the accelerator or was computed on the host, or
	// (0) that ops were skipped.
	Lost(next uint64)
	// Gained says that a ref came to the accelerator whose last read by
	// the window's ops is the op of sequence last.
	Gained(last uint64)
}

// PredictionReader is a Strategy that reads the forecast's queue of
// predictions (View.Predicted); the engine queues predictions only for
// such a strategy.
type PredictionReader interface {
	ReadsPredictions()
}
