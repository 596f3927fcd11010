package placement

import (
	"cmp"
	"math/bits"
	"slices"

	"github.com/tref-lang/tref/runtime/refs"
)

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
	// released is Victim's list of the refs Belady would evict first, and
	// reads the resident refs read before the prefetched ref.
	released []release
	reads    []*RefState
	// queue is queueTail's running sum of the window's copies.
	queue copyQueue
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
// read is done, and the prefetch waits until such refs have freed the
// room it lacks. Waiting has a price when the copy then arrives after its
// op should start, and the copies after it in order of need, which queue
// behind it on the copy engine, later still; breaking Belady's order has
// one too, the victim's copy again later. The prefetch breaks the order
// only when, by the cost model, waiting would delay the window's ops by
// more than half that copy's time, and only while the copies prefetched
// out of order and not yet used stay within a lead of a sixth of the
// capacity. Beyond the window (forecasts) the order is never broken.
func (f *flow) Victim(e *Engine, cands []*RefState, need int64, before uint64) *RefState {
	var best *RefState
	var bestKey uint64
	for _, c := range cands {
		key, _ := e.NextKey(c)
		if c.offload {
			key = NoUse
		}
		// flowBefore, its first comparison inline.
		if key > before && (best == nil || key > bestKey || key == bestKey && flowBefore(c, key, best, bestKey)) {
			best, bestKey = c, key
		}
	}
	if best == nil || !f.strict {
		return best
	}
	// The refs read before the prefetched one: those of the resident
	// refs, not kept, that an op up to it reads (the current op's
	// operands among them).
	reads := f.reads[:0]
	for s := e.resident.head; s != nil; s = s.next {
		if key, _ := e.NextKey(s); !s.keep && (key <= before || s.pins > 0) {
			reads = append(reads, s)
		}
	}
	f.reads = reads
	return f.decide(e, best, bestKey, need, before)
}

// victimResident is Victim over the candidates that Engine.candidates
// would list, found in one walk of the resident refs (see
// residentSearcher), which also lists the refs read before the
// prefetched one.
func (f *flow) victimResident(e *Engine, need int64, before uint64) *RefState {
	var best *RefState
	var bestKey uint64
	reads := f.reads[:0]
	strict := f.strict
	for s := e.resident.head; s != nil; s = s.next {
		if s.keep {
			continue
		}
		key, _ := e.NextKey(s)
		if s.pins > 0 || len(e.vetoed) > 0 && slices.Contains(e.vetoed, s) {
			// Not a candidate; read before the prefetched ref when pinned
			// (an operand of the current op).
			if strict && (key <= before || s.pins > 0) {
				reads = append(reads, s)
			}
			continue
		}
		if key <= before && strict {
			reads = append(reads, s)
		}
		if s.offload {
			key = NoUse
		}
		// flowBefore, its first comparison inline.
		if key > before && (best == nil || key > bestKey || key == bestKey && flowBefore(s, key, best, bestKey)) {
			best, bestKey = s, key
		}
	}
	f.reads = reads
	if best == nil || !strict {
		return best
	}
	return f.decide(e, best, bestKey, need, before)
}

// decide is Victim's answer in strict mode, best (with next use key
// bestKey) being the candidate used furthest in the future and f.reads
// the resident refs read before the prefetched one: best, or nil to wait
// for the refs Belady would evict first.
func (f *flow) decide(e *Engine, best *RefState, bestKey uint64, need int64, before uint64) *RefState {
	// The refs Belady would evict before best, with when their last read
	// before the prefetched ref ends.
	f.released = f.released[:0]
	for _, s := range f.reads {
		// s is read before the prefetched ref, so after that read it is
		// more recently used than best: with no use known for either,
		// Belady's order (most recently used first) would take s.
		if after, last := f.readsOf(e, s, before); after > bestKey || after == NoUse && bestKey == NoUse {
			f.released = insertRelease(f.released, release{at: f.readEnd(e, last), bytes: s.Bytes()})
		}
	}
	if len(f.released) == 0 {
		return best
	}
	start := f.startOf(e, before)
	if start < 0 || f.earlyBytes+f.fetching > e.model.Capacity()/leadDiv {
		return nil
	}
	wait := f.roomAt(e.model.Used() + need - e.model.Capacity())
	p := e.model.Cost()
	copyNs := p.CopyNs(f.fetching, p.H2D)
	arriveNow := max(best.buf.Release(), e.model.H2DFree()) + copyNs
	arriveLater := max(wait, e.model.H2DFree()) + copyNs
	threshold := p.CopyNs(best.Bytes(), p.H2D) / 2
	if arriveLater-max(start, arriveNow) > threshold {
		// Late on its own already: the copies behind it only add.
		f.early = true
		return best
	}
	if !f.queueLate(e, before, start, arriveNow, arriveLater, threshold) {
		return nil // waiting costs less than fetching best again
	}
	f.early = true
	return best
}

// release is a ref Belady would evict before the victim: its bytes are
// free once its last read before the prefetched use ends, at.
type release struct{ at, bytes int64 }

// insertRelease adds r to rs, kept in order of release (they are few).
func insertRelease(rs []release, r release) []release {
	rs = append(rs, r)
	i := len(rs) - 1
	for ; i > 0 && rs[i-1].at > r.at; i-- {
		rs[i] = rs[i-1]
	}
	rs[i] = r
	return rs
}

// roomAt is when the released refs have freed short bytes: the end of the
// read after which their sum, in order of release, first reaches short
// (the last release when it never does).
func (f *flow) roomAt(short int64) int64 {
	var sum int64
	for _, r := range f.released {
		sum += r.bytes
		if sum >= short {
			return r.at
		}
	}
	return f.released[len(f.released)-1].at
}

// queueLate reports whether waiting delays the window's ops by more
// than threshold when the ref prefetched for the op of sequence seq
// (starting at start) arrives at later instead of now. The copies of
// the later ops' operands still on the host follow it back to back on
// the copy engine, in order of need, so the wait delays them too. With
// M the most that an op's operands, their copies summed from now, end
// after its estimated start, the ops are late by max(0, M) now and by
// max(0, M + later - now) after waiting: the delay exceeds threshold
// exactly when later - now does and M > threshold - (later - now).
func (f *flow) queueLate(e *Engine, seq uint64, start, now, later, threshold int64) bool {
	d := later - now
	if d <= threshold {
		return false
	}
	m := now - start
	if tail := f.queueTail(e, seq); tail != noTail {
		m = max(m, now+tail)
	}
	return m > threshold-d
}

// queueTail is, for the ref prefetched for the op of sequence seq, how
// late the copies after it arrive relative to its own arrival: the
// window's later ops' operands still on the host follow it back to back
// on the copy engine, in order of need, so that they arrive late by at
// most arrival + queueTail, the largest of their copy times summed so
// far minus their op's estimated start; noTail when no copy follows.
func (f *flow) queueTail(e *Engine, seq uint64) int64 {
	q := &f.queue
	if !q.keeps(e, seq) {
		q.reset(seq, e.keys.epoch)
	}
	e.lostTail, e.gainedTail = NoUse, 0
	q.extend(e)
	q.advance(seq)
	if q.head == len(q.dq) {
		return noTail
	}
	// An op starts at f.curEnd - f.curCum + (its cumNs - its estNs).
	return q.dq[q.head].v - q.sumThrough(seq) - (f.curEnd - f.curCum)
}

// copyQueue is queueTail's running sum, kept from step to step: the
// prefetch scan stops at the same op, or a later one, until a ref that
// an op after it reads leaves the accelerator (Engine.lostTail), a ref
// that an op after the queried one reads comes to it (Engine.gainedTail),
// or an op is cancelled or skipped (a new epoch of the key cache), which
// start the sum again (see keeps). Over the window's
// ops after base up to end, sums holds the copy time of their operands
// on the host, summed in order of need through each op, and dq, from
// head on, the ops after at with such operands whose keys (the sum
// through the op minus its start less the estimates' origin) decrease:
// the front is the largest after at.
type copyQueue struct {
	valid         bool
	epoch         uint64
	base, end, at uint64
	sums          []tailOp
	dq            []tailOp
	head          int
}

// tailOp is an op of copyQueue.sums (v the sum through it) or dq (v its
// key).
type tailOp struct {
	seq uint64
	v   int64
}

// maxQueueSpan bounds how far copyQueue's queries move from its base
// before it starts again, so that its sums stay short.
const maxQueueSpan = 1024

// noTail is queueTail's answer when no copy follows.
const noTail = -1 << 62

// keeps reports whether the sum kept since the last query still answers
// a query for the op of sequence seq. A ref that came to the accelerator
// since then and is read only by ops up to seq changes nothing that the
// query reads: the sums of the ops after seq all lose its copy time, as
// does the sum through seq that the answer subtracts, so their
// differences and order are unchanged; the ops up to seq leave the queue.
func (q *copyQueue) keeps(e *Engine, seq uint64) bool {
	return q.valid && q.epoch == e.keys.epoch && e.lostTail > q.end && e.gainedTail <= seq &&
		seq >= q.at && seq-q.base <= maxQueueSpan
}

// reset empties the queue for queries from the op of sequence seq on.
func (q *copyQueue) reset(seq, epoch uint64) {
	q.valid, q.epoch, q.base, q.end, q.at = true, epoch, seq, seq, seq
	q.sums, q.dq, q.head = q.sums[:0], q.dq[:0], 0
}

// extend adds the window's ops after end.
func (q *copyQueue) extend(e *Engine) {
	p := e.model.Cost()
	var buf [4]*refs.Ref
	win := e.window
	j := len(win)
	if len(win) > 0 && q.end >= win[0].Seq && q.end-win[0].Seq < uint64(len(win)) && win[q.end-win[0].Seq].Seq == q.end {
		j = int(q.end-win[0].Seq) + 1 // the window is numbered in order
	} else {
		j, _ = slices.BinarySearchFunc(win, q.end+1, func(o *refs.Op, seq uint64) int { return cmp.Compare(o.Seq, seq) })
	}
	for ; j < len(win); j++ {
		o := win[j]
		var sum int64
		if n := len(q.sums); n > 0 {
			sum = q.sums[n-1].v
		}
		missing := false
		if !o.Cancelled() {
			for _, in := range opInputs(o, buf[:]) {
				if in.State() == refs.Ready && e.state(in).buf == nil {
					sum += p.CopyNs(in.Bytes(), p.H2D)
					missing = true
				}
			}
		}
		q.sums = append(q.sums, tailOp{seq: o.Seq, v: sum})
		q.end = o.Seq
		if missing {
			cum, _ := e.opCum(o)
			key := sum - (cum - e.EstNs(o))
			for len(q.dq) > q.head && q.dq[len(q.dq)-1].v <= key {
				q.dq = q.dq[:len(q.dq)-1]
			}
			q.dq = append(q.dq, tailOp{seq: o.Seq, v: key})
		}
	}
}

// advance drops the ops up to seq from the front.
func (q *copyQueue) advance(seq uint64) {
	q.at = seq
	for q.head < len(q.dq) && q.dq[q.head].seq <= seq {
		q.head++
	}
}

// sumThrough is the copy time summed through the op of sequence seq.
func (q *copyQueue) sumThrough(seq uint64) int64 {
	if k := seq - q.base - 1; seq > q.base && k < uint64(len(q.sums)) && q.sums[k].seq == seq {
		return q.sums[k].v // the sums are numbered in order from base
	}
	i, found := slices.BinarySearchFunc(q.sums, seq, func(o tailOp, seq uint64) int { return cmp.Compare(o.seq, seq) })
	if found {
		return q.sums[i].v
	}
	if i == 0 {
		return 0
	}
	return q.sums[i-1].v
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

// readsOf is, for s read before seq, e.NextKeyAfter(s, seq) and s's last
// read before seq after the current op (nil when none), in one walk of
// its uses.
func (f *flow) readsOf(e *Engine, s *RefState, seq uint64) (after uint64, last *refs.Op) {
	e.prune(s)
	if len(s.uses) == 0 {
		after, _ = e.NextKey(s)
		return after, nil
	}
	cur := e.curSeq()
	for _, u := range s.uses {
		switch {
		case u.Cancelled():
		case u.Seq > seq:
			return u.Seq, last
		case u.Seq < seq && u.Seq > cur:
			last = u
		}
	}
	return e.predictedAfter(s), last
}

// readEnd estimates when the read by op u ends: the current op's end when
// u is nil.
func (f *flow) readEnd(e *Engine, u *refs.Op) int64 {
	if u == nil {
		return f.curEnd
	}
	cum, _ := e.opCum(u)
	return f.curEnd + cum - f.curCum
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
	capacity := e.model.Capacity()
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
		s := e.states[p.id]
		if s == nil || p.gen != s.gen || s.ref == nil || s.ref.Aux != s || s.ref.State() != refs.Ready || s.buf != nil || p.at <= end {
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
		// This pops the earliest prediction, which is p unless the
		// evictions that made room queued one before it: that one goes
		// (and p next, now resident), so that the scan does not bring
		// back at once a ref it evicted for p.
		q.pop()
	}
	return nil
}

// readsPredictions marks flow as a reader of the forecast's queue
// (predictionReader).
func (f *flow) readsPredictions() {}

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
	f.curEnd = e.model.ComputeFree() + e.EstNs(e.cur)
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
		f.diff[f.lastIndex(e.State(cur.Out), cur, win[0].Seq, n)+1] -= f.curOut
	}
}

// reserveAt is the most bytes that results not yet allocated hold at any
// op up to window[j], the current op's result included. A result lives
// from its op to its last reader in the window, or to the window's end
// when the script holds it too; one that takes over a dying operand's
// buffer adds nothing. It extends the computation only as far as asked,
// in order: the prefetch scan rarely looks at the whole window.
func (f *flow) reserveAt(e *Engine, win []*refs.Op, j int) int64 {
	if f.upto > j {
		return f.top
	}
	n := len(win)
	first := win[0].Seq
	diff, run, top := f.diff[:n+1], f.run, f.top
	for k := f.upto; k <= j; k++ {
		o := win[k]
		if o.Cancelled() {
			run += diff[k]
			top = max(top, run)
			continue
		}
		s := e.State(o.Out)
		if s == nil || !s.costed || len(o.Def().Inplace) > 8 || o.Seq < first {
			f.addResult(e, o, s, k, first, diff)
		} else {
			// addResult, inlined by hand for the common case (a costed
			// op): this loop runs for every op before the scan's stop at
			// every step, and a call would spill its registers.
			ip := -1
			for m := s.inplace; m != 0; m &= m - 1 {
				if i := o.Def().Inplace[bits.TrailingZeros8(m)]; i < len(o.Inputs) && o.Inputs[i].Count() == 1 {
					ip = i
					break
				}
			}
			if ip < 0 || o.Inputs[ip].State() != refs.Pending {
				end, live := int(o.Seq-first), 0
				for i := len(s.uses) - 1; i >= 0; i-- {
					if u := s.uses[i]; u.Seq > o.Seq && !u.Cancelled() {
						if live == 0 {
							end = max(end, int(u.Seq-first))
						}
						live++
					}
				}
				if int(o.Out.Count()) > live || end > n-1 {
					end = n - 1
				}
				diff[k] += s.bytes
				diff[end+1] -= s.bytes
			}
		}
		run += diff[k]
		top = max(top, run)
	}
	f.upto, f.run, f.top = j+1, run, top
	return top
}

// addResult adds to diff, for the op o at index k of the window, its
// result's bytes from k to the last index where it lives, unless o takes
// over a dying operand's buffer; s is the result's state (nil when it
// has none).
func (f *flow) addResult(e *Engine, o *refs.Op, s *RefState, k int, first uint64, diff []int64) {
	if ip := e.inplaceWith(o, s); ip >= 0 && o.Inputs[ip].State() == refs.Pending {
		return
	}
	b := o.Out.Bytes()
	diff[k] += b
	diff[f.lastIndex(s, o, first, len(diff)-1)+1] -= b
}

// lastIndex is the window index up to which o's result lives; s is the
// result's state (nil when it has none).
func (f *flow) lastIndex(s *RefState, o *refs.Op, first uint64, n int) int {
	end := 0
	if o.Seq >= first {
		end = int(o.Seq - first)
	}
	live := 0
	if s != nil {
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
