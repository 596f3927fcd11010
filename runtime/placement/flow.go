package placement

import (
	"cmp"
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
	// curCum is its prefix sum of durations (see View.Cum).
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
	// live is staysUntil's changes in live bytes along the window.
	live []int64
	// onHost are the window's ops whose operands the prefetch scans left
	// on the host because the op will run there (hostWins), for tests.
	onHost []uint64
	// hostOuts are those ops' results: on the host when computed.
	hostOuts []*refs.Ref
	// lostUse is the earliest next use of a ref that an op of the window
	// may read and that is not on the accelerator although it was when
	// the prefetch scan last looked (it reset lostUse to NoUse): an
	// evicted ref, or a result computed on the host (0 then, as after
	// ops were skipped). The scan resumes where it stopped last time
	// unless that is after lostUse (see scanFrom). lostTail is the same
	// for queueTail's copy queue, which also needs gainedTail: the latest
	// use by the window's ops of a ref that came to the accelerator since
	// it last looked (0 when none). The engine reports both (Watcher).
	lostUse, lostTail, gainedTail uint64
}

func init() { RegisterStrategy("flow", func() Strategy { return &flow{} }) }

func (*flow) Name() string { return "flow" }

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
// read is done, and the prefetch waits until such refs have freed the room
// it lacks. Waiting has a price when the copy then arrives after its op
// should start, and the copies after it in order of need, which queue
// behind it on the copy engine, later still; breaking Belady's order has
// one too, the victim's copy again later. The prefetch breaks the order
// only when, by the cost model, waiting would make it late by more than
// half that copy's time, or delay the window's ops, its own and the ones
// whose copies queue behind it, by more than a third of it (see queueDiv),
// and, when the victim has a known next use, only while the copies
// prefetched out of order and not yet used stay within a lead of a sixth
// of the capacity, or this copy is the only one (a victim with none may
// never be copied again: in one pass over weights larger than a sixth of
// the budget, waiting made every large weight late; once the forecast gave
// the victims a next use, a weight larger than the lead could never go
// ahead of its block's dying activations, and every pass but the first
// stalled on it). Within that lead it also breaks the order when the copy
// is in time now and waiting would make it late by more than a quarter of
// that threshold (see onTimeDiv: at the top of each block a weight that
// waited for activations to die arrived late and the next one missed).
// Beyond the window (forecasts) the order is never broken.
//
// The candidates are found in one walk of the resident refs, which also
// lists the refs read before the prefetched one.
func (f *flow) Victim(v *View, need int64, before uint64) *RefState {
	var best *RefState
	var bestKey uint64
	reads := f.reads[:0]
	strict := f.strict
	for s := v.FirstResident(); s != nil; s = s.NextResident() {
		if s.Kept() {
			continue
		}
		key, _ := v.NextKey(s)
		if s.Pinned() || v.Vetoed(s) {
			// Not a candidate; read before the prefetched ref when pinned
			// (an operand of the current op).
			if strict && (key <= before || s.Pinned()) {
				reads = append(reads, s)
			}
			continue
		}
		if key <= before && strict {
			reads = append(reads, s)
		}
		if s.Offload() {
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
	return f.decide(v, best, bestKey, need, before)
}

// decide is Victim's answer in strict mode, best (with next use key
// bestKey) being the candidate used furthest in the future and f.reads
// the resident refs read before the prefetched one: best, or nil to wait
// for the refs Belady would evict first.
func (f *flow) decide(v *View, best *RefState, bestKey uint64, need int64, before uint64) *RefState {
	// The refs Belady would evict before best, with when their last read
	// before the prefetched ref ends.
	f.released = f.released[:0]
	for _, s := range f.reads {
		// s is read before the prefetched ref, so after that read it is
		// more recently used than best: with no use known for either,
		// Belady's order (most recently used first) would take s.
		if after, last := f.readsOf(v, s, before); after > bestKey || after == NoUse && bestKey == NoUse {
			f.released = insertRelease(f.released, release{at: f.readEnd(v, last), bytes: s.Bytes()})
		}
	}
	if len(f.released) == 0 {
		return best
	}
	start := f.startOf(v, before)
	if start < 0 || bestKey != NoUse && f.earlyBytes > 0 && f.earlyBytes+f.fetching > v.Capacity()/leadDiv {
		return nil
	}
	wait := f.roomAt(v.Used() + need - v.Capacity())
	p := v.Cost()
	copyNs := p.CopyNs(f.fetching, p.H2D)
	arriveNow := max(best.Buffer().Release(), v.H2DFree()) + copyNs
	arriveLater := max(wait, v.H2DFree()) + copyNs
	threshold := p.CopyNs(best.Bytes(), p.H2D) / 2
	if arriveNow <= start && arriveLater-start > threshold/onTimeDiv && f.earlyBytes+f.fetching <= v.Capacity()/leadDiv {
		// On time now, late after waiting: the copies behind it follow
		// it late too, a loss that comes back every time the block
		// recurs (a weight at the top of each block that waits for the
		// activations to die, arrives late, and the next weight misses).
		f.early = true
		return best
	}
	if arriveLater-max(start, arriveNow) > threshold {
		// Late on its own already: the copies behind it only add.
		f.early = true
		return best
	}
	if !f.queueLate(v, before, start, arriveNow, arriveLater, p.CopyNs(best.Bytes(), p.H2D)/queueDiv) {
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
func (f *flow) queueLate(v *View, seq uint64, start, now, later, threshold int64) bool {
	d := later - now
	if d <= threshold {
		return false
	}
	m := now - start
	if tail := f.queueTail(v, seq); tail != noTail {
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
func (f *flow) queueTail(v *View, seq uint64) int64 {
	q := &f.queue
	if !q.keeps(f, v, seq) {
		q.reset(seq, v.Epoch())
	}
	f.lostTail, f.gainedTail = NoUse, 0
	q.extend(v)
	q.advance(seq)
	if q.head == len(q.dq) {
		return noTail
	}
	// An op starts at f.curEnd - f.curCum + (its cumNs - its estNs).
	return q.dq[q.head].v - q.sumThrough(seq) - (f.curEnd - f.curCum)
}

// copyQueue is queueTail's running sum, kept from step to step: the
// prefetch scan stops at the same op, or a later one, until a ref that
// an op after it reads leaves the accelerator (lostTail), a ref
// that an op after the queried one reads comes to it (gainedTail),
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
func (q *copyQueue) keeps(f *flow, v *View, seq uint64) bool {
	return q.valid && q.epoch == v.Epoch() && f.lostTail > q.end && f.gainedTail <= seq &&
		seq >= q.at && seq-q.base <= maxQueueSpan
}

// reset empties the queue for queries from the op of sequence seq on.
func (q *copyQueue) reset(seq, epoch uint64) {
	q.valid, q.epoch, q.base, q.end, q.at = true, epoch, seq, seq, seq
	q.sums, q.dq, q.head = q.sums[:0], q.dq[:0], 0
}

// extend adds the window's ops after end.
func (q *copyQueue) extend(v *View) {
	p := v.Cost()
	var buf [4]*refs.Ref
	win := v.Window()
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
				if in.State() == refs.Ready && !v.Ref(in).Resident() {
					sum += p.CopyNs(in.Bytes(), p.H2D)
					missing = true
				}
			}
		}
		q.sums = append(q.sums, tailOp{seq: o.Seq, v: sum})
		q.end = o.Seq
		if missing {
			cum, _ := v.Cum(o)
			key := sum - (cum - v.EstNs(o))
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

// onTimeDiv: a prefetch that arrives in time when it breaks Belady's
// order now breaks it (within the lead of leadDiv) when waiting would
// make it late by more than 1/onTimeDiv of decide's threshold (half the
// victim's copy time). A quarter, measured on the offload workloads
// (bench/RESULTS.md): a half keeps (c)'s 1.44x at 32 MiB; without the
// lead bound, an eighth made (d) and a sixteenth (b) slower.
const onTimeDiv = 4

// queueDiv: a prefetch breaks Belady's order when waiting would delay
// the window's ops (its own and those whose copies queue behind it on the
// copy engine) by more than 1/queueDiv of the victim's copy time. A
// delay is a stall of the compute engine; the victim's copy again is
// time on the copy engine, which stalls nothing while that engine keeps
// ahead, and often is no copy at all: in a pass over weights that do not
// stay, the victim and the ref Belady would evict first both leave
// before their next use, and the order only says which goes first. A
// half kept (c) at 32 MiB at 1.13x its bound (each block's w1 and w2
// queued 42 and 26 µs late behind a weight that waited 92 µs, an
// estimated 76 µs delay against a threshold of 86); a third and a quarter
// give the same times on every offload workload at 6-64 MiB; an eighth
// moves more than 1.05x belady_bytes at (d) 24 and 48 MiB.
const queueDiv = 3

// startOf estimates when the op of sequence seq starts, -1 beyond the
// window: the ops before it run back to back after the current one.
func (f *flow) startOf(v *View, seq uint64) int64 {
	if seq <= v.CurSeq() || seq > v.WindowEnd() {
		return -1
	}
	o := v.Window()[seq-v.CurSeq()-1]
	cum, _ := v.Cum(o)
	return f.curEnd + cum - f.curCum - v.EstNs(o)
}

// readsOf is, for s read before seq, e.NextKeyAfter(s, seq) and s's last
// read before seq after the current op (nil when none), in one walk of
// its uses.
func (f *flow) readsOf(v *View, s *RefState, seq uint64) (after uint64, last *refs.Op) {
	uses := v.Uses(s)
	if len(uses) == 0 {
		after, _ = v.NextKey(s)
		return after, nil
	}
	cur := v.CurSeq()
	for _, u := range s.uses {
		switch {
		case u.Cancelled():
		case u.Seq > seq:
			return u.Seq, last
		case u.Seq < seq && u.Seq > cur:
			last = u
		}
	}
	return v.PredictedAfter(s), last
}

// readEnd estimates when the read by op u ends: the current op's end when
// u is nil.
func (f *flow) readEnd(v *View, u *refs.Op) int64 {
	if u == nil {
		return f.curEnd
	}
	cum, _ := v.Cum(u)
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
	if c.Offload() != b.Offload() {
		return c.Offload()
	}
	if cd, bd := c.Dirty(), b.Dirty(); cd != bd {
		return !cd
	}
	if key == NoUse && c.LastUse() != b.LastUse() {
		return c.LastUse() > b.LastUse()
	}
	return c.Bytes() > b.Bytes()
}

// After does nothing: dead refs are freed by the runtime at once.
func (*flow) After(*View, *refs.Op) error { return nil }

// Prefetch issues copies: first every operand of the window's ops in
// order of need, stopping at the first that cannot get room without
// evicting something needed sooner; then, beyond the window, the refs the
// forecast predicts, earliest first, but only while the script keeps
// submitting ops (a window that drains means the steady state the
// forecast learned may be over).
func (f *flow) Prefetch(v *View) error {
	win := v.Window()
	f.beginReserve(v, v.Current(), win)
	capacity := v.Capacity()
	var buf [4]*refs.Ref
	f.estimate(v)
	f.earlyBytes = 0
	for s := v.FirstResident(); s != nil; s = s.NextResident() {
		if s.Prefetched() && s.Mark {
			f.earlyBytes += s.Bytes()
		}
	}
	f.dropRun(v.CurSeq())
	f.strict = true
	defer func() { f.strict = false }()
	for j := f.scanFrom(v, win); j < len(win); j++ {
		o := win[j]
		if _, ws := v.Cum(o); o.Cancelled() || ws > capacity {
			continue
		}
		if f.hostWins(v, o, j+1) {
			if !slices.Contains(f.onHost, o.Seq) {
				f.onHost = append(f.onHost, o.Seq)
				f.hostOuts = append(f.hostOuts, o.Out)
			}
			continue // its operands stay on the host
		}
		for _, in := range opInputs(o, buf[:]) {
			if in.State() != refs.Ready {
				continue // computed by an op of the window, or failed
			}
			s := v.Ref(in)
			if s.Resident() {
				continue
			}
			f.fetching, f.early = s.Bytes(), false
			f.resume = o.Seq
			ok, err := v.Prefetch(s, o.Seq, f.reserveAt(v, win, j), false)
			if err != nil || !ok {
				return err
			}
			s.Mark = f.early // prefetched out of Belady's order

		}
	}
	f.resume = v.WindowEnd() + 1
	if !v.Growing() {
		return nil // draining: the script's steady state may be over
	}
	reserve := f.curOut
	if n := len(win); n > 0 {
		reserve = f.reserveAt(v, win, n-1)
	}
	for {
		s, at := v.Predicted()
		if s == nil {
			return nil
		}
		f.fetching = s.Bytes()
		ok, err := v.Prefetch(s, at, reserve, true)
		if err != nil || !ok {
			return err
		}
		s.Mark = false
		// This pops the earliest prediction, which is s's unless the
		// evictions that made room queued one before it: that one goes
		// (and s's next, now resident), so that the scan does not bring
		// back at once a ref it evicted for s.
		v.PopPredicted()
	}
}

// dropRun forgets the ops of onHost (and their hostOuts) up to the
// current op of sequence cur: they have run.
func (f *flow) dropRun(cur uint64) {
	k := 0
	for i, seq := range f.onHost {
		if seq > cur {
			f.onHost[k], f.hostOuts[k] = seq, f.hostOuts[i]
			k++
		}
	}
	clear(f.hostOuts[k:])
	f.onHost, f.hostOuts = f.onHost[:k], f.hostOuts[:k]
}

// ReadsPredictions marks flow as a reader of the forecast's queue
// (PredictionReader).
func (*flow) ReadsPredictions() {}

// Lost records that a ref the window's op of sequence next reads (any op
// for 0) is not on the accelerator although it may have been when the
// scans last looked (see lostUse). It implements Watcher.
func (f *flow) Lost(next uint64) {
	f.lostUse = min(f.lostUse, next)
	f.lostTail = min(f.lostTail, next)
}

// Gained records that a ref the window's ops read up to the op of
// sequence last came to the accelerator (see gainedTail). It implements
// Watcher.
func (f *flow) Gained(last uint64) { f.gainedTail = max(f.gainedTail, last) }

// scanFrom is the index in win at which the prefetch scan starts. A scan
// stops at the first operand it cannot prefetch; the ops before it then
// have every operand that is ready on the accelerator (or on its way),
// and they keep them until a ref leaves the accelerator while one of them
// still reads it (lostUse). So the scan resumes where the last one
// stopped unless that happened: it would find nothing to do before. (The
// lazy reserveAt still sums the results from the window's start.)
func (f *flow) scanFrom(v *View, win []*refs.Op) int {
	resume := f.resume
	if f.lostUse < resume {
		resume = 0
	}
	f.lostUse = NoUse
	if len(win) == 0 || resume <= win[0].Seq || resume > v.WindowEnd()+1 {
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
func (f *flow) estimate(v *View) {
	f.curEnd = v.ComputeFree() + v.EstNs(v.Current())
	f.curCum, _ = v.Cum(v.Current())
}

// beginReserve starts the computation of reserveAt for the window.
func (f *flow) beginReserve(v *View, cur *refs.Op, win []*refs.Op) {
	n := len(win)
	f.diff = resize(f.diff, n+1)
	f.run, f.upto = 0, 0
	first := cur.Seq + 1
	if n > 0 {
		first = win[0].Seq
	}
	var last int
	f.curOut, last = v.ResultLife(cur, first, n)
	f.top = f.curOut
	if n > 0 && f.curOut > 0 {
		// The current op's result, unless it dies at once, lives until
		// its last reader.
		f.diff[0] += f.curOut
		f.diff[last+1] -= f.curOut
	}
}

// reserveAt is the most bytes that results not yet allocated hold at any
// op up to window[j], the current op's result included. A result lives
// from its op to its last reader in the window, or to the window's end
// when the script holds it too; one that takes over a dying operand's
// buffer adds nothing. It extends the computation only as far as asked,
// in order: the prefetch scan rarely looks at the whole window.
func (f *flow) reserveAt(v *View, win []*refs.Op, j int) int64 {
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
		if b, last := v.ResultLife(o, first, n); b > 0 {
			diff[k] += b
			diff[last+1] -= b
		}
		run += diff[k]
		top = max(top, run)
	}
	f.upto, f.run, f.top = j+1, run, top
	return top
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
