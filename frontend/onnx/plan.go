package onnx

import (
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// A plan is a program lowered for one input signature (the inputs' dtypes
// and shapes), recorded the first time the program runs with it: the
// runtime calls its lowering made, in order, with the refs named by slot.
// What a lowering decides from (the inputs' metas, the attributes, the
// program's constants) is the same on every run with that signature, so
// later runs replay the calls instead of lowering each node again: the
// same ops with the same attributes and folded constants, submitted, held
// and freed in the same order, all under one refs.Runtime.Hold, so the
// placement engine and the traces see what lowering would have made.
//
// A run whose lowering reads computed data (a shape or a condition that
// depends on values) or makes lazy refs (a subgraph's initializers) is not
// recorded, and its signature keeps being lowered on every run.

// maxPlans bounds the signatures a program keeps plans for; the oldest
// goes first.
const maxPlans = 8

type stepKind uint8

const (
	stepSubmit   stepKind = iota // slot = Submit(op, attrs, ins...) of meta
	stepFromHost                 // slot = FromHost(a copy of host)
	stepRetain                   // Retain(slot)
	stepRelease                  // Release(slot)
)

// step is one runtime call of a plan.
type step struct {
	kind  stepKind
	slot  int32
	op    ops.Op
	attrs any
	ins   []int32
	meta  tensor.Meta
	host  *tensor.Dense
}

// fixedRef is a ref that lives across runs (a program constant's, a
// cached small constant's) and a plan uses in slot.
type fixedRef struct {
	slot int32
	ref  *refs.Ref
}

// plan is the recorded lowering of one signature. Slots 0..len(sig)-1 are
// the inputs.
type plan struct {
	rt  *refs.Runtime
	sig []tensor.Meta
	// dynamic marks a signature whose run could not be recorded.
	dynamic bool
	steps   []step
	nslots  int
	maxArgs int
	fixed   []fixedRef
	outs    []int32
	// scratch is kept between replays (busy while one is in use).
	scratch scratch
	busy    bool
}

// matches reports whether inputs have the plan's signature on rt.
func (pl *plan) matches(rt *refs.Runtime, inputs []*refs.Ref) bool {
	if pl.rt != rt {
		return false
	}
	for i, in := range inputs {
		m := in.Meta()
		if m.DType != pl.sig[i].DType || !m.Shape.Equal(pl.sig[i].Shape) {
			return false
		}
	}
	return true
}

// planFor is the program's plan for inputs on rt, or nil.
func (p *Program) planFor(rt *refs.Runtime, inputs []*refs.Ref) *plan {
	for _, pl := range p.plans {
		if pl.matches(rt, inputs) {
			return pl
		}
	}
	return nil
}

// keepPlan adds pl, dropping the oldest plan when there are maxPlans.
func (p *Program) keepPlan(pl *plan) {
	if len(p.plans) == maxPlans {
		copy(p.plans, p.plans[1:])
		p.plans = p.plans[:maxPlans-1]
	}
	p.plans = append(p.plans, pl)
}

// recording builds a plan from the runtime calls of one run (runner).
type recording struct {
	plan *plan
	slot map[*refs.Ref]int32
	// dynamic is set when the run does something a plan cannot replay.
	dynamic bool
}

// record starts recording a run of p over inputs, or returns nil when
// this call cannot be recorded (an input given twice, or a ref of the
// program's own: slots must name one ref each).
func (p *Program) record(rt *refs.Runtime, inputs []*refs.Ref) *recording {
	rec := &recording{plan: &plan{rt: rt, sig: make([]tensor.Meta, len(inputs))}, slot: map[*refs.Ref]int32{}}
	for i, in := range inputs {
		if _, dup := rec.slot[in]; dup || p.holds(in) {
			return nil
		}
		m := in.Meta()
		rec.plan.sig[i] = tensor.Meta{Shape: m.Shape.Clone(), DType: m.DType}
		rec.slot[in] = int32(i)
	}
	rec.plan.nslots = len(inputs)
	return rec
}

// holds reports whether r is one of the refs the program keeps across
// runs (its constants' and its cached small constants').
func (p *Program) holds(r *refs.Ref) bool {
	for _, v := range p.consts {
		if v.ref == r {
			return true
		}
	}
	for _, s := range p.small.refs {
		if s == r {
			return true
		}
	}
	return false
}

// newSlot gives r a new slot.
func (rec *recording) newSlot(r *refs.Ref) int32 {
	s := int32(rec.plan.nslots)
	rec.plan.nslots++
	rec.slot[r] = s
	return s
}

// slotOf is r's slot; a ref the run did not make or take as an input is
// a fixed one, checked when the recording is finished.
func (rec *recording) slotOf(r *refs.Ref) int32 {
	if s, ok := rec.slot[r]; ok {
		return s
	}
	s := rec.newSlot(r)
	rec.plan.fixed = append(rec.plan.fixed, fixedRef{slot: s, ref: r})
	return s
}

func (rec *recording) submit(op ops.Op, attrs any, ins []*refs.Ref, out *refs.Ref) {
	st := step{kind: stepSubmit, op: op, attrs: attrs, ins: make([]int32, len(ins)), meta: out.Meta()}
	for i, in := range ins {
		st.ins[i] = rec.slotOf(in)
	}
	st.slot = rec.newSlot(out)
	rec.plan.maxArgs = max(rec.plan.maxArgs, len(ins))
	rec.plan.steps = append(rec.plan.steps, st)
}

func (rec *recording) fromHost(d *tensor.Dense, r *refs.Ref) {
	rec.plan.steps = append(rec.plan.steps, step{kind: stepFromHost, host: d, slot: rec.newSlot(r)})
}

func (rec *recording) refStep(kind stepKind, r *refs.Ref) {
	rec.plan.steps = append(rec.plan.steps, step{kind: kind, slot: rec.slotOf(r)})
}

// finish ends a successful run's recording, whose results were res, and
// keeps its plan (or, when the run could not be recorded, the mark that
// its signature is lowered on every run).
func (p *Program) finish(rec *recording, res []*refs.Ref) {
	pl := rec.plan
	for _, f := range pl.fixed {
		if !p.holds(f.ref) {
			rec.dynamic = true
		}
	}
	for _, r := range res {
		s, ok := rec.slot[r]
		if !ok {
			rec.dynamic = true
		}
		pl.outs = append(pl.outs, s)
	}
	if rec.dynamic {
		*pl = plan{rt: pl.rt, sig: pl.sig, dynamic: true}
	}
	p.keepPlan(pl)
}

// replay runs the plan over inputs at site. On a failure (a Submit
// refused: a failed input, host memory short) it gives back every ref it
// made or held and reports false; the caller lowers the graph instead,
// which fails the same way with the node named.
func (pl *plan) replay(rt *refs.Runtime, site refs.Site, inputs []*refs.Ref) ([]*refs.Ref, bool) {
	var s scratch
	if pl.busy {
		s = pl.newScratch()
	} else {
		if pl.scratch.slots == nil {
			pl.scratch = pl.newScratch()
		}
		s = pl.scratch
		pl.busy = true
		defer func() { pl.busy = false }()
	}
	defer s.clear()
	slots, held := s.slots, s.held
	copy(slots, inputs)
	for _, f := range pl.fixed {
		slots[f.slot] = f.ref
	}
	defer rt.Hold()()
	for i := range pl.steps {
		st := &pl.steps[i]
		switch st.kind {
		case stepSubmit:
			args := s.args[:0]
			for _, k := range st.ins {
				args = append(args, slots[k])
			}
			r, err := rt.SubmitInferred(site, st.op, st.attrs, st.meta, args...)
			if err != nil {
				for k, n := range held {
					for ; n > 0; n-- {
						rt.Release(slots[k])
					}
				}
				return nil, false
			}
			slots[st.slot] = r
			held[st.slot]++
		case stepFromHost:
			slots[st.slot] = rt.FromHost(site, st.host.Clone())
			held[st.slot]++
		case stepRetain:
			rt.Retain(slots[st.slot])
			held[st.slot]++
		case stepRelease:
			rt.Release(slots[st.slot])
			held[st.slot]--
		}
	}
	res := make([]*refs.Ref, len(pl.outs))
	for i, k := range pl.outs {
		res[i] = slots[k]
	}
	return res, true
}

// scratch is a replay's ref slots, the references it holds on each, and
// the argument list of its Submits.
type scratch struct {
	slots []*refs.Ref
	held  []int32
	args  []*refs.Ref
}

func (pl *plan) newScratch() scratch {
	return scratch{slots: make([]*refs.Ref, pl.nslots), held: make([]int32, pl.nslots), args: make([]*refs.Ref, 0, pl.maxArgs)}
}

// clear forgets the refs of a finished replay.
func (s scratch) clear() {
	clear(s.slots)
	clear(s.held)
	clear(s.args[:cap(s.args)])
}
