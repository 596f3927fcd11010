package optimal

import (
	"cmp"
	"math"
	"slices"
)

// flowshop is a lower bound that sees what bound and criticalPath do
// not: that the copies into the accelerator and the kernels that need
// them queue on two engines in the same order, and that the budget
// forces copies again. Fix any schedule, D its ops run on the
// accelerator, and k a remaining op in D. The compute engine runs D's
// ops in program order, each after its operands' copies end, and the
// h2d engine runs one copy at a time from h2d0 (its free time, not
// before the host's clock); from its start, op k and what follows take
// at least tailDev[k] (tails). Hence
//
//	T >= h2d0 + copies(D ∩ [0, k]) + tailDev[k]
//
// where copies(X) is at least the sum of two kinds of terms, each linear
// in D's indicator x (1 on the accelerator):
//
//   - a first copy: a ref that the host holds and the accelerator does
//     not is copied in before its first reader there: in_r·x_j for any
//     one reader j <= k (the one whose move to the host costs most);
//   - a copy again: a gap of ref r is two consecutive events of r, b (a
//     reader, its producer, or "now" if resident now: x_b = 1) and a
//     (its next reader); a cut at op t inside the gap (b < t < a) sees r
//     resident when t is issued or r is copied in between t and a. The
//     bytes allocated never exceed the capacity C, so for the gaps G_t
//     assigned to a cut (each gap to one cut at most: no copy counted
//     twice) the copies again are at least
//     sum_{g in G_t} in_g·(x_a + x_b - 1) - K_t, K_t the fractional
//     knapsack of G_t (values in_g, weights bytes_g) in C: x_a + x_b - 1
//     is at most 1 when both ends are on the accelerator and at most 0
//     otherwise, and the value kept is at most K_t. Only gaps with
//     a <= k count for k.
//
// With every op on the accelerator this is full_k. A set S of ops run on
// the host instead takes off at most save_j for each j in S (its terms
// above), and lengthens the critical path: T >= cp + delta_j for each j
// in S (delta_j: criticalPath with j on the host, less cp). So for every
// schedule, with δ the largest delta of its host ops, T is at least
// max(cp + δ, full_k - sum of save_j over the ops j < k with
// delta_j <= δ) when delta_k > δ (op k is then on the accelerator), and
// cp + delta_k otherwise; the least of these over δ, maximized over k,
// is the bound. An op whose working set exceeds C is on the host in
// every schedule and has no terms.
func (s *search) flowshop(st *state) int64 {
	g, m := s.g, st.m
	// The remaining ops.
	var pos []int32
	idx := map[int32]int32{} // step -> op index among the remaining
	for k := st.next; int(k) < len(g.steps); k++ {
		if g.steps[k].kind == stepOp {
			idx[k] = int32(len(pos))
			pos = append(pos, k)
		}
	}
	n := len(pos)
	if n == 0 {
		return m.Now()
	}
	capable := func(j int32) bool { return g.ops[g.steps[pos[j]].op].ws <= g.capacity }
	// The refs to copy in a first time, and their readers.
	type firstCopy struct {
		in      float64
		readers []int32
	}
	var firsts []firstCopy
	// The gaps, first copies, and the refs that ops will make (made: b
	// makes it, a is its first reader).
	var gaps, made []gap
	for r := range g.refs {
		ri := &g.refs[r]
		var readers []int32
		for _, u := range ri.opUses {
			if u < st.next {
				continue
			}
			if j := idx[u]; capable(j) {
				readers = append(readers, j)
			}
		}
		if len(readers) == 0 {
			continue
		}
		in := float64(ri.inNs)
		b := int32(-2) // no start yet
		switch {
		case st.buf[r] != nil:
			b = -1
		case st.hostValid[r]:
			firsts = append(firsts, firstCopy{in, readers})
		case ri.prod >= st.next:
			if j := idx[ri.prod]; capable(j) {
				b = j
				if readers[0] > j {
					made = append(made, gap{a: readers[0], b: j, in: in, bytes: ri.bytes})
				}
			}
		}
		for _, a := range readers {
			if b != -2 && b != a {
				gaps = append(gaps, gap{a: a, b: b, in: in, bytes: ri.bytes})
			}
			b = a
		}
	}
	// Cuts: repeatedly the op that the most unassigned gaps' copy time
	// straddles, while their bytes exceed the capacity.
	type cut struct{ gaps []gap }
	var cuts []cut
	assigned := make([]bool, len(gaps))
	diff := make([]float64, n+1)
	byts := make([]int64, n+1)
	for range 16 {
		clear(diff)
		clear(byts)
		for i, gp := range gaps {
			if assigned[i] || gp.a-gp.b < 2 {
				continue
			}
			diff[gp.b+1] += gp.in
			diff[gp.a] -= gp.in
			byts[gp.b+1] += gp.bytes
			byts[gp.a] -= gp.bytes
		}
		best, bestV := -1, 0.0
		v, b := 0.0, int64(0)
		for t := range n {
			v += diff[t]
			b += byts[t]
			if b > g.capacity && v > bestV {
				best, bestV = t, v
			}
		}
		if best < 0 {
			break
		}
		var c cut
		for i, gp := range gaps {
			if !assigned[i] && gp.b < int32(best) && int32(best) < gp.a {
				assigned[i] = true
				c.gaps = append(c.gaps, gp)
			}
		}
		cuts = append(cuts, c)
	}
	// For each cut, the gaps in order of a, and the fractional knapsack
	// of those with a <= k for each k where it changes.
	type step struct {
		k        int32   // from op k on
		sumIn, K float64 // of the gaps with a <= k
	}
	cutSteps := make([][]step, len(cuts))
	for ci := range cuts {
		gs := cuts[ci].gaps
		slices.SortFunc(gs, func(x, y gap) int { return int(x.a - y.a) })
		var sum float64
		for i := 0; i < len(gs); {
			k := gs[i].a
			for i < len(gs) && gs[i].a == k {
				sum += gs[i].in
				i++
			}
			cutSteps[ci] = append(cutSteps[ci], step{k: k, sumIn: sum, K: knapsack(gs[:i], g.capacity)})
		}
	}
	h2d0 := float64(max(m.H2DFree(), m.Host()))
	// delta[j] is how much running op j on the host lengthens the
	// critical path: every schedule that runs it there takes at least
	// cp + delta[j].
	cp := s.criticalPath(st)
	delta := make([]float64, n)
	for j := range n {
		if !capable(int32(j)) {
			continue // on the host in every schedule: no device-side terms
		}
		s.hostOnly = g.steps[pos[j]].op + 1
		delta[j] = float64(s.criticalPath(st) - cp)
		s.hostOnly = 0
	}
	save := make([]float64, n)
	firstAt := make([]bool, n) // a first copy's save is at j
	order := make([]int32, 0, n)
	fs := make([]float64, n) // full at each k, -Inf where k cannot be k
	for k := range fs {
		fs[k] = math.Inf(-1)
	}
	// saving marks the ops whose move to the host takes time off fs[k]
	// for some k after them.
	saving := make([]bool, n)
	best := 0.0
	for k := range n {
		if !capable(int32(k)) {
			continue
		}
		// The device-side terms of each op at threshold k, with every
		// op on the accelerator; what running op j on the host takes
		// off them is save[j].
		konst := h2d0 + float64(g.tailDev[g.steps[pos[k]].op])
		// A first copy is lost only when every reader up to k runs on
		// the host: its save goes to the reader whose move costs most.
		clear(save)
		clear(firstAt)
		for _, f := range firsts {
			j := int32(-1)
			for _, r := range f.readers {
				if int(r) > k {
					break
				}
				if j < 0 || delta[r] > delta[j] {
					j = r
				}
			}
			if j >= 0 {
				save[j] += f.in
				firstAt[j] = true
			}
		}
		for ci, cs := range cutSteps {
			i := -1
			for i+1 < len(cs) && int(cs[i+1].k) <= k {
				i++
			}
			if i < 0 || cs[i].sumIn <= cs[i].K {
				continue // no gap counts, or the capacity keeps them all
			}
			konst -= cs[i].K
			for _, gp := range cuts[ci].gaps {
				if int(gp.a) > k {
					continue
				}
				// in·(x_a + x_b - 1): x_b is 1 for a ref resident now.
				save[gp.a] += gp.in
				if gp.b >= 0 {
					save[gp.b] += gp.in
					konst -= gp.in
				}
			}
		}
		// A ref made on the host and read on the accelerator is copied
		// in between: in·(x_a - x_b) (taken where b has a first copy,
		// whose saving it offsets: elsewhere it would credit a for a
		// copy that b on the accelerator does not need).
		for _, gp := range made {
			if int(gp.a) <= k && firstAt[gp.b] {
				save[gp.a] += gp.in
				save[gp.b] -= gp.in
			}
		}
		full := konst
		for j := range k + 1 {
			full += save[j]
			if j < k && save[j] > 0 {
				saving[j] = true
			}
		}
		fs[k] = full
		order = order[:0]
		for j := range k {
			if capable(int32(j)) {
				order = append(order, int32(j))
			}
		}
		// The least over δ of max(cp + δ, full - the saves of the ops
		// before k with delta <= δ), void once op k itself may move.
		slices.SortFunc(order, func(x, y int32) int { return cmp.Compare(delta[x], delta[y]) })
		v := max(float64(cp), full) // δ = 0 and no op moved
		left := full
		for i, j := range order {
			d := delta[j]
			if d >= delta[k] {
				break
			}
			left -= max(save[j], 0)
			if i+1 < len(order) && delta[order[i+1]] == d {
				continue
			}
			v = min(v, max(float64(cp)+d, left))
		}
		v = min(v, float64(cp)+delta[k])
		best = max(best, v)
	}
	best = max(best, s.firstMove(pos, fs, saving, delta, float64(cp)))
	// The terms are whole nanoseconds but for the knapsacks' fractions,
	// and a schedule's time is whole: float64's rounding over a few
	// thousand terms below 2^40 stays far below 0.01 ns.
	return int64(math.Ceil(best - 0.01))
}

// firstMove is the other half of flowshop's bound, which looks at the
// first op j that a schedule runs on the host and that saves a copy
// (saving[j]; moving the others saves nothing in fs). If there is none,
// every saving op k is on the accelerator and T >= fs[k], and a
// non-saving k is too or T >= cp + delta[k]. If it is j, T >= cp +
// delta[j], and for every k < j the same holds with the tail from k
// lengthened by j on the host (the critical path from k is monotone in
// the ops forced to a side, and no op before k saves). The bound is the
// least over the cases; for each j the three ks before it with the
// largest fs are tried.
func (s *search) firstMove(pos []int32, fs []float64, saving []bool, delta []float64, cp float64) float64 {
	g := s.g
	n := len(pos)
	at := func(k int, plus float64) float64 {
		if saving[k] {
			return fs[k] + plus
		}
		return min(fs[k]+plus, cp+delta[k])
	}
	lb := math.Inf(-1)
	for k := range n {
		lb = max(lb, at(k, 0))
	}
	onHost, onDev := make([]int64, len(g.refs)), make([]int64, len(g.refs))
	var top [3]int // the ks before j with the largest fs, -1: none
	top = [3]int{-1, -1, -1}
	for j := range n {
		if lb <= cp {
			break // no case can lift it
		}
		if saving[j] && cp+delta[j] < lb {
			v := cp + delta[j]
			op := g.steps[pos[j]].op
			for _, k := range top {
				if k < 0 || v >= lb {
					continue
				}
				tk := float64(g.tailDev[g.steps[pos[k]].op])
				tp := float64(g.tailFrom(pos[k], op, onHost, onDev)) - tk
				v = max(v, at(k, tp))
			}
			lb = min(lb, v)
		}
		// j joins the candidates for the ops after it.
		if !math.IsInf(fs[j], -1) {
			for i := range top {
				if top[i] < 0 || fs[j] > fs[top[i]] {
					copy(top[i+1:], top[i:len(top)-1])
					top[i] = j
					break
				}
			}
		}
	}
	return lb
}

// gap is a stretch over which a ref must stay on the accelerator or be
// copied in again: from op b (-1: now) to op a, indices among the
// remaining ops; in is its copy's time.
type gap struct {
	a, b  int32
	in    float64
	bytes int64
}

// knapsack is the most copy time that refs of total size at most c can
// keep: the fractional knapsack of gs, the best time per byte first.
func knapsack(gs []gap, c int64) float64 {
	sorted := slices.Clone(gs)
	slices.SortFunc(sorted, func(x, y gap) int {
		l, r := x.in*float64(y.bytes), y.in*float64(x.bytes)
		switch {
		case l > r:
			return -1
		case l < r:
			return 1
		}
		return 0
	})
	var v float64
	left := float64(c)
	for _, gp := range sorted {
		if float64(gp.bytes) <= left {
			v += gp.in
			left -= float64(gp.bytes)
			continue
		}
		return v + gp.in*left/float64(gp.bytes)
	}
	return v
}

// tails computes tailDev: for each op, the least time from its start on
// the accelerator to the end of any schedule (never when it cannot run
// there). It is the critical path of the ops after it, placed each where
// it ends first, with three facts only: an op starts after its operands
// are where it runs (a copy later when they are on the other side); an
// op on the accelerator starts after every earlier op ends (the compute
// engine runs them in order, and the host issues nothing while it runs
// an op); and the refs made before the op may be anywhere at any time
// before it (so an op on the host that does not depend on it may end
// before it starts, and counts for nothing).
func (g *program) tails() {
	g.tailDev = make([]int64, len(g.ops))
	onHost, onDev := make([]int64, len(g.refs)), make([]int64, len(g.refs))
	for q := range g.steps {
		if st := g.steps[q]; st.kind == stepOp {
			g.tailDev[st.op] = g.tailFrom(int32(q), -1, onHost, onDev)
		}
	}
}

// tailFrom is the tail of tails from the op at step q, with op hostOnly
// (-1: none) on the host; onHost and onDev are scratch, one per ref.
func (g *program) tailFrom(q, hostOnly int32, onHost, onDev []int64) int64 {
	const early = -never
	o := &g.ops[g.steps[q].op]
	if o.ws > g.capacity {
		return never
	}
	for r := range onHost {
		onHost[r], onDev[r] = early, early
	}
	end, serial := o.devNs, o.devNs
	onDev[o.out], onHost[o.out] = o.devNs, o.devNs+g.refs[o.out].outNs
	var recent ring
	recent.push(past{op: g.steps[q].op, he: never, de: o.devNs})
	for k := q + 1; int(k) < len(g.steps); k++ {
		step := g.steps[k]
		switch step.kind {
		case stepRead:
			end = max(end, onHost[step.ref])
		case stepOp:
			p := &g.ops[step.op]
			hs, ds := early, serial
			for _, in := range p.ins {
				hs, ds = max(hs, onHost[in]), max(ds, onDev[in])
				if g.refs[in].prod < q {
					ds = max(ds, g.conflict(&recent, in))
				}
			}
			he, de := hs+p.hostNs, never
			if p.ws <= g.capacity && step.op != hostOnly {
				de = ds + p.devNs
			}
			onHost[p.out] = min(he, de+g.refs[p.out].outNs)
			onDev[p.out] = min(de, he+g.refs[p.out].inNs)
			end = max(end, min(he, de))
			serial = max(serial, min(he, de))
			recent.push(past{op: step.op, he: he, de: de})
		}
	}
	return end
}

// pinDevice sets s.devOnly: the ops that run on the accelerator in every
// schedule from st faster than ub. An op is one when the critical path
// with it on the host (and the ops found so far on the accelerator)
// reaches ub: a schedule that runs it on the host takes at least that.
// Two rounds, the second seeing the first's.
func (s *search) pinDevice(st *state, ub int64) {
	g := s.g
	pin := make([]bool, len(g.ops))
	for range 2 {
		s.devOnly = slices.Clone(pin)
		for k := st.next; int(k) < len(g.steps); k++ {
			step := g.steps[k]
			if step.kind != stepOp || pin[step.op] || g.ops[step.op].ws > g.capacity {
				continue
			}
			s.hostOnly = step.op + 1
			if s.criticalPath(st) >= ub {
				pin[step.op] = true
			}
		}
		s.hostOnly = 0
	}
	s.devOnly = pin
}
