// Package autograd is tref's reverse-mode differentiation: a Tape records
// the ops submitted to a refs.Runtime while a function runs (so control
// flow that depends on values is simply what ran), and Backward walks the
// record in reverse, submitting each op's gradient rule (Def.Grad) as
// ordinary ops: the backward pass is planned, placed, traced and freed
// like the forward one.
//
// Tapes nest. Every active tape records the ops that read a ref it tracks
// (a leaf, or a result of an op it recorded); a tape is stopped before its
// backward pass runs, so the ops of that pass are recorded by the tapes
// around it, which is how grad of grad works.
package autograd

import (
	"fmt"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Tape records the differentiable ops that depend on its leaves.
type Tape struct {
	rt      *refs.Runtime
	stack   *stack
	tracked map[*refs.Ref]struct{}
	entries []entry
	stopped bool
}

// entry is one recorded op. ins identify the inputs (not retained: a ref
// is never reused, so its pointer stays its identity); saved holds the
// references the rule needs, released when the entry is consumed.
type entry struct {
	op     ops.Op
	rule   *ops.Grad
	attrs  any
	site   refs.Site
	ins    []*refs.Ref
	inMeta []tensor.Meta
	need   []bool
	saved  []ops.T
	out    *refs.Ref
	outM   tensor.Meta
	outRef *refs.Ref // the result, retained when the rule saves it
	// custom replaces the rule for a Custom entry; done runs once when
	// the entry is consumed or discarded.
	custom CustomVJP
	done   func()
}

// CustomVJP computes owned cotangents, one per input (nil for none), from
// the output's cotangent g (borrowed).
type CustomVJP func(g *refs.Ref) ([]*refs.Ref, error)

// Custom records, on every active tape that tracks one of ins, a step
// whose cotangents vjp computes (checkpoint recomputes a function there).
// out must be a float tensor that no tape recorded. done runs once, when
// no tape needs the entry any more.
func Custom(rt *refs.Runtime, site refs.Site, ins []*refs.Ref, out *refs.Ref, vjp CustomVJP, done func()) {
	s, _ := rt.Recorder().(*stack)
	var users []*Tape
	var needs [][]bool
	if s != nil {
		for _, t := range s.tapes {
			if need := t.needs(ins); need != nil {
				users, needs = append(users, t), append(needs, need)
			}
		}
	}
	left := len(users)
	if left == 0 {
		done()
		return
	}
	release := func() { // the last tape to consume its entry runs done
		if left--; left == 0 {
			done()
		}
	}
	for i, t := range users {
		e := entry{site: site, ins: append([]*refs.Ref(nil), ins...), need: needs[i], out: out, outM: out.Meta(), custom: vjp, done: release}
		e.inMeta = make([]tensor.Meta, len(ins))
		for k, in := range ins {
			e.inMeta[k] = in.Meta()
		}
		t.tracked[out] = struct{}{}
		t.entries = append(t.entries, e)
	}
}

// needs says which of ins the tape tracks (float ones), or nil for none.
func (t *Tape) needs(ins []*refs.Ref) []bool {
	var need []bool
	for i, in := range ins {
		if _, ok := t.tracked[in]; ok && in.DType().IsFloat() {
			if need == nil {
				need = make([]bool, len(ins))
			}
			need[i] = true
		}
	}
	return need
}

// stack is the recorder installed on a runtime: the active tapes,
// innermost last.
type stack struct {
	rt    *refs.Runtime
	tapes []*Tape
}

// Submitted records op on every active tape that tracks one of its inputs.
func (s *stack) Submitted(op *refs.Op) {
	if !op.Out.DType().IsFloat() {
		return
	}
	rule := op.Def().Grad
	if rule != nil && rule.NotDifferentiable != "" {
		return
	}
	for _, t := range s.tapes {
		t.record(op, rule)
	}
}

// Start begins a tape over rt whose leaves are the given refs; ops are
// recorded until Stop.
func Start(rt *refs.Runtime, leaves []*refs.Ref) *Tape {
	s, _ := rt.Recorder().(*stack)
	if s == nil {
		s = &stack{rt: rt}
		rt.SetRecorder(s)
	}
	t := &Tape{rt: rt, stack: s, tracked: make(map[*refs.Ref]struct{}, len(leaves))}
	for _, l := range leaves {
		t.tracked[l] = struct{}{}
	}
	s.tapes = append(s.tapes, t)
	return t
}

// Recording reports whether a tape is active on rt.
func Recording(rt *refs.Runtime) bool {
	s, _ := rt.Recorder().(*stack)
	return s != nil && len(s.tapes) > 0
}

// Paused runs f with recording off: what f submits is a constant to every
// tape (stop_gradient).
func Paused(rt *refs.Runtime, f func() error) error {
	prev := rt.SetRecorder(nil)
	defer rt.SetRecorder(prev)
	return f()
}

// Tracks reports whether r depends on the tape's leaves.
func (t *Tape) Tracks(r *refs.Ref) bool {
	_, ok := t.tracked[r]
	return ok
}

func (t *Tape) record(op *refs.Op, rule *ops.Grad) {
	need := t.needs(op.Inputs)
	if need == nil {
		return
	}
	e := entry{op: op.Op, rule: rule, attrs: op.Attrs, site: op.Site, out: op.Out, outM: op.Out.Meta(), need: need}
	e.ins = append([]*refs.Ref(nil), op.Inputs...)
	e.inMeta = make([]tensor.Meta, len(op.Inputs))
	for i, in := range op.Inputs {
		e.inMeta[i] = in.Meta()
	}
	if rule != nil {
		e.saved = make([]ops.T, len(op.Inputs))
		sc, scalar := ops.ScalarSlot(op.Attrs)
		for _, i := range rule.Saves {
			if scalar { // Saves names operands, the scalar among them
				var ok bool
				if i, ok = sc.Input(i, len(op.Inputs)); !ok {
					continue
				}
			}
			if i < len(op.Inputs) && e.saved[i] == nil {
				t.rt.Retain(op.Inputs[i])
				e.saved[i] = op.Inputs[i]
			}
		}
		if rule.SavesOut {
			t.rt.Retain(op.Out)
			e.outRef = op.Out
		}
	}
	t.tracked[op.Out] = struct{}{}
	t.entries = append(t.entries, e)
}

// Stop ends recording; the tape leaves the runtime's stack.
func (t *Tape) Stop() {
	if t.stopped {
		return
	}
	t.stopped = true
	s := t.stack
	for i := len(s.tapes) - 1; i >= 0; i-- {
		if s.tapes[i] == t {
			s.tapes = append(s.tapes[:i], s.tapes[i+1:]...)
			break
		}
	}
	if len(s.tapes) == 0 && t.rt.Recorder() == s {
		t.rt.SetRecorder(nil)
	}
}

// Discard stops the tape and releases what it saved.
func (t *Tape) Discard() {
	t.Stop()
	for i := range t.entries {
		t.release(&t.entries[i])
	}
	t.entries = nil
}

func (t *Tape) release(e *entry) {
	if e.done != nil {
		e.done()
		e.done = nil
	}
	for i, s := range e.saved {
		if s != nil {
			t.rt.Release(s.(*refs.Ref))
			e.saved[i] = nil
		}
	}
	if e.outRef != nil {
		t.rt.Release(e.outRef)
		e.outRef = nil
	}
}

// Backward stops the tape and computes the cotangent of every leaf from
// out's (a one-element float tensor, seeded with 1). It returns owned refs
// by leaf; a leaf out does not depend on is absent. The tape is consumed.
func (t *Tape) Backward(out *refs.Ref) (map[*refs.Ref]*refs.Ref, error) {
	m := out.Meta()
	s, err := t.rt.Submit(out.Site(), ops.Full, ops.FullAttrs{Shape: m.Shape, Value: ops.FloatScalar(1, m.DType)})
	if err != nil {
		return nil, err
	}
	defer t.rt.Release(s)
	return t.BackwardFrom(out, s)
}

// BackwardFrom is Backward with out's cotangent g (borrowed) as the seed.
func (t *Tape) BackwardFrom(out, g *refs.Ref) (map[*refs.Ref]*refs.Ref, error) {
	t.Stop()
	defer t.Discard()
	cot := map[*refs.Ref]*refs.Ref{}
	if _, ok := t.tracked[out]; !ok {
		return cot, nil
	}
	t.rt.Retain(g)
	cot[out] = g
	fail := func(err error) (map[*refs.Ref]*refs.Ref, error) {
		for _, r := range cot {
			t.rt.Release(r)
		}
		return nil, err
	}
	for i := len(t.entries) - 1; i >= 0; i-- {
		e := &t.entries[i]
		g := cot[e.out]
		if g == nil {
			t.release(e)
			continue
		}
		delete(cot, e.out)
		if prev := cot[e.ins[0]]; e.op == ops.Index && e.custom == nil && e.need[0] && prev != nil {
			// a slice's cotangent is added where it lands in the sum so
			// far: T slices of one tensor cost T slices' work, not T
			// tensors of its full size and their sums
			delete(cot, e.ins[0]) // addIntoSlice consumes prev
			sum, err := t.addIntoSlice(e, prev, g)
			t.rt.Release(g)
			t.release(e)
			if err != nil {
				return fail(fmt.Errorf("gradient of %s: %w", e.op.Name(), err))
			}
			cot[e.ins[0]] = sum
			continue
		}
		gs, err := t.vjp(e, g)
		t.rt.Release(g)
		t.release(e)
		if err != nil {
			return fail(err)
		}
		for k, gi := range gs {
			if gi == nil {
				continue
			}
			in := e.ins[k]
			prev := cot[in]
			if prev == nil {
				cot[in] = gi
				continue
			}
			sum, err := t.rt.Submit(e.site, ops.Add, nil, prev, gi)
			t.rt.Release(prev)
			t.rt.Release(gi)
			if err != nil {
				delete(cot, in)
				for _, rest := range gs[k+1:] { // owned, and not yet in cot
					if rest != nil {
						t.rt.Release(rest)
					}
				}
				return fail(fmt.Errorf("gradient of %s: %w", e.op.Name(), err))
			}
			cot[in] = sum
		}
	}
	return cot, nil
}

// addIntoSlice is prev (owned, consumed) with g added to the part of it
// that e, an index op, read: prev[items] + g written back into prev by
// index_assign, which runs in place on prev, dead by then. An index
// item is a position or a slice, so no element is read twice.
func (t *Tape) addIntoSlice(e *entry, prev, g *refs.Ref) (*refs.Ref, error) {
	defer t.rt.Release(prev)
	part, err := t.rt.Submit(e.site, ops.Index, e.attrs, prev)
	if err != nil {
		return nil, err
	}
	sum, err := t.rt.Submit(e.site, ops.Add, nil, part, g)
	t.rt.Release(part)
	if err != nil {
		return nil, err
	}
	defer t.rt.Release(sum)
	return t.rt.Submit(e.site, ops.IndexAssign, e.attrs, prev, sum)
}

// vjp runs e's rule on cotangent g and returns an owned cotangent per
// input that needs one (fitted to the input's shape and dtype).
func (t *Tape) vjp(e *entry, g *refs.Ref) ([]*refs.Ref, error) {
	if e.custom != nil {
		return t.customVJP(e, g)
	}
	return t.ruleVJP(e, g)
}

// customVJP runs a Custom entry's function, keeping only the cotangents
// the tape wants.
func (t *Tape) customVJP(e *entry, g *refs.Ref) ([]*refs.Ref, error) {
	gs, err := e.custom(g)
	if err != nil {
		return nil, err
	}
	for i, gi := range gs {
		if gi != nil && !e.need[i] {
			t.rt.Release(gi)
			gs[i] = nil
		}
	}
	return gs, nil
}

// ruleVJP runs e's op's gradient rule.
func (t *Tape) ruleVJP(e *entry, g *refs.Ref) ([]*refs.Ref, error) {
	if e.rule == nil {
		return nil, fmt.Errorf("%s has no gradient rule", e.op.Name())
	}
	var made []*refs.Ref
	b := ops.NewBuilder(func(op ops.Op, attrs any, ins []ops.T) (ops.T, error) {
		rs := make([]*refs.Ref, len(ins))
		for i, in := range ins {
			rs[i] = in.(*refs.Ref)
		}
		r, err := t.rt.Submit(e.site, op, attrs, rs...)
		if err != nil {
			return nil, err
		}
		made = append(made, r)
		return r, nil
	}, func(d *tensor.Dense) ops.T {
		r := t.rt.FromHost(e.site, d)
		made = append(made, r)
		return r
	})
	a := &ops.GradArgs{Attrs: e.attrs, In: e.inMeta, X: e.saved, OutMeta: e.outM, Need: e.need}
	if e.outRef != nil {
		a.Out = e.outRef
	}
	sc, scalar := ops.ScalarSlot(e.attrs)
	if scalar {
		a = ops.ScalarGradArgs(a, sc)
	}
	gs := e.rule.VJP(b, a, g)
	if scalar && b.Err() == nil && len(gs) == len(e.ins)+1 {
		k := sc.Index(len(e.ins)) // the tensors'; a number has none
		gs = append(gs[:k:k], gs[k+1:]...)
	}
	out := make([]*refs.Ref, len(e.ins))
	if b.Err() == nil {
		if len(gs) != len(e.ins) {
			return nil, fmt.Errorf("internal: the gradient rule of %s gave %d cotangents for %d inputs", e.op.Name(), len(gs), len(e.ins))
		}
		for i, gi := range gs {
			if gi == nil || !e.need[i] {
				continue
			}
			if f := b.Fit(gi, e.inMeta[i]); f != nil {
				out[i] = f.(*refs.Ref)
			}
		}
	}
	if err := b.Err(); err != nil {
		for _, r := range made {
			t.rt.Release(r)
		}
		return nil, fmt.Errorf("gradient of %s: %w", e.op.Name(), err)
	}
	for _, r := range out {
		if r != nil {
			t.rt.Retain(r)
		}
	}
	for _, r := range made {
		t.rt.Release(r)
	}
	return out, nil
}
