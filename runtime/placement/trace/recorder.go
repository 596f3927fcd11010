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
}

// NewRecorder makes a recorder writing to sinks.
func NewRecorder(sinks ...Sink) *Recorder {
	return &Recorder{sinks: sinks}
}

// Emit records e, giving it the next sequence number.
func (r *Recorder) Emit(e Event) {
	r.seq++
	e.Seq = r.seq
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
		if err := s.Event(&e); err != nil && r.err == nil {
			r.err = err
		}
	}
}

// Counter forwards a memory sample to the sinks.
func (r *Recorder) Counter(device string, t, bytes int64) {
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

// LogOp appends an executed op to the log the Belady reference replays:
// its distinct inputs, its output, and the index in ins of a dying input
// whose buffer the output may take over (-1 for none).
func (r *Recorder) LogOp(ins []Use, out Use, inplace int) {
	r.log.op(ins, out, inplace)
}

// LogRead records that the host read ref (it needs a valid host copy).
func (r *Recorder) LogRead(u Use) { r.log.read(u) }

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
