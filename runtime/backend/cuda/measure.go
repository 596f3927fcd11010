package cuda

import (
	"math"

	"github.com/tref-lang/tref/runtime/device"
)

// measure records when each copy and kernel ran, with a CUDA event
// before and after it on its stream (device.Measurer): the times a trace
// shows on CUDA, copies beside kernels as they really ran, where the
// calls that issue them return at once.
type measure struct {
	// start is recorded on the compute stream when measuring began, at
	// offset on the plane's clock; event times are read relative to it.
	start  Event
	offset int64
	next   uint64
	// pending is the work issued since the last Sync; done its measured
	// spans, until Measured gives them.
	pending []timed
	done    map[uint64]device.Span
}

// timed is a piece of work between events a and b; with bytes set (and
// no work), the copy engine's transfer of a staged chunk, counted in the
// plane's DMA times (PinStats.DMAIn) rather than shown in the trace.
type timed struct {
	work  uint64
	a, b  Event
	bytes int64
}

// Measure turns the recording of CUDA-event times on or off.
func (d *Plane) Measure(on bool) error {
	if !on {
		if d.m != nil {
			d.drop(d.m.pending)
			d.events.put(d.m.start)
			d.m = nil
		}
		return nil
	}
	if d.m != nil {
		return nil
	}
	if err := d.enter(); err != nil {
		return err
	}
	e, err := d.record(d.compute)
	if err != nil {
		return err
	}
	d.m = &measure{start: e, offset: d.Now(), done: map[uint64]device.Span{}}
	return nil
}

// Measured is the span work ran in, once it completed (after the Sync
// that followed it, or earlier when its end event has completed).
func (d *Plane) Measured(work uint64) (device.Span, bool) {
	if d.m == nil {
		return device.Span{}, false
	}
	s, ok := d.m.done[work]
	if !ok {
		if err := d.poll(); err != nil {
			return device.Span{}, false
		}
		s, ok = d.m.done[work]
	}
	delete(d.m.done, work)
	return s, ok
}

// poll measures the work issued first that has completed, in issue
// order, stopping at the first piece still running.
func (d *Plane) poll() error {
	m := d.m
	n := 0
	for ; n < len(m.pending); n++ {
		done, err := d.rt.EventQuery(m.pending[n].b)
		if err != nil {
			return err
		}
		if !done {
			break
		}
	}
	err := d.times(m.pending[:n])
	m.pending = append(m.pending[:0], m.pending[n:]...)
	return err
}

// begin records the start of a piece of work on s (0 when not measuring).
func (d *Plane) begin(s Stream) (Event, error) {
	if d.m == nil {
		return 0, nil
	}
	return d.record(s)
}

// end records the end of the work begun at a and returns its work id
// (0 when not measuring).
func (d *Plane) end(a Event, s Stream) (uint64, error) {
	work := d.reserve()
	return work, d.endAs(a, s, work, d.m)
}

// reserve is a work id for work to be issued later (endAs), 0 when not
// measuring.
func (d *Plane) reserve() uint64 {
	if d.m == nil {
		return 0
	}
	d.m.next++
	return d.m.next
}

// endAs records the end of the work begun at a, under the id reserved
// for it while m measured; nothing when measuring stopped since.
func (d *Plane) endAs(a Event, s Stream, work uint64, m *measure) error {
	if d.m == nil || d.m != m || work == 0 {
		d.events.put(a)
		return nil
	}
	return d.pend(a, s, timed{work: work})
}

// pend records the end on s of t, begun at a, and keeps it to be read
// once it completed (measuring).
func (d *Plane) pend(a Event, s Stream, t timed) error {
	b, err := d.record(s)
	if err != nil {
		d.events.put(a)
		return err
	}
	t.a, t.b = a, b
	d.m.pending = append(d.m.pending, t)
	return nil
}

// copyChunkIn copies the staged chunk in s to dst on the copy stream and
// marks s busy until it completes; measuring, it also times the copy
// engine's transfer of the chunk alone (the memcpy into s not included).
func (d *Plane) copyChunkIn(dst Ptr, s *staging) error {
	a, err := d.begin(d.copy)
	if err != nil {
		return err
	}
	if err := d.rt.CopyH2D(dst, s.buf, d.copy); err != nil {
		d.events.put(a)
		return err
	}
	if a != 0 {
		if err := d.pend(a, d.copy, timed{bytes: int64(len(s.buf))}); err != nil {
			return err
		}
	}
	return d.staged(s)
}

// resolve reads the times of the work issued before a Sync (all of it
// complete) into done.
func (d *Plane) resolve() error {
	m := d.m
	if m == nil {
		return nil
	}
	err := d.times(m.pending)
	m.pending = m.pending[:0]
	return err
}

// times reads the spans of completed work ws into done and gives its
// events back.
func (d *Plane) times(ws []timed) error {
	m := d.m
	defer d.drop(ws)
	for _, w := range ws {
		a, err := d.rt.EventElapsed(m.start, w.a)
		if err != nil {
			return err
		}
		b, err := d.rt.EventElapsed(m.start, w.b)
		if err != nil {
			return err
		}
		if w.bytes > 0 {
			d.pins.stats.countDMAIn(w.bytes, msToNs(b)-msToNs(a))
			continue
		}
		m.done[w.work] = device.Span{Start: m.offset + msToNs(a), End: m.offset + msToNs(b)}
	}
	return nil
}

// drop gives the events of ws back to the pool.
func (d *Plane) drop(ws []timed) {
	for _, w := range ws {
		d.events.put(w.a)
		d.events.put(w.b)
	}
}

// msToNs converts cudaEventElapsedTime's milliseconds to nanoseconds.
func msToNs(ms float32) int64 { return int64(math.Round(float64(ms) * 1e6)) }
