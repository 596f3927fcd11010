package optimal

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tref-lang/tref/runtime/device"
	"github.com/tref-lang/tref/runtime/placement/trace"
)

// testCost is small and round: 1 byte/ns links, 100 ns per copy or
// launch, a host 10x slower than the device.
var testCost = device.Cost{H2D: 1e9, D2H: 1e9, Flops: 1e12, MemBandwidth: 1e11, LatencyNs: 100,
	HostFlops: 1e10, HostMemBandwidth: 1e10}

// randomSteps makes a program of n ops over a few weights: each op reads
// one or two live refs (weights or earlier results), some results are
// read by the host, and refs die after their last use.
func randomSteps(rng *rand.Rand, n int) []trace.Step {
	sizes := []int64{64, 256, 1024}
	var live []trace.Use
	next := uint64(1)
	for range 2 + rng.IntN(3) {
		live = append(live, trace.Use{Ref: next, Bytes: sizes[rng.IntN(len(sizes))]})
		next++
	}
	var steps []trace.Step
	for range n {
		k := 1 + rng.IntN(2)
		var ins []trace.Use
		for range k {
			u := live[rng.IntN(len(live))]
			dup := false
			for _, x := range ins {
				dup = dup || x.Ref == u.Ref
			}
			if !dup {
				ins = append(ins, u)
			}
		}
		out := trace.Use{Ref: next, Bytes: ins[0].Bytes}
		next++
		var bytes int64 = out.Bytes
		for _, in := range ins {
			bytes += in.Bytes
		}
		flops := int64(0)
		if rng.IntN(2) == 0 {
			flops = int64(rng.IntN(4)) * 100_000
		}
		steps = append(steps, trace.Step{Kind: trace.StepOp, Ins: ins, Out: out, Inplace: -1,
			Cost: trace.OpCost{Flops: flops, Bytes: bytes}})
		live = append(live, out)
		if rng.IntN(4) == 0 {
			steps = append(steps, trace.Step{Kind: trace.StepRead, Out: out, Inplace: -1})
		}
	}
	// Every ref dies at the end, in a random order.
	rng.Shuffle(len(live), func(i, j int) { live[i], live[j] = live[j], live[i] })
	for _, u := range live {
		steps = append(steps, trace.Step{Kind: trace.StepDeath, Out: u, Inplace: -1})
	}
	return steps
}

// TestBranchAndBoundEqualsBruteForce: on tiny programs the search with
// its bound's pruning finds the same optimum as enumerating every
// schedule of the decision space, and its root bound is below it.
func TestBranchAndBoundEqualsBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	solved, sharper := 0, 0
	for trial := range 60 {
		steps := randomSteps(rng, 2+rng.IntN(4))
		for _, capacity := range []int64{1100, 2100, 4000} {
			p := Problem{Steps: steps, Capacity: capacity, Cost: testCost}
			bb, err := Solve(p, Options{Window: 3})
			if err != nil {
				t.Fatal(err)
			}
			brute, err := Solve(p, Options{Window: 3, exhaustive: true, MaxNodes: 5_000_000})
			if err != nil {
				t.Fatal(err)
			}
			if !brute.Solved {
				continue // too many schedules to enumerate
			}
			solved++
			if !bb.Solved || bb.OptNs != brute.OptNs {
				t.Fatalf("trial %d, capacity %d: branch and bound %+v, brute force %+v", trial, capacity, bb, brute)
			}
			if len(bb.HostOps) != bb.Best.HostOps || !slices.IsSorted(bb.HostOps) ||
				len(bb.HostOps) > 0 && (bb.HostOps[0] < 0 || bb.HostOps[len(bb.HostOps)-1] >= bb.Ops) {
				t.Fatalf("trial %d, capacity %d: host ops %v, tally %+v, %d ops", trial, capacity, bb.HostOps, bb.Best, bb.Ops)
			}
			if bb.Nodes > brute.Nodes {
				t.Errorf("trial %d: branch and bound tried %d nodes, brute force %d", trial, bb.Nodes, brute.Nodes)
			}
			g, _ := compile(p)
			root, _ := newState(g)
			root.finishStep()
			s := &search{g: g}
			if lb := s.bound(root); lb > brute.OptNs {
				t.Fatalf("trial %d, capacity %d: root bound %d above the optimum %d", trial, capacity, lb, brute.OptNs)
			}
			if lb := s.flowshop(root); lb > brute.OptNs {
				t.Fatalf("trial %d, capacity %d: flow-shop bound %d above the optimum %d", trial, capacity, lb, brute.OptNs)
			} else if lb > s.bound(root) {
				sharper++
			}
			// Conditional on beating an incumbent just above the
			// optimum, the pinned ops and the bound still admit it.
			s.pinDevice(root, brute.OptNs+1)
			if lb := s.flowshop(root); lb > brute.OptNs {
				t.Fatalf("trial %d, capacity %d: flow-shop bound %d with pinned ops above the optimum %d", trial, capacity, lb, brute.OptNs)
			}
		}
	}
	if solved < 100 {
		t.Fatalf("only %d of 180 cases were enumerated", solved)
	}
	if sharper < 10 {
		t.Fatalf("the flow-shop bound is above the others in only %d of %d cases", sharper, solved)
	}
}

// TestHostOps: the best schedule's placements. Op 0 reads a 10000-byte
// weight (10 us to copy in) and does no arithmetic (1 us on the host), and
// the host reads its result: it runs on the host. Op 1 does 10^6 flops (1
// us on the accelerator, 100 us on the host) over a small operand: it runs
// on the accelerator.
func TestHostOps(t *testing.T) {
	w, x := trace.Use{Ref: 1, Bytes: 10000}, trace.Use{Ref: 2, Bytes: 64}
	a, b := trace.Use{Ref: 3, Bytes: 64}, trace.Use{Ref: 4, Bytes: 64}
	steps := []trace.Step{
		{Kind: trace.StepOp, Ins: []trace.Use{w}, Out: a, Inplace: -1, Cost: trace.OpCost{Bytes: 10064}},
		{Kind: trace.StepRead, Out: a, Inplace: -1},
		{Kind: trace.StepOp, Ins: []trace.Use{x}, Out: b, Inplace: -1, Cost: trace.OpCost{Flops: 1_000_000, Bytes: 128}},
		{Kind: trace.StepRead, Out: b, Inplace: -1},
	}
	res, err := Solve(Problem{Steps: steps, Capacity: 20000, Cost: testCost}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Solved || !slices.Equal(res.HostOps, []int{0}) || res.Best.HostOps != 1 {
		t.Fatalf("solved %v, host ops %v (tally %+v), want op 0 alone on the host", res.Solved, res.HostOps, res.Best)
	}
}

// TestBalance: the fractional two-machine balance.
func TestBalance(t *testing.T) {
	for _, c := range []struct {
		a, b  float64
		items []pq
		want  float64
	}{
		{0, 0, []pq{{10, 10}}, 5},               // half each way
		{0, 0, []pq{{1, 10}, {10, 1}}, 1},       // the cheap one moves
		{20, 0, []pq{{10, 10}}, 20},             // already balanced on the first
		{0, 5, []pq{{4, 1}, {1, 4}}, 5},         // both move, cheapest first
		{0, 0, []pq{{2, 2}, {2, 2}, {2, 2}}, 3}, // 1.5 items each
	} {
		if got := balance(c.a, c.b, c.items); got < c.want-1e-9 || got > c.want+1e-9 {
			t.Errorf("balance(%v, %v, %v) = %v, want %v", c.a, c.b, c.items, got, c.want)
		}
	}
}

// TestTooBigAndLimit: a trace over MaxOps gets a greedy schedule and the
// bound; a search that hits its node limit says so and keeps a bound
// below its best.
func TestTooBigAndLimit(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	steps := randomSteps(rng, 30)
	p := Problem{Steps: steps, Capacity: 1500, Cost: testCost}
	big, err := Solve(p, Options{MaxOps: 10})
	if err != nil {
		t.Fatal(err)
	}
	if !big.TooBig || big.Solved || !big.Found || big.LowerNs > big.OptNs || big.LowerNs <= 0 {
		t.Fatalf("too big: %+v", big)
	}
	lim, err := Solve(p, Options{MaxNodes: 50})
	if err != nil {
		t.Fatal(err)
	}
	if lim.Solved || lim.TooBig || !lim.Found || lim.LowerNs > lim.OptNs {
		t.Fatalf("limited: %+v", lim)
	}
	if lim.Status() == "" || big.Status() == "" {
		t.Fatal("no status")
	}
}

// streamSteps is a chain of n ops, each reading the previous result and
// a weight of its own that starts on the host: copies and kernels
// pipelined, as the offload workloads are.
func streamSteps(n int, weight, act, flops int64) []trace.Step {
	var steps []trace.Step
	x := trace.Use{Ref: 1, Bytes: act}
	next := uint64(2)
	for range n {
		w := trace.Use{Ref: next, Bytes: weight}
		out := trace.Use{Ref: next + 1, Bytes: act}
		next += 2
		steps = append(steps, trace.Step{Kind: trace.StepOp, Ins: []trace.Use{x, w}, Out: out, Inplace: -1,
			Cost: trace.OpCost{Flops: flops, Bytes: weight + 2*act}},
			trace.Step{Kind: trace.StepDeath, Out: x, Inplace: -1}, trace.Step{Kind: trace.StepDeath, Out: w, Inplace: -1})
		x = out
	}
	return append(steps, trace.Step{Kind: trace.StepRead, Out: x, Inplace: -1}, trace.Step{Kind: trace.StepDeath, Out: x, Inplace: -1})
}

// TestFlowShopTight: on a stream of weights whose copies take longer
// than the kernels, the flow-shop bound (the copies before an op plus the
// time from its start on) is the optimum, which the critical path and
// the load balance fall short of; the search proves it at the root.
func TestFlowShopTight(t *testing.T) {
	// Each weight's copy takes 100 + 2000 ns, each kernel 100 + 1000 ns
	// on the device and 100000 ns on the host. With room for one weight
	// at a time (the second capacity) each copy waits for the op
	// before, whose working set leaves no room for it: the tail from an
	// op sees that too.
	for _, capacity := range []int64{100_000, 3000} {
		p := Problem{Steps: streamSteps(6, 2000, 16, 1_000_000), Capacity: capacity, Cost: testCost}
		res, err := Solve(p, Options{})
		if err != nil {
			t.Fatal(err)
		}
		g, _ := compile(p)
		root, _ := newState(g)
		root.finishStep()
		s := &search{g: g}
		old, fs := s.bound(root), s.flowshop(root)
		if !res.Solved || fs != res.OptNs || old >= fs {
			t.Fatalf("capacity %d: optimum %d (%s), flow-shop bound %d, the other bounds %d", capacity, res.OptNs, res.Status(), fs, old)
		}
	}
}

// TestBeladyGreedy: on a stream of weights read twice, with room for
// two, the greedy schedule that prefetches as early as Belady keeps the
// copy and makes room only from refs used no more (polBeladyFree) is the
// optimum that brute force finds, and copies Belady's minimum; prefetching
// into room taken from refs used later (polBelady) evicts a weight that
// demand paging keeps and copies it twice.
func TestBeladyGreedy(t *testing.T) {
	steps := streamSteps(4, 1000, 16, 200_000)
	// A second pass over the same weights.
	var again []trace.Step
	x := steps[len(steps)-2].Out
	next := uint64(100)
	for _, st := range steps {
		if st.Kind != trace.StepOp {
			continue
		}
		out := trace.Use{Ref: next, Bytes: x.Bytes}
		next++
		again = append(again, trace.Step{Kind: trace.StepOp, Ins: []trace.Use{x, st.Ins[1]}, Out: out, Inplace: -1, Cost: st.Cost})
		x = out
	}
	var pass1 []trace.Step
	for _, st := range steps {
		if st.Kind == trace.StepDeath && st.Out.Bytes == 1000 || st.Kind == trace.StepRead || st.Kind == trace.StepDeath && st.Out.Ref == steps[len(steps)-1].Out.Ref {
			continue // the weights and the result live on
		}
		pass1 = append(pass1, st)
	}
	all := append(pass1, again...)
	all = append(all, trace.Step{Kind: trace.StepRead, Out: x, Inplace: -1})
	p := Problem{Steps: all, Capacity: 2200, Cost: testCost}
	brute, err := Solve(p, Options{Window: 3, exhaustive: true, MaxNodes: 5_000_000})
	if err != nil || !brute.Solved {
		t.Fatalf("brute force: %v %+v", err, brute)
	}
	g, err := compile(p)
	if err != nil {
		t.Fatal(err)
	}
	free, eager := runGreedy(t, g, polBeladyFree), runGreedy(t, g, polBelady)
	if free.best != brute.OptNs || free.bestTally.H2D != brute.Best.H2D {
		t.Fatalf("polBeladyFree: %d ns, %+v; the optimum: %d ns, %+v", free.best, free.bestTally, brute.OptNs, brute.Best)
	}
	if eager.bestTally.H2D <= brute.Best.H2D {
		t.Fatalf("polBelady copies %d bytes, the optimum %d", eager.bestTally.H2D, brute.Best.H2D)
	}
}

// TestBeladyBig: a table read at the start and the end of each of two
// steps, weights streamed in between through the room it leaves: Belady
// evicts the table for the weights (its next use is the furthest) and
// copies it again each time; polBeladyBig keeps it, copies it once, and
// is faster.
func TestBeladyBig(t *testing.T) {
	table := trace.Use{Ref: 1, Bytes: 4000}
	var steps []trace.Step
	next := uint64(10)
	op := func(ins ...trace.Use) trace.Use {
		out := trace.Use{Ref: next, Bytes: 16}
		next++
		var bytes int64 = 16
		for _, in := range ins {
			bytes += in.Bytes
		}
		steps = append(steps, trace.Step{Kind: trace.StepOp, Ins: ins, Out: out, Inplace: -1,
			Cost: trace.OpCost{Flops: 1_000_000, Bytes: bytes}})
		return out
	}
	ids := trace.Use{Ref: 2, Bytes: 16}
	for range 2 {
		x := op(ids, table)
		for w := range 4 {
			x = op(x, trace.Use{Ref: uint64(3 + w), Bytes: 1000})
		}
		ids = op(x, table)
	}
	steps = append(steps, trace.Step{Kind: trace.StepRead, Out: ids, Inplace: -1})
	p := Problem{Steps: steps, Capacity: 6100, Cost: testCost}
	g, err := compile(p)
	if err != nil {
		t.Fatal(err)
	}
	big, belady := runGreedy(t, g, polBeladyBig), runGreedy(t, g, polBelady)
	weights := int64(4 * 1000 * 2) // each weight twice: no room for them all
	if big.bestTally.H2D != 4000+16+weights || belady.bestTally.H2D <= big.bestTally.H2D || big.best >= belady.best {
		t.Fatalf("polBeladyBig: %d ns, %+v; polBelady: %d ns, %+v", big.best, big.bestTally, belady.best, belady.bestTally)
	}
}

// runGreedy runs the greedy schedule of policy pol on g (a window of 3).
func runGreedy(t *testing.T, g *program, pol policy) *search {
	t.Helper()
	root, _ := newState(g)
	s := &search{g: g, opt: Options{Window: 3}.withDefaults(), best: math.MaxInt64, greedy: true, pol: pol}
	s.run(root)
	if s.err != nil {
		t.Fatal(s.err)
	}
	return s
}
