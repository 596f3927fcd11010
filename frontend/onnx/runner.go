package onnx

import (
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// runner is the runtime as a running graph's lowering uses it: every call
// that makes, holds, frees or reads a ref goes through it, so that the
// first run of a program for an input signature is recorded (rec) as the
// plan later runs replay without lowering again (plan.go).
type runner struct {
	rt   *refs.Runtime
	site refs.Site
	rec  *recording
}

// Submit queues op over ins at the run's site.
func (r *runner) Submit(op ops.Op, attrs any, ins ...*refs.Ref) (*refs.Ref, error) {
	out, err := r.rt.Submit(r.site, op, attrs, ins...)
	if r.rec != nil && err == nil {
		r.rec.submit(op, attrs, ins, out)
	}
	return out, err
}

// FromHost makes a ref over d, which the runtime takes.
func (r *runner) FromHost(d *tensor.Dense) *refs.Ref {
	ref := r.rt.FromHost(r.site, d)
	if r.rec != nil {
		// An op running in place may later write d: the plan keeps a
		// copy of the value as it was.
		r.rec.fromHost(d.Clone(), ref)
	}
	return ref
}

// Retain adds a reference to ref.
func (r *runner) Retain(ref *refs.Ref) {
	r.rt.Retain(ref)
	if r.rec != nil {
		r.rec.refStep(stepRetain, ref)
	}
}

// Release drops a reference to ref.
func (r *runner) Release(ref *refs.Ref) {
	if r.rec != nil {
		r.rec.refStep(stepRelease, ref)
	}
	r.rt.Release(ref)
}

// Read forces ref and returns its host copy. What the lowering does next
// depends on the data, so a run that reads one is not recorded.
func (r *runner) Read(ref *refs.Ref) (*tensor.Dense, error) {
	r.unplannable()
	return r.rt.Read(ref)
}

// interrupted says whether the run was interrupted (refs.Runtime.Interrupt):
// a Loop stops before its next iteration then.
func (r *runner) interrupted() bool { return r.rt.Interrupted() }

// HostPool is the host's allocator, for limit checks of host constants.
func (r *runner) HostPool() *refs.HostPool { return r.rt.HostPool() }

// unplannable says the run does something a plan cannot replay (it reads
// computed data, or makes refs the plan does not know how to remake).
func (r *runner) unplannable() {
	if r.rec != nil {
		r.rec.dynamic = true
	}
}
