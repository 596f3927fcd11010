package placement

import "github.com/tref-lang/tref/runtime/refs"

// The forecast predicts uses beyond the window. Models loop: a weight is
// read by the same op site (source position and call path) once per
// iteration of a step loop, an embedding table at the start and at the end
// of every step. For every ref the forecast keeps, per op site, the last
// two op sequence numbers at which the site read it; once a site has read
// it twice, it predicts the next read one period later (like DeepSpeed's
// trace-based prefetch, per ref). The prediction of a ref is its earliest
// predicted read still in the future.

// histSites bounds the sites remembered per ref; the least recently used
// site is forgotten first.
const histSites = 4

type siteUse struct {
	site       uint32
	last, prev uint64
}

// forecast interns op sites and keeps the queue of predicted uses.
type forecast struct {
	sites map[refs.Site]uint32
	queue predQueue
	// queueing is set when the strategy reads the queue (see
	// PredictionReader); others leave it empty.
	queueing bool
	// compactAt is the queue length beyond which compact runs next, and
	// compactions counts its runs.
	compactAt, compactions int
	// hits and misses count predictions that came true (the ref was read
	// at the predicted position) or did not.
	hits, misses int64
}

// site interns an op site.
func (f *forecast) site(s refs.Site) uint32 {
	id, ok := f.sites[s]
	if !ok {
		id = uint32(len(f.sites) + 1)
		f.sites[s] = id
	}
	return id
}

// observe records that op (at site) read st, and queues the new
// prediction.
func (f *forecast) observe(st *RefState, site uint32, seq uint64) {
	h := &st.hist
	slot := -1
	for i := range h {
		if h[i].site == site {
			slot = i
			break
		}
	}
	if slot < 0 {
		// Forget the site read longest ago.
		slot = 0
		for i := range h {
			if h[i].last < h[slot].last {
				slot = i
			}
		}
		h[slot] = siteUse{site: site}
	}
	if p := h[slot].next(); p != 0 {
		if p == seq {
			f.hits++
		} else {
			f.misses++
		}
	}
	h[slot].prev, h[slot].last = h[slot].last, seq
	if p := h[slot].next(); p != 0 && f.queueing {
		f.queue.push(pred{id: st.id, at: p, gen: st.gen})
	}
}

// period is the distance between the site's last two reads, 0 before the
// second.
func (h siteUse) period() uint64 {
	if h.prev == 0 || h.last <= h.prev {
		return 0
	}
	return h.last - h.prev
}

// next is the site's predicted next read, 0 when it has no period.
func (h siteUse) next() uint64 {
	if p := h.period(); p > 0 {
		return h.last + p
	}
	return 0
}

// pred is a queued prediction: the ref of the state of id id (see
// Engine.states) is read at op sequence at. It holds no pointer, so that
// the garbage collector need not scan the queue.
type pred struct {
	at      uint64
	id, gen uint32 // gen: the state's generation when queued
}

// before is the queue's order: by position, then by state id, then by
// generation. It is total on distinct predictions, so that the order in
// which the queue yields predictions of equal position (two refs read by
// the same op) depends only on what it holds, not on the history of its
// heap: compaction may rebuild it without changing decisions.
func (p pred) before(o pred) bool {
	if p.at != o.at {
		return p.at < o.at
	}
	if p.id != o.id {
		return p.id < o.id
	}
	return p.gen < o.gen
}

// predQueue is a min-heap of predictions in the order of pred.before.
// Entries go stale (the ref died, or a newer read changed its forecast)
// and are dropped lazily: by the reader when they come to the top, and by
// compact, which the engine calls when the queue has doubled since the
// last compaction, so that its length stays proportional to the live
// refs whatever the strategy reads of it.
type predQueue []pred

// push adds p.
func (q *predQueue) push(p pred) {
	*q = append(*q, p)
	h := *q
	for i := len(h) - 1; i > 0; {
		parent := (i - 1) / 2
		if !h[i].before(h[parent]) {
			break
		}
		h[parent], h[i] = h[i], h[parent]
		i = parent
	}
}

// pop removes the earliest prediction.
func (q *predQueue) pop() {
	h := *q
	n := len(h) - 1
	h[0] = h[n]
	h[n] = pred{}
	*q = h[:n]
	q.down(0)
}

// down moves the entry at i down to its place in the heap.
func (q predQueue) down(i int) {
	h, n := q, len(q)
	for {
		l, small := 2*i+1, i
		if l < n && h[l].before(h[small]) {
			small = l
		}
		if r := l + 1; r < n && h[r].before(h[small]) {
			small = r
		}
		if small == i {
			break
		}
		h[i], h[small] = h[small], h[i]
		i = small
	}
}

// minCompact is the queue length below which compaction does not pay.
const minCompact = 4096

// compactDue reports whether the queue has grown enough since the last
// compaction (to twice its length then) that compact should run; small
// enough to inline at every op.
func (f *forecast) compactDue() bool {
	return len(f.queue) > f.compactAt && len(f.queue) > minCompact
}

// compact drops the queue's entries that can never be used again, and
// the copies of an entry but one: an entry is used (see flow.Prefetch)
// only when its state still serves the ref it was queued for (same
// generation) and its position is the ref's NextKey, which is always the
// next read predicted by one of the sites in the ref's history; a
// position that no site predicts now can become one again only through
// observe, which queues it anew. So at most histSites entries per live
// ref survive, and, as the order is total, the queue yields the survivors
// in the same order as before. NextKey also lies after the current op
// (cur), so positions up to cur go first, at the cost of a comparison.
func (f *forecast) compact(states []*RefState, cur uint64) {
	f.compactions++
	epoch := uint32(f.compactions)
	q := f.queue
	n := 0
	for _, p := range q {
		if p.at <= cur || int(p.id) >= len(states) {
			continue
		}
		s := states[p.id]
		if s == nil || s.gen != p.gen || s.ref == nil {
			continue
		}
		k := s.predictor(p.at)
		if k < 0 {
			continue
		}
		if s.compactEpoch != epoch {
			s.compactEpoch, s.compacted = epoch, 0
		}
		if s.compacted&(1<<k) != 0 {
			continue // a copy
		}
		s.compacted |= 1 << k
		q[n] = p
		n++
	}
	clear(q[n:])
	q = q[:n]
	for i := len(q)/2 - 1; i >= 0; i-- {
		q.down(i)
	}
	f.queue = q
	f.compactAt = max(2*len(q), minCompact)
}

// predictor is the index in s's history of the first site that predicts
// a read at at, -1 when none does.
func (s *RefState) predictor(at uint64) int {
	for i := range s.hist {
		if s.hist[i].next() == at {
			return i
		}
	}
	return -1
}
