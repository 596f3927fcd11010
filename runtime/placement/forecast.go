package placement

import (
	"container/heap"

	"github.com/tref-lang/tref/runtime/refs"
)

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
		heap.Push(&f.queue, pred{st: st, at: p})
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

// pred is a queued prediction: st is read at op sequence at.
type pred struct {
	st *RefState
	at uint64
}

type predQueue []pred

func (q predQueue) Len() int           { return len(q) }
func (q predQueue) Less(i, j int) bool { return q[i].at < q[j].at }
func (q predQueue) Swap(i, j int)      { q[i], q[j] = q[j], q[i] }
func (q *predQueue) Push(x any)        { *q = append(*q, x.(pred)) }
func (q *predQueue) Pop() any {
	old := *q
	x := old[len(old)-1]
	old[len(old)-1] = pred{}
	*q = old[:len(old)-1]
	return x
}
