package placement

import "github.com/tref-lang/tref/runtime/refs"

// flow is the Flow strategy made real: Belady's furthest-next-use
// eviction over the exact window plus the forecast, prefetching in order
// of need as early as memory and the copy engine allow, freeing at last
// use (refs die and are dropped by the runtime; a ref with no known use is
// the first victim), writing back only when the host has no valid copy.
type flow struct {
	// diff, run, top and upto are reserveAt's state: the changes in bytes
	// of results not yet computed along the window, their running sum and
	// maximum, and how far they are computed.
	diff     []int64
	run, top int64
	upto     int
	// curOut is the current op's result bytes when it needs new memory.
	curOut int64
	// strict makes Victim Belady-consistent (see Victim).
	strict bool
	// fetching is the size of the ref being prefetched; early is set when
	// Victim broke Belady's order for it; earlyBytes sums the copies so
	// prefetched and not yet used.
	fetching, earlyBytes int64
	early                bool
	// curEnd estimates when the current op ends, in virtual time, and
	// curCum is its prefix sum of durations (see Engine.opCum).
	curEnd, curCum int64
	// resume is the sequence number of the window's op at which the last
	// prefetch scan stopped (see scanFrom), 0 before the first.
	resume uint64
}

func init() { RegisterStrategy("flow", func() Strategy { return &flow{} }) }

func (*flow) Name() string                    { return "flow" }
func (*flow) OnDevice(*Engine, *refs.Op) bool { return true }

// Victim evicts the candidate used furthest in the future (exact in the
// window, predicted beyond it, never when unknown), and only one used
// after before, so a prefetch never evicts what is needed sooner. Ties go
// to an offload hint, then to a clean copy (no write-back), then (when
// no use is known) to the most recently read, then to the larger copy
// (fewer evictions for the same room).
//
// For a prefetch (strict mode) the victim must also be the one Belady's
// policy would pick when the prefetched ref is needed: when a ref read
// before then will next be read after the victim (or neither has a known
// use and it is read later), Belady would evict that ref instead once its
// read is done, and the prefetch waits for it. Waiting has a price when
// the copy then arrives after its op should start; breaking Belady's order
// has one too, the victim's copy again later. The prefetch breaks the
// order only when, by the cost model, waiting would delay the op by more
// than half that copy's time, and only while the copies prefetched out of
// order and not yet used stay within a lead of a sixth of the capacity.
// Beyond the window (forecasts) the order is never broken.
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
	if best == nil || !f.strict {
		return best
	}
	wait := int64(-1) // when Belady's victim is released, if one is read first
	for s := e.resident.head; s != nil; s = s.next {
		if s.keep {
			continue
		}
		if key, _ := e.NextKey(s); key > before && s.pins == 0 {
			continue // a candidate, not read before the prefetched ref
		}
		// s is read before the prefetched ref, so after that read it is
		// more recently used than best: with no use known for either,
		// Belady's order (most recently used first) would take s.
		if after := e.NextKeyAfter(s, before); after > bestKey || after == NoUse && bestKey == NoUse {
			wait = max(wait, f.lastReadEnd(e, s, before))
		}
	}
	if wait < 0 {
		return best
	}
	need := f.startOf(e, before)
	if need < 0 || f.earlyBytes+f.fetching > e.dev.Capacity()/leadDiv {
		return nil
	}
	p := e.dev.Params()
	copyNs := p.CopyNs(f.fetching, p.H2D)
	arriveNow := max(best.buf.Release(), e.dev.H2DFree()) + copyNs
	arriveLater := max(wait, e.dev.H2DFree()) + copyNs
	if arriveLater-max(need, arriveNow) <= p.CopyNs(best.Bytes(), p.H2D)/2 {
		return nil // waiting costs less than fetching best again
	}
	f.early = true
	return best
}

// leadDiv bounds the copies prefetched out of Belady's order and not yet
// used to a fraction of the capacity.
const leadDiv = 6

// startOf estimates when the op of sequence seq starts, -1 beyond the
// window: the ops before it run back to back after the current one.
func (f *flow) startOf(e *Engine, seq uint64) int64 {
	if seq <= e.curSeq() || seq > e.windowEnd() {
		return -1
	}
	o := e.window[seq-e.curSeq()-1]
	cum, _ := e.opCum(o)
	return f.curEnd + cum - f.curCum - e.EstNs(o)
}

// lastReadEnd estimates when s's last read before seq ends.
func (f *flow) lastReadEnd(e *Engine, s *RefState, seq uint64) int64 {
	end := f.curEnd // s is read by the current op
	for _, u := range s.uses {
		if u.Seq >= seq {
			break
		}
		if !u.Cancelled() && u.Seq > e.curSeq() {
			cum, _ := e.opCum(u)
			end = f.curEnd + cum - f.curCum
		}
	}
	return end
}

// flowBefore reports whether c (next use key) is a better victim than b.
// Among refs with no known next use, the most recently read goes first:
// a ref the script still holds is likely read again (a weight in a loop),
// and in a loop the one read longest ago comes back first; this is what
// Belady's policy does on cyclic reads, learned before the forecast has a
// period.
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
	if key == NoUse && c.lastUse != b.lastUse {
		return c.lastUse > b.lastUse
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
	f.beginReserve(e, e.cur, win)
	capacity := e.dev.Capacity()
	var buf [4]*refs.Ref
	f.estimate(e)
	f.earlyBytes = 0
	for s := e.resident.head; s != nil; s = s.next {
		if s.prefetched && s.early {
			f.earlyBytes += s.Bytes()
		}
	}
	f.strict = true
	defer func() { f.strict = false }()
	for j := f.scanFrom(e, win); j < len(win); j++ {
		o := win[j]
		if _, ws := e.opCum(o); o.Cancelled() || ws > capacity {
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
			f.fetching, f.early = s.Bytes(), false
			f.resume = o.Seq
			ok, err := e.Prefetch(s, o.Seq, f.reserveAt(e, win, j), false)
			if err != nil || !ok {
				return err
			}
			if f.early {
				s.early = true
			}
		}
	}
	f.resume = e.windowEnd() + 1
	if !e.growing {
		return nil // draining: the script's steady state may be over
	}
	reserve := f.curOut
	if n := len(win); n > 0 {
		reserve = f.reserveAt(e, win, n-1)
	}
	end := e.windowEnd()
	q := &e.fc.queue
	for len(*q) > 0 {
		p := (*q)[0]
		s := p.st
		if p.gen != s.gen || s.ref == nil || s.ref.Aux != s || s.ref.State() != refs.Ready || s.buf != nil || p.at <= end {
			q.pop()
			continue
		}
		if key, pred := e.NextKey(s); !pred || key != p.at {
			q.pop() // stale: a newer prediction is queued
			continue
		}
		f.fetching = s.Bytes()
		ok, err := e.Prefetch(s, p.at, reserve, true)
		if err != nil || !ok {
			return err
		}
		q.pop()
	}
	return nil
}

// scanFrom is the index in win at which the prefetch scan starts. A scan
// stops at the first operand it cannot prefetch; the ops before it then
// have every operand that is ready on the accelerator (or on its way),
// and they keep them until a ref leaves the accelerator while one of them
// still reads it (Engine.lostUse). So the scan resumes where the last one
// stopped unless that happened: it would find nothing to do before. (The
// lazy reserveAt still sums the results from the window's start.)
func (f *flow) scanFrom(e *Engine, win []*refs.Op) int {
	resume := f.resume
	if e.lostUse < resume {
		resume = 0
	}
	e.lostUse = NoUse
	if len(win) == 0 || resume <= win[0].Seq || resume > e.windowEnd()+1 {
		return 0
	}
	j := int(resume - win[0].Seq)
	if j < len(win) && win[j].Seq != resume {
		return 0 // not numbered in order: never seen, but cheap to check
	}
	return j
}

// estimate sets the origin of the window's time estimates: the current
// op ends at curEnd, and the ops after it follow back to back (their
// durations are prefix sums kept by the engine).
func (f *flow) estimate(e *Engine) {
	f.curEnd = e.dev.ComputeFree() + e.EstNs(e.cur)
	f.curCum, _ = e.opCum(e.cur)
}

// beginReserve starts the computation of reserveAt for the window.
func (f *flow) beginReserve(e *Engine, cur *refs.Op, win []*refs.Op) {
	n := len(win)
	f.diff = resize(f.diff, n+1)
	f.run, f.upto = 0, 0
	f.curOut = 0
	if e.inplaceOf(cur) < 0 {
		f.curOut = cur.Out.Bytes()
	}
	f.top = f.curOut
	if n > 0 && f.curOut > 0 {
		// The current op's result, unless it dies at once, lives until
		// its last reader.
		f.diff[0] += f.curOut
		f.diff[f.lastIndex(e, cur, win[0].Seq, n)+1] -= f.curOut
	}
}

// reserveAt is the most bytes that results not yet allocated hold at any
// op up to window[j], the current op's result included. A result lives
// from its op to its last reader in the window, or to the window's end
// when the script holds it too; one that takes over a dying operand's
// buffer adds nothing. It extends the computation only as far as asked,
// in order: the prefetch scan rarely looks at the whole window.
func (f *flow) reserveAt(e *Engine, win []*refs.Op, j int) int64 {
	n := len(win)
	for ; f.upto <= j; f.upto++ {
		k := f.upto
		o := win[k]
		if ip := e.inplaceOf(o); !o.Cancelled() && !(ip >= 0 && o.Inputs[ip].State() == refs.Pending) {
			b := o.Out.Bytes()
			f.diff[k] += b
			f.diff[f.lastIndex(e, o, win[0].Seq, n)+1] -= b
		}
		f.run += f.diff[k]
		f.top = max(f.top, f.run)
	}
	return f.top
}

// lastIndex is the window index up to which o's result lives.
func (f *flow) lastIndex(e *Engine, o *refs.Op, first uint64, n int) int {
	end := 0
	if o.Seq >= first {
		end = int(o.Seq - first)
	}
	live := 0
	if s := e.State(o.Out); s != nil {
		// Its readers are all in the window (it is pending), in order.
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
	return min(end, n-1)
}

// resize returns s with length n, zeroed, reusing its array when it can.
func resize(s []int64, n int) []int64 {
	if cap(s) < n {
		return make([]int64, n)
	}
	s = s[:n]
	clear(s)
	return s
}
