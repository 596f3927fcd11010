package trace

import (
	"errors"
	"maps"
	"math"
)

// Sink receives a trace as it is made: every event in decision order,
// memory counter samples, and the totals at the end.
type Sink interface {
	// Event receives an event; the pointer is only valid during the call.
	Event(e *Event) error
	// Counter receives the bytes in use on a device at time t, for memory
	// that has no alloc/free events (the host's).
	Counter(device string, t, bytes int64) error
	// Close receives the totals and finishes the output.
	Close(t *Totals) error
}

// Recorder numbers events, keeps the totals and the op log for the Belady
// reference, and forwards everything to its sinks. A Recorder with no
// sinks still computes the totals.
type Recorder struct {
	sinks []Sink
	seq   int64
	tot   Totals
	log   opLog
	err   error
	done  bool
	// measure gives device work its measured times (SetMeasure).
	measure Measure
	// held is what waits for measured times: the events from the
	// first one with a Work id on, and the counters among them, kept in
	// order until Resolve.
	held []held
	// optimizer, when set, adds the offline optimum to the totals.
	optimizer Optimizer
}

// SetOptimizer makes the totals carry the offline optimum that f
// computes (OptNs, OptLowerNs, OptStatus).
func (r *Recorder) SetOptimizer(f Optimizer) { r.optimizer = f }

// held is an event or a counter sample waiting for Resolve.
type held struct {
	ev      Event
	counter bool
}

// Measure gives the measured start and duration of device work, ok false
// when the device has no measure of it.
type Measure func(work uint64) (t, dur int64, ok bool)

// NewRecorder makes a recorder writing to sinks.
func NewRecorder(sinks ...Sink) *Recorder {
	return &Recorder{sinks: sinks}
}

// SetMeasure makes the recorder hold events that name device work (a
// Work id) until m has their measured times: a device whose streams run
// behind the host measures its work, and its times are known only once
// the work ran. nil turns holding off.
func (r *Recorder) SetMeasure(m Measure) { r.measure = m }

// maxHeld bounds the events held for measured times: beyond it Emit asks
// for the times of the work done so far, so a long run between syncs
// does not hold its whole trace.
const maxHeld = 4096

// Emit records e, giving it the next sequence number. With a Measure, an
// event naming device work, and every event and counter after it, is held
// until Resolve gives it its measured times.
func (r *Recorder) Emit(e Event) {
	r.seq++
	e.Seq = r.seq
	if r.measure != nil && (e.Work != 0 || len(r.held) > 0) {
		r.held = append(r.held, held{ev: e})
		if len(r.held) >= maxHeld {
			r.Resolve()
		}
		return
	}
	r.forward(&e)
}

// Resolve gives the held events their measured times and sends them and
// the held counters on, in order, up to the first event whose work the
// device has not measured yet (still running). A counter sample among
// them takes the measured end of the work before it when that is later,
// so that memory is not shown freed before the work that used it ran.
func (r *Recorder) Resolve() { r.resolve(false) }

// resolve is Resolve; all sends every held event, with its issue times
// where the device has no measure.
func (r *Recorder) resolve(all bool) {
	var last int64
	var seen struct {
		work   uint64
		t, dur int64
		ok     bool
	}
	n := 0
	for ; n < len(r.held); n++ {
		h := &r.held[n]
		if h.counter {
			h.ev.T = max(h.ev.T, last)
			r.counter(h.ev.Device, h.ev.T, h.ev.Bytes)
			continue
		}
		if h.ev.Work != 0 && r.measure != nil {
			// An op's start and end name the same work, which the
			// device measures once.
			if h.ev.Work != seen.work {
				seen.work = h.ev.Work
				seen.t, seen.dur, seen.ok = r.measure(h.ev.Work)
			}
			t, dur, ok := seen.t, seen.dur, seen.ok
			switch {
			case ok:
				h.ev.T = t
				if h.ev.Dur != 0 || h.ev.Kind == OpEnd || h.ev.Kind == H2D || h.ev.Kind == D2H {
					h.ev.Dur = dur
				}
			case !all:
				r.held = append(r.held[:0], r.held[n:]...)
				return
			}
		}
		last = max(last, h.ev.End())
		r.forward(&h.ev)
	}
	clear(r.held)
	r.held = r.held[:0]
}

// forward counts e in the totals and sends it to the sinks.
func (r *Recorder) forward(e *Event) {
	switch e.Kind {
	case OpEnd:
		r.tot.Ops++
		r.tot.ComputeNs += e.Dur
	case H2D:
		r.tot.BytesH2D += e.Bytes
	case D2H:
		r.tot.BytesD2H += e.Bytes
	case Stall:
		r.tot.StallNs += e.Dur
	case Hit:
		r.tot.PrefetchHits++
	case Miss:
		r.tot.PrefetchMisses++
	case Fallback:
		r.tot.Fallbacks++
	case Evict:
		r.tot.Evictions++
	case DiskRead:
		r.tot.BytesDisk += e.Bytes
	}
	for _, s := range r.sinks {
		if err := s.Event(e); err != nil && r.err == nil {
			r.err = err
		}
	}
}

// Counter forwards a memory sample to the sinks (held, in order, while
// events wait for Resolve).
func (r *Recorder) Counter(device string, t, bytes int64) {
	if len(r.held) > 0 {
		r.held = append(r.held, held{ev: Event{T: t, Device: device, Bytes: bytes}, counter: true})
		if len(r.held) >= maxHeld {
			r.Resolve()
		}
		return
	}
	r.counter(device, t, bytes)
}

func (r *Recorder) counter(device string, t, bytes int64) {
	for _, s := range r.sinks {
		if err := s.Counter(device, t, bytes); err != nil && r.err == nil {
			r.err = err
		}
	}
}

// Flush makes the sinks that buffer (text, jsonl) write what they hold.
func (r *Recorder) Flush() {
	for _, s := range r.sinks {
		if f, ok := s.(interface{ Flush() error }); ok {
			if err := f.Flush(); err != nil && r.err == nil {
				r.err = err
			}
		}
	}
}

// Use is one ref in the op log: its id and size.
type Use struct {
	Ref   uint64
	Bytes int64
}

// LogOp appends an executed op to the log the Belady reference and the
// optimum replay: its distinct inputs, its output, the index in ins of a
// dying input whose buffer the output may take over (-1 for none), and
// its cost.
func (r *Recorder) LogOp(ins []Use, out Use, inplace int, cost OpCost) {
	r.log.op(ins, out, inplace, cost)
}

// LogRead records that the host read ref (it needs a valid host copy).
func (r *Recorder) LogRead(u Use) { r.log.read(u, false) }

// LogOperandRead records that an op run on the host read its operand ref
// back from the accelerator: a read for the Belady reference, part of the
// op for the optimum (which may run the op elsewhere).
func (r *Recorder) LogOperandRead(u Use) { r.log.read(u, true) }

// Steps is the op log so far as the optimum replays it (see Step).
func (r *Recorder) Steps() []Step { return r.log.steps() }

// LogDeath records that ref died: its copies are freed everywhere.
func (r *Recorder) LogDeath(ref uint64) { r.log.death(ref) }

// Totals computes the summary so far, with the Belady reference over the
// ops logged until now.
func (r *Recorder) Totals(f Final) *Totals {
	t := r.tot
	t.Device, t.Strategy, t.Budget, t.Clock = f.Device, f.Strategy, f.Budget, f.Clock
	t.TimeNs = f.TimeNs
	t.PeakBytes = maps.Clone(f.PeakBytes)
	if t.PeakBytes == nil {
		t.PeakBytes = map[string]int64{}
	}
	t.WastedPrefetches, t.WastedBytes = f.WastedPrefetches, f.WastedBytes
	if f.Budget > 0 {
		t.BeladyBytes = r.log.belady(f.Budget)
	}
	t.BoundNs = t.ComputeNs
	if f.Bandwidth > 0 {
		t.BoundNs = max(t.ComputeNs, int64(math.Ceil(float64(t.BeladyBytes)/f.Bandwidth*1e9)))
	}
	if r.optimizer != nil {
		r.optimum(&t, f.Budget)
	}
	return &t
}

// Finish computes the totals, closes every sink with them and returns
// them with the first error any sink reported. Finishing twice returns an
// error.
func (r *Recorder) Finish(f Final) (*Totals, error) {
	if r.done {
		return nil, errors.New("trace: recorder finished twice")
	}
	r.done = true
	r.resolve(true) // what no device measured keeps its issue times
	t := r.Totals(f)
	for _, s := range r.sinks {
		if err := s.Close(t); err != nil && r.err == nil {
			r.err = err
		}
	}
	return t, r.err
}

// Err is the first error a sink reported.
func (r *Recorder) Err() error { return r.err }

// optimum fills t's offline optimum for budget.
func (r *Recorder) optimum(t *Totals, budget int64) {
	if budget <= 0 {
		t.OptStatus = "no accelerator: nothing to place"
		return
	}
	opt, err := r.optimizer(r.Steps(), budget)
	if err != nil {
		t.OptStatus = "error: " + err.Error()
		return
	}
	t.OptNs, t.OptLowerNs, t.OptStatus = opt.BestNs, opt.LowerNs, opt.Status
}
