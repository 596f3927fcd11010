package refs

import (
	"cmp"
	"slices"
)

// Observer sees a runtime's tensors in program order: every ref as it is
// made (with its producing op, nil for host data and lazy refs), and every
// Runtime.Read outside an op's execution, which is how the program reads
// data (item, print, a condition, save). Reads that an executor makes while
// running an op (its inputs, a prefetch) are not reported: the op's inputs
// are in op.Inputs when its result is made. An observer must not call back
// into the runtime.
type Observer interface {
	Created(r *Ref, op *Op)
	Read(r *Ref)
}

// SetObserver installs o (nil removes it).
func (rt *Runtime) SetObserver(o Observer) { rt.obs = o }

// Liveness records when each tensor of a run is made and last used, in
// program order, to compute the theoretical minimum of peak memory: the
// largest total size of tensors live at the same time, where a tensor is
// live from the op (or builtin) that makes it to its last use as an op
// input or as data the program reads. A tensor that is never used needs no
// storage at all (its op may be skipped), and a lazy tensor's storage
// starts at its first use. An op's inputs and its result are live
// together, so an op that writes in place into a dying input can run below
// this minimum. It implements Observer.
type Liveness struct {
	// now counts creations: the program point of the latest one.
	now   int64
	spans map[uint64]*span
}

type span struct {
	bytes       int64
	start, last int64 // program points; start < 0 while a lazy ref is unused
	used        bool
	site        Site
}

// NewLiveness makes an empty recorder; install it with Runtime.SetObserver
// before the program runs.
func NewLiveness() *Liveness { return &Liveness{spans: map[uint64]*span{}} }

// Created implements Observer.
func (l *Liveness) Created(r *Ref, op *Op) {
	l.now++
	if op != nil {
		for _, in := range op.Inputs {
			l.use(in)
		}
	}
	s := &span{bytes: r.Bytes(), start: l.now, last: l.now, site: r.Site()}
	if op == nil && r.Lazy() {
		s.start = -1
	}
	l.spans[r.ID()] = s
}

// Read implements Observer.
func (l *Liveness) Read(r *Ref) { l.use(r) }

// use records a use of r at the current program point.
func (l *Liveness) use(r *Ref) {
	s := l.spans[r.ID()]
	if s == nil {
		// Made before the recorder was installed: live since the start.
		s = &span{bytes: r.Bytes(), site: r.Site()}
		l.spans[r.ID()] = s
	}
	if s.start < 0 {
		s.start = l.now
	}
	s.used = true
	s.last = l.now
}

// Tensors is the number of tensors recorded.
func (l *Liveness) Tensors() int { return len(l.spans) }

// LiveTensor is one tensor of the minimum's live set.
type LiveTensor struct {
	ID    uint64
	Bytes int64
	Site  Site
}

// MinPeak is the theoretical minimum of a run's peak memory.
type MinPeak struct {
	// Bytes is the largest total size of tensors live at one program
	// point.
	Bytes int64
	// At is that program point (the number of tensors made up to it).
	At int64
	// Live are the tensors live there, largest first.
	Live []LiveTensor
}

// MinPeak computes the minimum from what was recorded so far.
func (l *Liveness) MinPeak() MinPeak {
	type event struct {
		t     int64
		delta int64
	}
	evs := make([]event, 0, 2*len(l.spans))
	for _, s := range l.spans {
		if s.used && s.bytes > 0 {
			// Live on [start, last]: it stops counting after last.
			evs = append(evs, event{s.start, s.bytes}, event{s.last + 1, -s.bytes})
		}
	}
	// At one point, tensors whose life ended before it are removed before
	// the ones starting at it are added.
	slices.SortFunc(evs, func(a, b event) int {
		if c := cmp.Compare(a.t, b.t); c != 0 {
			return c
		}
		return cmp.Compare(a.delta, b.delta)
	})
	var best MinPeak
	cur := int64(0)
	for _, e := range evs {
		cur += e.delta
		if cur > best.Bytes {
			best.Bytes, best.At = cur, e.t
		}
	}
	for id, s := range l.spans {
		if s.used && s.bytes > 0 && s.start <= best.At && best.At <= s.last {
			best.Live = append(best.Live, LiveTensor{ID: id, Bytes: s.bytes, Site: s.site})
		}
	}
	slices.SortFunc(best.Live, func(a, b LiveTensor) int {
		if c := cmp.Compare(b.Bytes, a.Bytes); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return best
}

// Timeline returns the bytes live at each program point under the
// minimum, from point 1 (the first tensor made) to the last.
func (l *Liveness) Timeline() []int64 {
	diff := make([]int64, l.now+2)
	for _, s := range l.spans {
		if s.used && s.bytes > 0 {
			diff[max(s.start, 0)] += s.bytes
			diff[s.last+1] -= s.bytes
		}
	}
	out := make([]int64, l.now)
	cur := diff[0]
	for t := int64(1); t <= l.now; t++ {
		cur += diff[t]
		out[t-1] = cur
	}
	return out
}
