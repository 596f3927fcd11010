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
	if p := h[slot].next(); p != 0 {
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

// predQueue is a min-heap of predictions by position.
type predQueue []pred

// push adds p.
func (q *predQueue) push(p pred) {
	*q = append(*q, p)
	h := *q
	for i := len(h) - 1; i > 0; {
		parent := (i - 1) / 2
		if h[parent].at <= h[i].at {
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
	h = h[:n]
	for i := 0; ; {
		l, small := 2*i+1, i
		if l < n && h[l].at < h[small].at {
			small = l
		}
		if r := l + 1; r < n && h[r].at < h[small].at {
			small = r
		}
		if small == i {
			break
		}
		h[i], h[small] = h[small], h[i]
		i = small
	}
	*q = h
}
