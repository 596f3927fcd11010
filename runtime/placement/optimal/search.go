package optimal

import (
	"fmt"
	"math"
	"slices"
)

// Result is what the search found.
type Result struct {
	// Ops counts the trace's ops.
	Ops int
	// OptNs is the time of the best schedule found (Found); LowerNs is a
	// proven lower bound on every schedule's time, equal to OptNs when
	// Solved.
	OptNs, LowerNs int64
	Found, Solved  bool
	// Best counts what the best schedule does, and HostOps lists the ops
	// it runs on the host (their indices among the trace's op steps, in
	// order; the others run on the accelerator).
	Best    Tally
	HostOps []int
	// TooBig says the trace has more ops than MaxOps: the search made
	// one greedy schedule instead of searching.
	TooBig bool
	// Nodes counts the states the search tried; MaxNodes and MaxOps are
	// its limits.
	Nodes, MaxNodes, MaxOps int
}

// Status says in words how far the search got.
func (r *Result) Status() string {
	switch {
	case r.Solved:
		return fmt.Sprintf("optimal (%d nodes)", r.Nodes)
	case r.TooBig:
		return fmt.Sprintf("trace too big for the exact search: %d ops, the limit is %d; best is one greedy schedule", r.Ops, r.MaxOps)
	case !r.Found:
		return fmt.Sprintf("no schedule found within %d nodes", r.MaxNodes)
	}
	return fmt.Sprintf("not proven optimal: the search stopped at its limit of %d nodes", r.MaxNodes)
}

// Solve searches p's schedules for the shortest.
func Solve(p Problem, opts Options) (*Result, error) {
	opts = opts.withDefaults()
	g, err := compile(p)
	if err != nil {
		return nil, err
	}
	root, err := newState(g)
	if err != nil {
		return nil, err
	}
	s := &search{g: g, opt: opts, best: math.MaxInt64, pending: math.MaxInt64}
	res := &Result{Ops: len(g.ops), MaxNodes: opts.MaxNodes, MaxOps: opts.MaxOps}
	if err := root.finishStep(); err != nil {
		return nil, err
	}
	rootLB := s.bound(root)
	// Greedy schedules first, one per policy, for an incumbent that
	// prunes; then the search (too big a trace keeps the greedy best).
	res.TooBig = len(g.ops) > opts.MaxOps
	s.greedy = true
	bestPol := polMyopic
	for _, pol := range []policy{polMyopic, polHost, polDevice, polDeviceLazy, polMyopicClean, polDeviceLazyClean, polLRU, polBelady, polBeladyMyopic, polBeladyFree, polBeladyBig} {
		before := s.best
		s.pol, s.found = pol, false
		s.run(root.clone())
		if s.best < before {
			bestPol = pol
		}
	}
	s.greedy, s.pol = false, bestPol
	if s.err == nil && s.best < math.MaxInt64 && !opts.exhaustive && len(g.ops) <= flowshopMaxOps {
		// The ops that a faster schedule must run on the accelerator,
		// and the flow-shop bound that they sharpen: it holds for every
		// schedule faster than the incumbent, so the optimum is at
		// least the smaller of the two. Both cost a critical path per
		// op: not for a trace of more than flowshopMaxOps.
		s.pinDevice(root, s.best)
		rootLB = max(rootLB, min(s.best, s.flowshop(root)))
	}
	solvedAtRoot := rootLB >= s.best
	if !res.TooBig && s.err == nil && !solvedAtRoot {
		// Every schedule one decision away from the best greedy one (a
		// limited discrepancy search, which reaches the early decisions
		// that depth-first search revisits last), on half the nodes; then
		// the exhaustive search, whose bound alone is reported.
		s.lds, s.ldsLimit = true, s.nodes+opts.MaxNodes/2
		c := root.clone()
		c.disc = 1
		s.run(c)
		s.lds, s.pending = false, math.MaxInt64
		s.run(root)
	}
	if s.err != nil {
		return nil, s.err
	}
	res.Nodes = s.nodes
	res.Found = s.best < math.MaxInt64
	if res.Found {
		res.OptNs, res.Best, res.HostOps = s.best, s.bestTally, s.bestHost.ascending()
	}
	switch {
	case res.TooBig:
		res.LowerNs = rootLB
	case solvedAtRoot:
		res.Solved = true
		res.LowerNs = s.best
	case !s.stopped:
		res.Solved = true
		res.LowerNs = s.best
	default:
		res.LowerNs = max(rootLB, min(s.best, s.pending))
	}
	return res, nil
}

// search is a depth-first branch and bound over the decisions of each op
// step, in program order.
type search struct {
	g   *program
	opt Options
	// best is the shortest schedule's time so far (MaxInt64: none),
	// bestTally what it did and bestHost the ops it ran on the host.
	best      int64
	bestTally Tally
	bestHost  *opList
	// nodes counts the states tried; stopped is set when it reached the
	// limit, and pending is then the least lower bound of the
	// alternatives left unexplored.
	nodes   int
	stopped bool
	pending int64
	// greedy stops at the first complete schedule, and pol orders the
	// alternatives.
	greedy bool
	pol    policy
	// lds limits the search to the alternatives after the first that
	// each path's discrepancies allow (state.disc), until ldsLimit nodes.
	lds      bool
	ldsLimit int
	err      error
	// found is set once the current run completed a schedule.
	found bool
	// scratch for bound.
	hostItems, copyItems []pq
	onHost, onDev        []int64
	// hostOnly is one more than an op that criticalPath puts on the
	// host (0: none);
	// devOnly marks the ops that every schedule faster than the
	// incumbent runs on the accelerator (pinDevice), nil before.
	hostOnly int32
	devOnly  []bool
}

func (s *search) fail(err error) {
	if s.err == nil {
		s.err = err
	}
}

// halt reports that the search must stop: at its node limit, but not
// before it found a schedule.
func (s *search) halt() bool {
	if s.lds {
		return s.err != nil || s.nodes >= s.ldsLimit
	}
	if s.nodes >= s.opt.MaxNodes && s.best < math.MaxInt64 {
		s.stopped = true
	}
	return s.stopped || s.err != nil || s.greedy && s.found
}

// alts tries n alternatives from st, each on its own copy (the last on
// st itself: the caller must not use st afterwards). When the search
// halts, the alternatives left count with st's bound.
func (s *search) alts(st *state, n int, try func(k int, c *state)) {
	if s.lds {
		s.discrepancies(st, n, try)
		return
	}
	for k := range n {
		if s.halt() {
			s.pending = min(s.pending, st.lb)
			return
		}
		c := st
		if k < n-1 {
			c = st.clone()
		}
		s.nodes++
		try(k, c)
	}
}

// discrepancies is alts in a limited discrepancy search: with a
// discrepancy left, the other alternatives come first (each completed
// greedily), so that the decisions nearest the start are revisited
// first, and the first alternative last, keeping the discrepancy for
// later decisions.
func (s *search) discrepancies(st *state, n int, try func(k int, c *state)) {
	if st.disc > 0 {
		for k := 1; k < n; k++ {
			if s.halt() {
				return
			}
			c := st.clone()
			c.disc--
			s.nodes++
			try(k, c)
		}
	}
	if !s.halt() {
		s.nodes++
		try(0, st)
	}
}

// run schedules the steps from st.next on.
func (s *search) run(st *state) {
	if err := st.finishStep(); err != nil {
		s.fail(err)
		return
	}
	if int(st.next) == len(s.g.steps) {
		if t := st.m.Now(); t < s.best {
			s.best, s.bestTally, s.bestHost = t, st.tally, st.onHost
		}
		s.found = true
		return
	}
	st.lb = s.bound(st)
	if !s.opt.exhaustive && !s.greedy && st.lb >= s.best {
		return
	}
	o := &s.g.ops[s.g.steps[st.next].op]
	places := s.placements(st, o)
	s.alts(st, len(places), func(k int, c *state) {
		for _, in := range o.ins {
			c.pinned[in] = true
		}
		if places[k] {
			s.operands(c, o, 0)
		} else {
			s.prefetch(c, o, false)
		}
	})
}

// policy orders the alternatives of a step.
type policy uint8

const (
	// polMyopic tries first the place where the op and the copies of its
	// operands cost least, and prefetches all it can first.
	polMyopic policy = iota
	// polHost tries the host first and no prefetch first, polDevice the
	// accelerator first.
	polHost
	polDevice
	// polDeviceLazy tries the accelerator first and no prefetch first.
	polDeviceLazy
	// polMyopicClean and polDeviceLazyClean are polMyopic and
	// polDeviceLazy evicting clean refs (no write-back) before dirty ones.
	polMyopicClean
	polDeviceLazyClean
	// polLRU is the lru strategy: the accelerator first, no prefetch
	// first, the least recently used ref evicted first.
	polLRU
	// polBelady and polBeladyMyopic (the place as polMyopic chooses)
	// evict by Belady's rule and prefetch the refs of the next
	// beladyWindow ops in order of use, each as early as Belady's rule
	// keeps it until its use (beladyKeeps): a copy that the ops before
	// its use would evict again is not issued, and the refs used after
	// it wait for it.
	polBelady
	polBeladyMyopic
	// polBeladyFree is polBelady making room for a prefetch only from
	// refs that no later step uses: it never evicts a ref that Belady's
	// demand paging would keep.
	polBeladyFree
	// polBeladyBig is polBelady evicting a large ref (a quarter of the
	// capacity or more) that a later step uses only when nothing else
	// makes room: keeping it resident between far uses can cost less
	// than copying it again.
	polBeladyBig
)

// beladyWindow is how many ops ahead the Belady policies prefetch.
const beladyWindow = 64

// placements lists where op may run, in the policy's order: on the
// accelerator when its working set fits, and on the host.
func (s *search) placements(st *state, o *opInfo) []bool {
	if o.ws > s.g.capacity {
		return []bool{false}
	}
	if s.devOnly != nil && s.devOnly[s.g.steps[st.next].op] && !s.greedy {
		return []bool{true}
	}
	switch s.pol {
	case polHost:
		return []bool{false, true}
	case polDevice, polDeviceLazy, polDeviceLazyClean, polLRU, polBelady, polBeladyFree, polBeladyBig:
		return []bool{true, false}
	}
	dev, host := o.devNs, o.hostNs
	for _, in := range o.ins {
		if st.buf[in] == nil {
			dev += s.g.refs[in].inNs
		}
		if !st.hostValid[in] {
			host += s.g.refs[in].outNs
		}
	}
	if host < dev {
		return []bool{false, true}
	}
	return []bool{true, false}
}

// operands brings op's missing operands from the j'th on.
func (s *search) operands(c *state, o *opInfo, j int) {
	for j < len(o.ins) && c.buf[o.ins[j]] != nil {
		j++
	}
	if j == len(o.ins) {
		s.prefetch(c, o, true)
		return
	}
	r := o.ins[j]
	s.room(c, s.g.refs[r].bytes, -1, func(c *state) {
		if err := c.copyIn(r); err != nil {
			s.fail(err)
			return
		}
		s.operands(c, o, j+1)
	})
}

// prefetch decides the copies issued at this step for later ops: a
// prefix of the refs that the next Window ops read, in order of next
// use, each evicting only refs used later than it.
func (s *search) prefetch(c *state, o *opInfo, dev bool) {
	var cands []int32
	seen := map[int32]bool{}
	ops, window := 0, s.opt.Window
	if s.belady() {
		window = max(window, beladyWindow)
	}
	for k := c.next + 1; int(k) < len(s.g.steps) && ops < window; k++ {
		st := s.g.steps[k]
		if st.kind != stepOp {
			continue
		}
		ops++
		for _, in := range s.g.ops[st.op].ins {
			if c.buf[in] == nil && c.hostValid[in] && !seen[in] && s.g.refs[in].bytes <= s.g.capacity {
				seen[in] = true
				cands = append(cands, in)
			}
		}
	}
	s.prefetchFrom(c, o, dev, cands, 0)
}

func (s *search) prefetchFrom(c *state, o *opInfo, dev bool, cands []int32, k int) {
	if k == len(cands) {
		s.issue(c, o, dev)
		return
	}
	r := cands[k]
	if s.belady() && !s.beladyKeeps(c, r) {
		s.issue(c, o, dev) // the later refs wait for r
		return
	}
	skip := 1
	if s.pol == polDeviceLazy || s.pol == polHost || s.pol == polDeviceLazyClean || s.pol == polLRU {
		skip = 0
	}
	s.alts(c, 2, func(a int, c *state) {
		if a == skip {
			s.issue(c, o, dev)
			return
		}
		after := s.g.nextUse(r, c.next)
		if s.pol == polBeladyFree && s.belady() {
			after = math.MaxInt32 - 1 // only refs used no more
		}
		s.room(c, s.g.refs[r].bytes, after, func(c *state) {
			if err := c.copyIn(r); err != nil {
				s.fail(err)
				return
			}
			c.tally.Prefetches++
			s.prefetchFrom(c, o, dev, cands, k+1)
		})
	})
}

// issue runs op where decided and goes on to the next step.
func (s *search) issue(c *state, o *opInfo, dev bool) {
	done := func(c *state) {
		for _, in := range o.ins {
			c.pinned[in] = false
		}
		c.next++
		s.run(c)
	}
	if !dev {
		if err := c.runHost(o); err != nil {
			s.fail(err)
			return
		}
		done(c)
		return
	}
	if o.inplace >= 0 {
		if err := c.launch(o); err != nil {
			s.fail(err)
			return
		}
		done(c)
		return
	}
	s.room(c, s.g.refs[o.out].bytes, -1, func(c *state) {
		if err := c.launch(o); err != nil {
			s.fail(err)
			return
		}
		done(c)
	})
}

// room evicts sets of refs so that need more bytes fit, trying each set
// (in the order of victims, which puts Belady's choice first) and going
// on with cont. A ref used at or before step after (when >= 0) is not
// evicted for it.
func (s *search) room(c *state, need int64, after int32, cont func(*state)) {
	if c.m.Used()+need <= s.g.capacity {
		cont(c)
		return
	}
	s.roomFrom(c, need, s.victims(c, after), 0, cont)
}

func (s *search) roomFrom(c *state, need int64, cands []int32, from int, cont func(*state)) {
	if c.m.Used()+need <= s.g.capacity {
		cont(c)
		return
	}
	var free int64
	for _, v := range cands[from:] {
		free += s.g.refs[v].bytes
	}
	if c.m.Used()+need-free > s.g.capacity {
		return // no set of the rest makes room
	}
	s.alts(c, len(cands)-from, func(k int, c *state) {
		c.evict(cands[from+k])
		s.roomFrom(c, need, cands, from+k+1, cont)
	})
}

// victims lists the resident refs that may be evicted for a use at step
// after: not pinned, and used next after it (or never); the furthest
// next use first, then clean before dirty, then larger first (the clean
// policies put every clean ref first).
func (s *search) victims(c *state, after int32) []int32 {
	type cand struct {
		r     int32
		next  int32
		clean bool
	}
	var cs []cand
	for r, b := range c.buf {
		if b == nil || c.pinned[r] {
			continue
		}
		nx := s.g.nextUse(int32(r), c.next)
		if nx < 0 {
			nx = math.MaxInt32
		}
		if after >= 0 && nx <= after {
			continue
		}
		cs = append(cs, cand{int32(r), nx, c.hostValid[r]})
	}
	cleanFirst := s.pol == polMyopicClean || s.pol == polDeviceLazyClean
	lru := s.pol == polLRU
	slices.SortFunc(cs, func(a, b cand) int {
		switch {
		case s.pol == polBeladyBig && s.keptBig(a.r, a.next) != s.keptBig(b.r, b.next):
			if s.keptBig(b.r, b.next) {
				return -1
			}
			return 1
		case lru && c.touched[a.r] != c.touched[b.r]:
			return int(c.touched[a.r] - c.touched[b.r])
		case cleanFirst && a.clean != b.clean:
			if a.clean {
				return -1
			}
			return 1
		case a.next != b.next:
			return int(b.next - a.next)
		case a.clean != b.clean:
			if a.clean {
				return -1
			}
			return 1
		case s.g.refs[a.r].bytes != s.g.refs[b.r].bytes:
			if s.g.refs[a.r].bytes > s.g.refs[b.r].bytes {
				return -1
			}
			return 1
		}
		return int(a.r - b.r)
	})
	out := make([]int32, len(cs))
	for i, x := range cs {
		out[i] = x.r
	}
	return out
}

// belady says the Belady policies' prefetch rule applies: in the greedy
// schedules and the discrepancy search, never in the exhaustive search
// (whose decision space it would narrow).
func (s *search) belady() bool {
	return (s.pol == polBelady || s.pol == polBeladyMyopic || s.pol == polBeladyFree || s.pol == polBeladyBig) && (s.greedy || s.lds)
}

// beladyKeeps says whether r, copied in now, stays resident until its
// next use when every op until then runs on the accelerator (when it
// fits) and room is made by evicting the ref used furthest ahead
// (Belady's rule): room must be found now among the refs used after r,
// and r must never be the one evicted.
func (s *search) beladyKeeps(c *state, r int32) bool {
	g := s.g
	u := g.nextUse(r, c.next)
	if u < 0 {
		return false
	}
	res := map[int32]bool{r: true}
	used := g.refs[r].bytes
	for x, b := range c.buf {
		if b != nil {
			res[int32(x)] = true
			used += g.refs[x].bytes
		}
	}
	// evict makes room for need bytes at step t, keeping keep; false
	// when it would evict r or cannot.
	evict := func(t int32, need int64, keep []int32) bool {
		for used+need > g.capacity {
			victim, far := int32(-1), int32(-1)
			for x := range res {
				if slices.Contains(keep, x) {
					continue
				}
				nx := g.nextUse(x, t)
				if nx < 0 {
					nx = math.MaxInt32
				}
				if s.pol == polBeladyBig && s.keptBig(x, nx) {
					nx = -1 // evicted last
				}
				if victim < 0 || nx > far || nx == far && x < victim {
					victim, far = x, nx
				}
			}
			if victim < 0 || victim == r {
				return false
			}
			delete(res, victim)
			used -= g.refs[victim].bytes
		}
		return true
	}
	if !evict(c.next, 0, nil) {
		return false
	}
	for t := c.next; t < u; t++ {
		st := g.steps[t]
		switch st.kind {
		case stepDeath:
			if res[st.ref] {
				delete(res, st.ref)
				used -= g.refs[st.ref].bytes
			}
		case stepOp:
			o := &g.ops[st.op]
			if o.ws > g.capacity {
				continue
			}
			keep := append(slices.Clone(o.ins), o.out)
			for _, in := range o.ins {
				if !res[in] {
					if !evict(t, g.refs[in].bytes, keep) {
						return false
					}
					res[in] = true
					used += g.refs[in].bytes
				}
			}
			if !evict(t, g.refs[o.out].bytes, keep) {
				return false
			}
			res[o.out] = true
			used += g.refs[o.out].bytes
		}
	}
	return true
}

// keptBig says polBeladyBig evicts r, used next at step next
// (MaxInt32: never), last.
func (s *search) keptBig(r, next int32) bool {
	return next != math.MaxInt32 && s.g.refs[r].bytes*4 >= s.g.capacity
}
