package optimal

import (
	"math"
	"slices"
)

// pq is an op's cost on the host (p) and on a device-side engine (q).
type pq struct{ p, q float64 }

// bound is a lower bound on the time of every schedule that goes on from
// st. Three facts hold whatever the schedule does from st on: every
// engine only moves forward (the time is at least st's); the host thread
// runs the host ops one after another from its clock, and the compute
// engine the accelerator's ops from the later of its own and the host's
// (it launches nothing before the host issues it); and the h2d engine
// copies in, once at least, each ref that the host holds and the
// accelerator does not, if any op reads it there. An op's choice of
// place is relaxed to a fraction, so that each of the two pairs (host
// against compute, host against h2d, with a ref's copy shared among its
// remaining readers) is a fractional two-machine balance, solved exactly
// by moving ops to the host in order of cost ratio.
func (s *search) bound(st *state) int64 {
	g, m := s.g, st.m
	h := m.Host()
	hostBase := float64(h)
	comp := float64(max(m.ComputeFree(), h))
	h2d := float64(max(m.H2DFree(), h))
	s.hostItems, s.copyItems = s.hostItems[:0], s.copyItems[:0]
	for k := st.next; int(k) < len(g.steps); k++ {
		if g.steps[k].kind != stepOp {
			continue
		}
		o := &g.ops[g.steps[k].op]
		if o.ws > g.capacity {
			hostBase += float64(o.hostNs)
			continue
		}
		var a float64
		for _, in := range o.ins {
			if st.buf[in] == nil && st.hostValid[in] {
				a += float64(g.refs[in].inNs) / float64(g.opUsesFrom(in, st.next))
			}
		}
		// An op that costs nothing on the device side stays there.
		if o.devNs > 0 {
			s.hostItems = append(s.hostItems, pq{float64(o.hostNs), float64(o.devNs)})
		}
		if a > 0 {
			s.copyItems = append(s.copyItems, pq{float64(o.hostNs), a})
		}
	}
	lb := max(balance(hostBase, comp, s.hostItems), balance(hostBase, h2d, s.copyItems))
	// Rounding in float64 must not lift the bound above the truth.
	return max(m.Now(), int64(math.Floor(lb*(1-1e-12)))-1, s.criticalPath(st))
}

// never is a time no schedule reaches.
const never int64 = math.MaxInt64 / 4

// criticalPath bounds the time by the data dependencies: an op starts
// once its operands are where it runs, on the host no earlier than the
// host's clock and on the accelerator no earlier than the compute
// engine's, and a ref is on the other side one copy later than on its
// own. Each op's earliest end on either side is computed in program
// order; the schedule ends after the earliest end of every op, and after
// every read's ref reaches the host.
//
// Program order adds two facts for an op on the accelerator. It starts
// after every earlier op ends: the compute engine runs its ops in order,
// and the host thread issues nothing while it runs an op itself. And an
// operand that must be copied in cannot be resident while an earlier op
// runs on the accelerator whose working set leaves no room for it (the
// memory timeline never exceeds the budget), so its copy starts after
// that op ends.
func (s *search) criticalPath(st *state) int64 {
	g, m := s.g, st.m
	if len(s.onHost) < len(g.refs) {
		s.onHost, s.onDev = make([]int64, len(g.refs)), make([]int64, len(g.refs))
	}
	h := m.Host()
	comp := max(m.ComputeFree(), h)
	// Refs that exist now.
	for r := range g.refs {
		s.onHost[r], s.onDev[r] = never, never
		if st.hostValid[r] {
			s.onHost[r] = st.hostReady[r]
		}
		if b := st.buf[r]; b != nil {
			s.onDev[r] = b.ReadyAt
		}
		s.onHost[r] = min(s.onHost[r], s.onDev[r]+g.refs[r].outNs)
		s.onDev[r] = min(s.onDev[r], max(s.onHost[r], h)+g.refs[r].inNs)
	}
	end, serial := m.Now(), comp
	var recent ring
	for k := st.next; int(k) < len(g.steps); k++ {
		step := g.steps[k]
		switch step.kind {
		case stepRead:
			end = max(end, s.onHost[step.ref])
		case stepOp:
			o := &g.ops[step.op]
			hs, ds := h, serial
			for _, in := range o.ins {
				hs, ds = max(hs, s.onHost[in]), max(ds, s.onDev[in])
				if st.buf[in] == nil && g.refs[in].prod < st.next {
					ds = max(ds, g.conflict(&recent, in))
				}
			}
			he, de := hs+o.hostNs, never
			if o.ws <= g.capacity && step.op+1 != s.hostOnly {
				de = ds + o.devNs
			}
			if s.devOnly != nil && s.devOnly[step.op] {
				he = never
			}
			r := o.out
			s.onHost[r] = min(he, de+g.refs[r].outNs)
			s.onDev[r] = min(de, he+g.refs[r].inNs)
			end = max(end, min(he, de))
			serial = max(serial, min(he, de))
			recent.push(past{op: step.op, he: he, de: de})
		}
	}
	return end
}

// past is an op whose earliest ends criticalPath computed.
type past struct {
	op     int32
	he, de int64
}

// ring holds the last recentOps pasts.
type ring struct {
	buf     [recentOps]past
	n, next int
}

func (r *ring) push(p past) {
	r.buf[r.next] = p
	r.next = (r.next + 1) % recentOps
	r.n = min(r.n+1, recentOps)
}

// at is the i'th latest (0: the latest).
func (r *ring) at(i int) past { return r.buf[(r.next-1-i+2*recentOps)%recentOps] }

// recentOps is how many earlier ops conflict looks back over.
const recentOps = 8

// conflict is the earliest time the copy of ref r can end given the
// latest of the recent ops that leaves no room for r on the accelerator
// (its working set and r exceed the budget, r not among its operands):
// after that op ends if it ran on the accelerator, and in any case not
// before it ends if it ran on the host (the host issues later work only
// after it). 0 when none conflicts.
func (g *program) conflict(recent *ring, r int32) int64 {
	for i := range recent.n {
		p := recent.at(i)
		o := &g.ops[p.op]
		if o.ws+g.refs[r].bytes <= g.capacity || slices.Contains(o.ins, r) {
			continue
		}
		return min(p.he, p.de+g.refs[r].inNs)
	}
	return 0
}

// balance is the least T with fractions x_i in [0, 1] such that
// a + sum x_i p_i <= T and b + sum (1-x_i) q_i <= T: the optimum of the
// linear relaxation of splitting the items between two machines that
// start at a and b. Every q_i must be positive. It reorders items.
func balance(a, b float64, items []pq) float64 {
	for _, it := range items {
		b += it.q
	}
	if a >= b {
		return a
	}
	// Moving item i to the first machine costs p_i there and saves q_i on
	// the second: cheapest ratio first.
	slices.SortFunc(items, func(x, y pq) int {
		l, r := x.p*y.q, y.p*x.q
		switch {
		case l < r:
			return -1
		case l > r:
			return 1
		}
		return 0
	})
	for _, it := range items {
		if a+it.p <= b-it.q {
			a, b = a+it.p, b-it.q
			continue
		}
		f := (b - a) / (it.p + it.q)
		return a + f*it.p
	}
	return max(a, b)
}
