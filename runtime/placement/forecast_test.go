package placement

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tref-lang/tref/runtime/refs"
)

// queueBound is the most entries the forecast's queue may hold for live
// refs: histSites per ref after a compaction, twice that before the next
// one.
func queueBound(e *Engine) (live, bound int) {
	for _, s := range e.states {
		if s != nil && s.ref != nil {
			live++
		}
	}
	return live, 2*histSites*live + minCompact
}

// TestPredQueueBounded runs the planning benchmarks' streams for many
// steps under every strategy that feeds the forecast and checks after
// every op that the queue of predictions stays within a bound
// proportional to the live refs (it grew by about 0.6 entries per op on
// blocks before compaction), and empty under the strategies that do not
// read it.
func TestPredQueueBounded(t *testing.T) {
	const ops = 80000
	for _, name := range []string{"blocks", "stress"} {
		for _, st := range []string{"flow", "lru", "genoa"} {
			t.Run(name+"/"+st, func(t *testing.T) {
				ex, err := NewExecutor(Config{Device: "sim", Mem: planStreamMem[name], Strategy: st, Cost: testParams})
				if err != nil {
					t.Fatal(err)
				}
				e := ex.(*Engine)
				rt := refs.New(ex, refs.Options{Lookahead: 64})
				peak, n := 0, 0
				stream := newPlanStream(t, rt, name)
				stream.run(ops, func() {
					n++
					q := len(e.fc.queue)
					peak = max(peak, q)
					if live, bound := queueBound(e); q > bound {
						t.Fatalf("after %d ops the forecast's queue holds %d predictions for %d live refs, want at most %d", n, q, live, bound)
					}
				})
				stream.release()
				if err := rt.Flush(); err != nil {
					t.Fatal(err)
				}
				if st != "flow" {
					// lru and genoa never read the queue: nothing is queued.
					if peak != 0 {
						t.Fatalf("%s does not read the forecast's queue, but it held up to %d predictions", st, peak)
					}
					return
				}
				if c := e.fc.compactions; c < 5 {
					t.Fatalf("the queue (peak %d predictions) was compacted %d times, want at least 5: the stream did not test compaction", peak, c)
				}
				t.Logf("peak %d predictions, %d compactions", peak, e.fc.compactions)
			})
		}
	}
}

// TestPredQueueOrder checks that the queue's order does not depend on the
// order of pushes, and that compaction keeps the predictions that can
// still be used (one copy each) in the same order.
func TestPredQueueOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 50 {
		// States with a few predicted reads each; some dead, some reused.
		states := make([]*RefState, 20)
		for i := range states {
			s := &RefState{id: uint32(i), gen: uint32(rng.IntN(3)), ref: &refs.Ref{}}
			for k := range rng.IntN(histSites + 1) {
				last := uint64(10 + rng.IntN(40))
				s.hist[k] = siteUse{site: uint32(k + 1), prev: last - uint64(1+rng.IntN(8)), last: last}
			}
			states[i] = s
		}
		states[3] = nil     // dropped for good
		states[5].ref = nil // spare
		var all []pred
		for range 3000 {
			id := uint32(rng.IntN(len(states) + 2)) // ids past the end too
			p := pred{at: uint64(10 + rng.IntN(80)), id: id, gen: uint32(rng.IntN(3))}
			if s := states[min(int(id), len(states)-1)]; s != nil && rng.IntN(2) == 0 {
				// Often a prediction the state still makes.
				p.gen = s.gen
				if k := rng.IntN(histSites); s.hist[k].next() != 0 {
					p.at = s.hist[k].next()
				}
			}
			all = append(all, p)
		}
		drain := func(q predQueue) []pred {
			var out []pred
			for len(q) > 0 {
				out = append(out, q[0])
				q.pop()
			}
			return out
		}
		var a, b predQueue
		for _, p := range all {
			a.push(p)
		}
		perm := rng.Perm(len(all))
		for _, i := range perm {
			b.push(all[i])
		}
		da := drain(slices.Clone(a))
		if db := drain(b); !slices.Equal(da, db) {
			t.Fatalf("round %d: the queue's order depends on the order of pushes", round)
		}
		if !slices.IsSortedFunc(da, cmpPred) {
			t.Fatalf("round %d: the queue yields predictions out of order", round)
		}
		var want []pred
		for i, p := range da {
			if int(p.id) >= len(states) {
				continue
			}
			s := states[p.id]
			if p.at <= 30 || s == nil || s.ref == nil || s.gen != p.gen || s.predictor(p.at) < 0 || (i > 0 && da[i-1] == p) {
				continue
			}
			want = append(want, p)
		}
		f := forecast{queue: a}
		f.compact(states, 30)
		if len(f.queue) > histSites*len(states) {
			t.Fatalf("round %d: %d predictions after compaction, want at most %d", round, len(f.queue), histSites*len(states))
		}
		if got := drain(f.queue); !slices.Equal(got, want) {
			t.Fatalf("round %d: after compaction the queue yields\n%v\nwant\n%v", round, got, want)
		}
		if len(want) == 0 {
			t.Fatalf("round %d: no prediction survived: the test is too weak", round)
		}
	}
}

// cmpPred orders predictions as before does, for sorting.
func cmpPred(a, b pred) int {
	switch {
	case a.before(b):
		return -1
	case b.before(a):
		return 1
	}
	return 0
}
