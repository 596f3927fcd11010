package optimal

import (
	"fmt"
	"slices"

	"github.com/tref-lang/tref/runtime/device"
)

// state is a point of a schedule: the steps before next are done, and the
// model holds the engines' and memory's times. The primitive actions
// below make the same device.Model calls, in the same order, as the
// placement engine's (runtime/placement: copyIn, copyOut, evict, launch,
// runOnHost, ToHost, Drop), so that a schedule's time is what the
// simulated device would show.
type state struct {
	g    *program
	m    *device.Model
	next int32
	// buf is each ref's accelerator copy, nil when it has none; hostValid
	// says the host holds a valid copy, ready at hostReady.
	buf       []*device.Buffer
	hostValid []bool
	hostReady []int64
	// pinned marks the operands of the op being placed.
	pinned []bool
	// copied marks the refs copied in before: a copy in again is a
	// refetch (device.Model.CopyIn).
	copied []bool
	// touched is when each resident ref was last used or brought, in
	// actions (for the lru policy's order).
	touched []int32
	clock   int32
	// lb is the lower bound of the last op step begun (see bound).
	lb int64
	// tally counts what the schedule did so far, and onHost lists the
	// ops it ran on the host, the latest first.
	tally  Tally
	onHost *opList
	// disc is how many more alternatives other than the first this path
	// may take in a limited discrepancy search.
	disc int
}

// Tally counts a schedule's decisions.
type Tally struct {
	// HostOps counts the ops run on the host, Prefetches the copies
	// issued ahead of their op's step, Evictions the evicted copies.
	HostOps, Prefetches, Evictions int
	// H2D and D2H are the bytes copied each way.
	H2D, D2H int64
}

func newState(g *program) (*state, error) {
	m, err := device.NewModel(g.capacity, g.cost)
	if err != nil {
		return nil, err
	}
	s := &state{g: g, m: m, buf: make([]*device.Buffer, len(g.refs)),
		hostValid: make([]bool, len(g.refs)), hostReady: make([]int64, len(g.refs)),
		pinned: make([]bool, len(g.refs)), copied: make([]bool, len(g.refs)), touched: make([]int32, len(g.refs))}
	for i, r := range g.refs {
		s.hostValid[i] = r.leaf
	}
	return s, nil
}

// clone is an independent copy of s.
func (s *state) clone() *state {
	c := &state{g: s.g, m: s.m.Clone(), next: s.next, lb: s.lb,
		buf:       make([]*device.Buffer, len(s.buf)),
		hostValid: append([]bool(nil), s.hostValid...),
		hostReady: append([]int64(nil), s.hostReady...),
		pinned:    append([]bool(nil), s.pinned...),
		copied:    append([]bool(nil), s.copied...),
		touched:   append([]int32(nil), s.touched...),
		clock:     s.clock,
		tally:     s.tally,
		onHost:    s.onHost,
		disc:      s.disc,
	}
	for i, b := range s.buf {
		if b != nil {
			nb := *b
			c.buf[i] = &nb
		}
	}
	return c
}

// touch marks r as used now.
func (s *state) touch(r int32) {
	s.clock++
	s.touched[r] = s.clock
}

// copyIn brings r's host copy to the accelerator (engine.copyIn with no
// notBefore: a prefetch, or an operand fetched when its op is issued).
// The room must be made.
func (s *state) copyIn(r int32) error {
	ready := s.hostReady[r]
	b, err := s.m.Alloc(s.g.refs[r].bytes, max(s.m.H2DFree(), ready))
	if err != nil {
		return err
	}
	s.m.CopyIn(b, ready, s.copied[r])
	s.copied[r] = true
	s.tally.H2D += s.g.refs[r].bytes
	s.buf[r] = b
	s.touch(r)
	return nil
}

// copyOut makes r's host copy valid from its accelerator copy.
func (s *state) copyOut(r int32) {
	span := s.m.CopyOut(s.buf[r])
	s.tally.D2H += s.g.refs[r].bytes
	s.hostReady[r] = span.End
	s.hostValid[r] = true
}

// release frees r's accelerator copy.
func (s *state) release(r int32) {
	s.m.Free(s.buf[r])
	s.buf[r] = nil
}

// evict drops r's accelerator copy, writing it back first when the host
// has no valid copy and a later step reads it.
func (s *state) evict(r int32) {
	if !s.hostValid[r] && s.g.nextUse(r, s.next) >= 0 {
		s.copyOut(r)
	}
	s.release(r)
	s.tally.Evictions++
}

// toHost is the host reading r (engine.ToHost): a copy back when the host
// has none, which the host thread waits for.
func (s *state) toHost(r int32) error {
	if s.hostValid[r] {
		return nil
	}
	if s.buf[r] == nil {
		return fmt.Errorf("optimal: ref#%d has no copy at step %d", s.g.refs[r].id, s.next)
	}
	s.copyOut(r)
	s.m.WaitHost(s.hostReady[r])
	return nil
}

// runHost runs op on the host thread (engine.runOnHost): operands held
// only by the accelerator come back first.
func (s *state) runHost(o *opInfo) error {
	ready := int64(0)
	for _, in := range o.ins {
		if err := s.toHost(in); err != nil {
			return err
		}
		ready = max(ready, s.hostReady[in])
	}
	span := s.m.HostOp(o.flops, o.bytes, ready)
	s.tally.HostOps++
	s.onHost = &opList{op: s.g.steps[s.next].op, prev: s.onHost}
	s.hostValid[o.out] = true
	s.hostReady[o.out] = span.End
	return nil
}

// launch runs op on the accelerator (engine.launch): its operands are
// resident, and the room for its result is made unless it takes over its
// dying operand's buffer.
func (s *state) launch(o *opInfo) error {
	ready := s.m.ComputeFree()
	for _, in := range o.ins {
		ready = max(ready, s.buf[in].ReadyAt)
	}
	var bufs [4]*device.Buffer
	ins := bufs[:0]
	if o.inplace >= 0 {
		donor := o.ins[o.inplace]
		s.buf[o.out], s.buf[donor] = s.buf[donor], nil
	} else {
		b, err := s.m.Alloc(s.g.refs[o.out].bytes, ready)
		if err != nil {
			return err
		}
		s.buf[o.out] = b
	}
	for _, in := range o.ins {
		b := s.buf[in]
		if b == nil {
			b = s.buf[o.out] // the in-place donor
		} else {
			s.touch(in)
		}
		ins = append(ins, b)
	}
	s.touch(o.out)
	s.m.RunBytes(s.buf[o.out], ins, o.flops, o.bytes)
	s.hostValid[o.out] = false
	return nil
}

// finishStep applies the steps after an op that need no decision (host
// reads and deaths) and stops at the next op.
func (s *state) finishStep() error {
	for int(s.next) < len(s.g.steps) {
		st := s.g.steps[s.next]
		switch st.kind {
		case stepOp:
			return nil
		case stepRead:
			if err := s.toHost(st.ref); err != nil {
				return err
			}
		case stepDeath:
			if s.buf[st.ref] != nil {
				s.release(st.ref)
			}
			s.hostValid[st.ref] = false
		}
		s.next++
	}
	return nil
}

// opList is a list of ops shared by the states that a schedule's prefix
// leads to: each adds to its front.
type opList struct {
	op   int32
	prev *opList
}

// ascending is the list's ops in ascending order.
func (l *opList) ascending() []int {
	var ops []int
	for ; l != nil; l = l.prev {
		ops = append(ops, int(l.op))
	}
	slices.Reverse(ops)
	return ops
}
