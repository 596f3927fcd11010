package placement

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tref-lang/tref/runtime/refs"
)

// checkedFlow is flow with the checks of its accelerators: before every
// prefetch scan and victim search, every memoized next-use key must equal
// a fresh computation, and the ops that the scan skips (see scanFrom) must
// have every ready operand on the accelerator.
type checkedFlow struct {
	*flow
	t testing.TB
	// keys counts memoized keys checked (hits, not recomputed), skipped
	// the ops the scan skipped, tails the copy queues checked that were
	// kept from an earlier query, and searches the victim searches
	// checked.
	keys, skipped, tails, searches int
}

// wantReleased is what Victim's list of the refs Belady would evict before
// the victim must hold, computed as plainly as possible: the best
// candidate (returned too), then a walk of every resident ref, its next
// use after before and its last read before it found from its uses one
// by one.
func wantReleased(e *Engine, cands []*RefState, before uint64) ([]release, *RefState) {
	var best *RefState
	var bestKey uint64
	for _, c := range cands {
		key, _ := e.NextKey(c)
		if c.offload {
			key = NoUse
		}
		if key > before && (best == nil || flowBefore(c, key, best, bestKey)) {
			best, bestKey = c, key
		}
	}
	if best == nil {
		return nil, nil
	}
	f := &flow{}
	f.estimate(e.view())
	var rs []release
	for s := e.resident.head; s != nil; s = s.next {
		if key, _ := e.NextKey(s); s.keep || key > before && s.pins == 0 {
			continue
		}
		if after := e.NextKeyAfter(s, before); after > bestKey || after == NoUse && bestKey == NoUse {
			end := f.curEnd
			for _, u := range s.uses {
				if u.Seq < before && u.Seq > e.curSeq() && !u.Cancelled() {
					cum, _ := e.opCum(u)
					end = f.curEnd + cum - f.curCum
				}
			}
			rs = append(rs, release{at: end, bytes: s.Bytes()})
		}
	}
	return rs, best
}

// checkReleased checks that Victim's list of released refs holds what
// wantReleased says, in any order of equal release times, and returns the
// best candidate.
func (c *checkedFlow) checkReleased(e *Engine, cands []*RefState, before uint64, got []release) *RefState {
	want, best := wantReleased(e, cands, before)
	got = slices.Clone(got)
	order := func(a, b release) int { return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.bytes, b.bytes)) }
	slices.SortFunc(got, order)
	slices.SortFunc(want, order)
	if !slices.Equal(got, want) {
		c.t.Fatalf("op %d: Victim for op %d released %v, a walk of the resident refs %v", e.curSeq(), before, got, want)
	}
	return best
}

// checkTail checks that queueTail, with its running sum kept from earlier
// queries, says what a sum started afresh says.
func (c *checkedFlow) checkTail(e *Engine, seq uint64) {
	if seq <= e.curSeq() || seq > e.windowEnd() {
		return
	}
	q := c.queue
	kept := q.keeps(c.flow, e.view(), seq)
	got := c.queueTail(e.view(), seq)
	var fresh copyQueue
	fresh.reset(seq, e.keys.epoch)
	fresh.extend(e.view())
	fresh.advance(seq)
	want := int64(noTail)
	if fresh.head < len(fresh.dq) {
		want = fresh.dq[fresh.head].v - fresh.sumThrough(seq) - (c.curEnd - c.curCum)
	}
	if got != want {
		c.t.Fatalf("op %d: queueTail(%d) = %d from the sum kept since op %d (base %d, end %d), %d afresh",
			e.curSeq(), seq, got, q.at, q.base, q.end, want)
	}
	if kept && q.end > seq {
		c.tails++
	}
}

func (c *checkedFlow) checkKeys(e *Engine, states func(yield func(*RefState) bool)) {
	for s := range states {
		memo := s.keyEpoch == e.keys.epoch && s.keyLimit > e.keys.end
		key, pred := e.NextKey(s)
		forgetKey(s)
		fresh, fpred := e.NextKey(s)
		if key != fresh || pred != fpred {
			c.t.Fatalf("op %d: ref#%d has memoized key %d (predicted %v), computed afresh %d (predicted %v)",
				e.curSeq(), s.ref.ID(), key, pred, fresh, fpred)
		}
		if memo {
			c.keys++
		}
	}
}

// windowStates lists the states of the window's operands and the
// resident refs.
func windowStates(e *Engine) func(yield func(*RefState) bool) {
	return func(yield func(*RefState) bool) {
		for _, o := range append([]*refs.Op{e.cur}, e.window...) {
			for _, in := range o.Inputs {
				if s := e.State(in); s != nil && !yield(s) {
					return
				}
			}
		}
		for s := e.resident.head; s != nil; s = s.next {
			if !yield(s) {
				return
			}
		}
	}
}

func (c *checkedFlow) Prefetch(v *View) error {
	e := (*Engine)(v)
	c.checkKeys(e, windowStates(e))
	for s := range windowStates(e) {
		if int(s.id) >= len(e.states) || e.states[s.id] != s {
			c.t.Fatalf("op %d: ref#%d's state has id %d, which Engine.states does not map to it", e.curSeq(), s.ref.ID(), s.id)
		}
	}
	for _, p := range e.fc.queue {
		if int(p.id) >= len(e.states) {
			c.t.Fatalf("op %d: a queued prediction names state %d of %d", e.curSeq(), p.id, len(e.states))
		}
	}
	win := e.window
	if c.lostUse >= c.resume && len(win) > 0 && c.resume > win[0].Seq {
		for _, o := range win {
			if o.Seq >= c.resume {
				break
			}
			if _, ws := e.opCum(o); o.Cancelled() || ws > e.model.Capacity() || slices.Contains(c.onHost, o.Seq) {
				continue
			}
			for _, in := range o.Inputs {
				if s := e.State(in); in.State() == refs.Ready && (s == nil || s.buf == nil) {
					c.t.Fatalf("op %d: the scan resumes at op %d, but op %d reads ref#%d, which is not on the accelerator",
						e.curSeq(), c.resume, o.Seq, in.ID())
				}
			}
			c.skipped++
		}
	}
	return c.flow.Prefetch(v)
}

// Victim checks, before every victim search, the memoized keys of the
// candidates and the copy queue, and after it that the refs it found
// Belady would evict first are those a plain walk finds, and that its
// victim is the best candidate.
func (c *checkedFlow) Victim(v *View, need int64, before uint64) *RefState {
	e := (*Engine)(v)
	cands := slices.Clone(e.candidates())
	c.checkKeys(e, func(yield func(*RefState) bool) {
		for _, s := range cands {
			if !yield(s) {
				return
			}
		}
	})
	if !c.strict {
		got := c.flow.Victim(v, need, before)
		if _, want := wantReleased(e, cands, before); got != want {
			c.t.Fatalf("op %d: the walk of the resident refs found victim %v, the best candidate is %v", e.curSeq(), got, want)
		}
		return got
	}
	c.checkTail(e, before)
	// A release at -1 marks the list: Victim empties it when it computes it.
	mark := release{at: -1, bytes: -1}
	c.released = append(c.released[:0], mark)
	got := c.flow.Victim(v, need, before)
	if len(c.released) == 0 || c.released[0] != mark {
		best := c.checkReleased(e, cands, before, c.released)
		if got != nil && got != best {
			c.t.Fatalf("op %d: Victim for op %d chose ref#%d, the best candidate is ref#%d", e.curSeq(), before, got.ref.ID(), best.ref.ID())
		}
		c.searches++
	}
	return got
}

// TestFlowAccelerators runs random programs (those of the differential
// test: loops, hints, reads, host fallbacks, cancelled ops) under flow
// with the checks of checkedFlow, and checks that the memo and the
// resumed scan were used.
func TestFlowAccelerators(t *testing.T) {
	programs := 300
	if testing.Short() {
		programs = 60
	}
	var keys, skipped, tails, searches int
	var epochs uint64
	for seed := range programs {
		rng := rand.New(rand.NewPCG(uint64(seed), 11))
		p := genProgram(rng)
		lookahead := []int{1, 3, 8, 64}[rng.IntN(4)]
		for _, budget := range []int64{p.maxWS, p.maxWS * 3 / 2, p.maxWS / 2} {
			h := newHarness(t, "flow", budget, lookahead)
			c := &checkedFlow{flow: h.eng.strategy.(*flow), t: t}
			h.eng.strategy = c
			if seed%3 == 0 {
				// A middleware vetoes every third eviction: the vetoed
				// refs stay resident, set apart from the candidates.
				n := 0
				(&policy{beforeEvict: func(ev *EvictEvent) { n++; ev.Veto = n%3 == 0 }}).install(h)
			}
			t.Run(fmt.Sprintf("seed%d/mem%d/la%d", seed, budget, lookahead), func(t *testing.T) {
				c.t = t
				h.t = t
				p.run(h)
			})
			keys += c.keys
			skipped += c.skipped
			tails += c.tails
			searches += c.searches
			epochs += h.eng.keys.epoch
		}
	}
	t.Logf("%d memoized keys checked, %d ops skipped by resumed scans, %d epochs, %d kept copy queues, %d victim searches",
		keys, skipped, epochs, tails, searches)
	if keys == 0 || skipped == 0 || epochs <= uint64(programs*3) || tails == 0 || searches == 0 {
		t.Fatalf("the programs did not exercise the memo (%d keys), the resumed scan (%d ops), new epochs (%d), kept copy queues (%d) or the victim search (%d)",
			keys, skipped, epochs, tails, searches)
	}
}

// TestKeyCacheEpochs checks when the memo of every key is dropped at
// once: at the first op, after a gap in the sequence numbers (skipped
// ops), and on forgetAll; not between consecutive ops.
func TestKeyCacheEpochs(t *testing.T) {
	var k keyCache
	op := func(seq uint64) *refs.Op { return &refs.Op{Seq: seq} }
	if !k.begin(op(1), 5) || k.epoch != 1 || k.end != 5 {
		t.Fatalf("first op: epoch %d, end %d; want a new epoch 1 and end 5", k.epoch, k.end)
	}
	k.finish()
	if k.end != NoUse {
		t.Fatalf("outside a step the end is %d, want NoUse (every lookup misses)", k.end)
	}
	if k.begin(op(2), 6) || k.epoch != 1 {
		t.Fatalf("consecutive op: epoch %d, want 1 kept", k.epoch)
	}
	if !k.begin(op(4), 7) || k.epoch != 2 {
		t.Fatalf("op 4 after op 2: epoch %d, want a new epoch 2", k.epoch)
	}
	k.forgetAll()
	if k.epoch != 3 {
		t.Fatalf("forgetAll: epoch %d, want 3", k.epoch)
	}
	if keyLimit(9, true) != 9 || keyLimit(9, false) != NoUse {
		t.Fatalf("keyLimit: a prediction expires when the window reaches it, an exact key never")
	}
}

// TestKeyMemoInvalidation follows one weight's key through the events
// that change it: its reader runs, a reader enters the window, the
// forecast learns its period, the window reaches a prediction that does
// not come true, and a cancelled op.
func TestKeyMemoInvalidation(t *testing.T) {
	h := newHarness(t, "flow", 1<<20, 2)
	c := &checkedFlow{flow: h.eng.strategy.(*flow), t: t}
	h.eng.strategy = c
	w := h.host(1, 4, 4)
	x := h.host(2, 1, 4)
	// Two passes that read w at the same site, then ops that do not read
	// it (its prediction falls inside the window and is dropped), one of
	// them cancelled (its result released before it runs).
	for range 3 {
		y := h.opAt("w:1", "ptest_matmul", x, w)
		z := h.opAt("w:2", "ptest_relu", y)
		h.rt.Release(y)
		h.rt.Release(z)
	}
	for range 6 {
		y := h.opAt("r:1", "ptest_relu", x)
		h.rt.Release(x)
		x = y
	}
	dead := h.opAt("r:2", "ptest_relu", x)
	h.rt.Release(dead)
	h.finish(w, x)
	if c.keys == 0 {
		t.Fatal("no memoized key was checked")
	}
}
