package placement

import (
	"container/heap"

	"github.com/tref-lang/tref/runtime/refs"
)

// flow is the Flow strategy made real: Belady's furthest-next-use
// eviction over the exact window plus the forecast, prefetching in order
// of need as early as memory and the copy engine allow, freeing at last
// use (refs die and are dropped by the runtime; a ref with no known use is
// the first victim), writing back only when the host has no valid copy.
type flow struct {
	// diff and reserve are per-window scratch: the bytes of results not
	// yet computed that are alive at each op of the window, then their
	// running maximum.
	diff, reserve []int64
	// curOut is the current op's result bytes when it needs new memory.
	curOut int64
	// strict makes Victim Belady-consistent (see Victim).
	strict bool
}

func init() { RegisterStrategy("flow", func() Strategy { return &flow{} }) }

func (*flow) Name() string                    { return "flow" }
func (*flow) OnDevice(*Engine, *refs.Op) bool { return true }

// Victim evicts the candidate used furthest in the future (exact in the
// window, predicted beyond it, never when unknown), and only one used
// after before, so a prefetch never evicts what is needed sooner. Ties go
// to an offload hint, then to a clean copy (no write-back), then to the
// larger copy (fewer evictions for the same room).
//
// In strict mode the victim must also be the one Belady's policy would
// pick when the prefetched ref is needed: when a ref read before then will
// next be read after the victim, Belady would evict that ref instead once
// its read is done, so the prefetch waits. Strict mode is off for the
// nearest missing operand while no other prefetched copy waits for its
// op: that one prefetch keeps the copy engine busy during the current op
// (double buffering) at the price of at most one extra copy per eviction
// cycle; deeper non-Belady prefetching would only trade bytes for time.
func (f *flow) Victim(e *Engine, cands []*RefState, _ int64, before uint64) *RefState {
	var best *RefState
	var bestKey uint64
	for _, c := range cands {
		key, _ := e.NextKey(c)
		if c.offload {
			key = NoUse
		}
		if key <= before {
			continue
		}
		if best == nil || flowBefore(c, key, best, bestKey) {
			best, bestKey = c, key
		}
	}
	if best == nil || !f.strict || bestKey == NoUse {
		return best
	}
	for s := e.resident.head; s != nil; s = s.next {
		if s.keep {
			continue
		}
		if key, _ := e.NextKey(s); key > before {
			continue // a candidate, not read before the prefetched ref
		}
		if e.NextKeyAfter(s, before) > bestKey {
			return nil
		}
	}
	return best
}

// flowBefore reports whether c (next use key) is a better victim than b.
func flowBefore(c *RefState, key uint64, b *RefState, bkey uint64) bool {
	if key != bkey {
		return key > bkey
	}
	if c.offload != b.offload {
		return c.offload
	}
	if cd, bd := c.Dirty(), b.Dirty(); cd != bd {
		return !cd
	}
	return c.Bytes() > b.Bytes()
}

// After does nothing: dead refs are freed by the runtime at once.
func (*flow) After(*Engine, *refs.Op) error { return nil }

// Prefetch issues copies: first every operand of the window's ops in
// order of need, stopping at the first that cannot get room without
// evicting something needed sooner; then, beyond the window, the refs the
// forecast predicts, earliest first, but only while the script keeps
// submitting ops (a window that drains means the steady state the
// forecast learned may be over).
func (f *flow) Prefetch(e *Engine) error {
	win := e.window
	f.computeReserve(e, e.cur, win)
	capacity := e.dev.Capacity()
	var buf [4]*refs.Ref
	// Double buffering: one prefetch may break Belady's order, when no
	// prefetched copy is still waiting for its op.
	f.strict = false
	for s := e.resident.head; s != nil && !f.strict; s = s.next {
		f.strict = s.prefetched
	}
	defer func() { f.strict = false }()
	for j, o := range win {
		if o.Cancelled() || workingSet(o) > capacity {
			continue
		}
		for _, in := range opInputs(o, buf[:]) {
			if in.State() != refs.Ready {
				continue // computed by an op of the window, or failed
			}
			s := e.state(in)
			if s.buf != nil {
				continue
			}
			ok, err := e.Prefetch(s, o.Seq, f.reserve[j], false)
			if err != nil || !ok {
				return err
			}
			f.strict = true
		}
	}
	f.strict = true
	if !e.growing {
		return nil // draining: the script's steady state may be over
	}
	reserve := f.curOut
	if n := len(win); n > 0 {
		reserve = f.reserve[n-1]
	}
	end := e.windowEnd()
	q := &e.fc.queue
	for q.Len() > 0 {
		p := (*q)[0]
		s := p.st
		if s.ref.Aux != s || s.ref.State() != refs.Ready || s.buf != nil || p.at <= end {
			heap.Pop(q)
			continue
		}
		if key, pred := e.NextKey(s); !pred || key != p.at {
			heap.Pop(q) // stale: a newer prediction is queued
			continue
		}
		ok, err := e.Prefetch(s, p.at, reserve, true)
		if err != nil || !ok {
			return err
		}
		heap.Pop(q)
	}
	return nil
}

// computeReserve fills f.reserve[j] with the most bytes that results not
// yet allocated hold at any op up to window[j], the current op's result
// included. A result lives from its op to its last reader in the window,
// or to the window's end when the script holds it too; one that takes
// over a dying operand's buffer adds nothing.
func (f *flow) computeReserve(e *Engine, cur *refs.Op, win []*refs.Op) {
	n := len(win)
	f.diff = append(f.diff[:0], make([]int64, n+1)...)
	f.reserve = append(f.reserve[:0], make([]int64, n)...)
	f.curOut = 0
	if inplaceInput(cur) < 0 {
		f.curOut = cur.Out.Bytes()
	}
	if n == 0 {
		return
	}
	first := win[0].Seq
	// The current op's result, unless it dies at once, lives until its
	// last reader.
	if f.curOut > 0 {
		f.diff[0] += f.curOut
		f.diff[f.lastIndex(e, cur, first, n)+1] -= f.curOut
	}
	for k, o := range win {
		if o.Cancelled() {
			continue
		}
		if ip := inplaceInput(o); ip >= 0 && o.Inputs[ip].State() == refs.Pending {
			continue
		}
		b := o.Out.Bytes()
		f.diff[k] += b
		f.diff[f.lastIndex(e, o, first, n)+1] -= b
	}
	run, top := int64(0), f.curOut
	for k := range n {
		run += f.diff[k]
		top = max(top, run)
		f.reserve[k] = top
	}
}

// lastIndex is the window index up to which o's result lives.
func (f *flow) lastIndex(e *Engine, o *refs.Op, first uint64, n int) int {
	end := 0
	if o.Seq >= first {
		end = int(o.Seq - first)
	}
	s := e.State(o.Out)
	live := 0
	if s != nil {
		for _, u := range s.uses {
			if !u.Cancelled() && u.Seq > o.Seq {
				live++
				end = max(end, int(u.Seq-first))
			}
		}
	}
	if int(o.Out.Count()) > live {
		end = n - 1
	}
	return min(end, n-1)
}
