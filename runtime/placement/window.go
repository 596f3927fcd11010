package placement

import (
	"fmt"

	"github.com/tref-lang/tref/runtime/refs"
)

// absorb records the uses of ops that entered the window since last time,
// and notes whether any did: a window that no longer grows is draining
// (the script waits for a value, or ended), so what lies beyond it is not
// the steady state the forecast learned.
func (e *Engine) absorb(op *refs.Op, ahead []*refs.Op) {
	before := e.seen
	defer func() { e.growing = e.seen > before }()
	add := func(o *refs.Op) {
		if o.Seq <= e.seen {
			return
		}
		e.seen = o.Seq
		if e.fc.sites == nil {
			e.fc.sites = map[refs.Site]uint32{}
		}
		if !o.Cancelled() {
			e.state(o.Out).site = e.fc.site(o.Site)
		}
		if e.model != nil && !o.Cancelled() {
			out := e.state(o.Out)
			out.flops, e.metas = flops(o, e.metas)
			out.costed = true
			out.inplace = e.inplaceMetas(o)
			out.estNs = e.model.Cost().OpNs(out.flops, opBytes(o))
			e.cumNs += out.estNs
			out.cumNs = e.cumNs
			out.ws = e.workingSet(o)
		}
		for i, in := range o.Inputs {
			if !repeated(o.Inputs, i) {
				s := e.state(in)
				s.uses = append(s.uses, o)
				forgetKey(s) // o may be its next use
			}
		}
	}
	add(op)
	// The window is in program order and only grows at its end: find
	// the ops not seen yet from there rather than scanning all of it.
	k := len(ahead)
	for k > 0 && ahead[k-1].Seq > e.seen {
		k--
	}
	for _, o := range ahead[k:] {
		add(o)
	}
}

// repeated reports whether ins[i] already appeared before index i.
func repeated(ins []*refs.Ref, i int) bool {
	for _, r := range ins[:i] {
		if r == ins[i] {
			return true
		}
	}
	return false
}

// curSeq is the sequence number of the op being executed (0 outside).
func (e *Engine) curSeq() uint64 {
	if e.cur != nil {
		return e.cur.Seq
	}
	return 0
}

// prune drops s's recorded uses that ran or were cancelled.
func (e *Engine) prune(s *RefState) {
	cur := e.curSeq()
	k := 0
	for k < len(s.uses) && (s.uses[k].Seq <= cur || s.uses[k].Cancelled()) {
		k++
	}
	if k > 0 {
		// Shift rather than reslice, so that the array is reused.
		n := copy(s.uses, s.uses[k:])
		clear(s.uses[n:])
		s.uses = s.uses[:n]
	}
}

// NextUse is the sequence number of the next op in the window that reads
// s after the current op, 0 when the window has none.
func (e *Engine) NextUse(s *RefState) uint64 {
	e.prune(s)
	if len(s.uses) == 0 {
		return 0
	}
	return s.uses[0].Seq
}

// windowEnd is the sequence number of the last op the window shows.
func (e *Engine) windowEnd() uint64 {
	if n := len(e.window); n > 0 {
		return e.window[n-1].Seq
	}
	return e.curSeq()
}

// NoUse is the NextKey of a ref with no known or predicted use.
const NoUse = ^uint64(0)

// NextKey is s's next use for eviction and prefetch order: exact when the
// window shows it, else the forecast's earliest prediction (which lies
// beyond the window: a prediction that falls inside the window, where s
// is not read, is contradicted and dropped), else NoUse.
func (e *Engine) NextKey(s *RefState) (uint64, bool) { return e.view().NextKey(s) }

// nextKey computes NextKey and memoizes it; kept apart so that NextKey's
// memoized path inlines.
func (e *Engine) nextKey(s *RefState) {
	var predicted bool
	next := e.NextUse(s)
	if next == 0 {
		cur, end := e.curSeq(), e.windowEnd()
		next = NoUse
		for i := range s.hist { // by index: ranging over the array copies it
			if p := s.hist[i].next(); p > cur && p > end && p < next {
				next = p
			}
		}
		predicted = next != NoUse
	}
	s.key, s.keyPred = next, predicted
	s.keyEpoch, s.keyLimit = e.keys.epoch, keyLimit(next, predicted)
	if e.cur == nil {
		forgetKey(s) // computed without a window: not for later lookups
	}
}

// NextKeyAfter is s's first use after op sequence j (j within the
// window): exact when the window shows one; when the window reads s only
// up to j, the forecast's period added to its last read there; else as
// NextKey.
func (e *Engine) NextKeyAfter(s *RefState, j uint64) uint64 {
	e.prune(s)
	if len(s.uses) == 0 {
		next, _ := e.NextKey(s)
		return next
	}
	for _, u := range s.uses {
		if u.Seq > j && !u.Cancelled() {
			return u.Seq
		}
	}
	return e.predictedAfter(s)
}

// predictedAfter is NextKeyAfter for s when the window reads it (s.uses,
// pruned, is not empty) only up to the op asked about: the forecast's
// period at the site of its last read there added to that read, when
// that lies beyond the window; else NoUse.
func (e *Engine) predictedAfter(s *RefState) uint64 {
	last := s.uses[len(s.uses)-1]
	var site uint32
	if ls := e.State(last.Out); ls != nil {
		site = ls.site
	} else {
		site = e.fc.sites[last.Site]
	}
	for i := range s.hist {
		if h := &s.hist[i]; h.site == site && h.period() > 0 {
			if p := last.Seq + h.period(); p > e.windowEnd() {
				return p
			}
		}
	}
	return NoUse
}

// describeNext says in words when s is used next, for trace reasons.
func (e *Engine) describeNext(s *RefState) string {
	next, pred := e.NextKey(s)
	switch {
	case next == NoUse:
		return "no next use known"
	case pred:
		return fmt.Sprintf("next use predicted in %d ops", next-e.curSeq())
	}
	return fmt.Sprintf("next use in %d ops", next-e.curSeq())
}

// EstNs is the cost model's duration of op on the accelerator (0 without
// one).
func (e *Engine) EstNs(op *refs.Op) int64 {
	if s := e.State(op.Out); s != nil {
		return s.estNs
	}
	return 0
}

// cumNs is the prefix sum of estimated durations up to op (see
// RefState.cumNs), and WorkingSet its cached working set.
func (e *Engine) opCum(op *refs.Op) (cum, ws int64) {
	if s := e.State(op.Out); s != nil && s.costed {
		return s.cumNs, s.ws
	}
	return 0, e.workingSet(op)
}
