package cuda

import (
	"encoding/json"
	"fmt"
	"os"
)

// timeline records when each copy and kernel ran on the device, measured
// with CUDA events, and writes it as a chrome trace (one row per stream)
// at every Sync: the trace of what the streams really did, copies beside
// kernels, where the engine's trace has the host's view.
type timeline struct {
	path    string
	start   Event // recorded on the compute stream when the plane opened
	pending []timed
	done    []chromeEvent
}

// timed is a piece of work between events a and b on a stream.
type timed struct {
	name, stream string
	bytes        int64
	a, b         Event
}

type chromeEvent struct {
	Name string         `json:"name"`
	Ph   string         `json:"ph"`
	Ts   float64        `json:"ts"`
	Dur  float64        `json:"dur"`
	Pid  int            `json:"pid"`
	Tid  string         `json:"tid"`
	Args map[string]any `json:"args,omitempty"`
}

// Timeline makes the plane write the CUDA-event times of its copies and
// kernels to path (a chrome trace) at every Sync and at Close.
func (d *Plane) Timeline(path string) error {
	e, err := d.record(d.compute)
	if err != nil {
		return err
	}
	d.tl = &timeline{path: path, start: e}
	return nil
}

// begin records the start of a piece of work on s (0 without a timeline).
func (d *Plane) begin(s Stream) (Event, error) {
	if d.tl == nil {
		return 0, nil
	}
	return d.record(s)
}

// end records the end of the work begun at a.
func (d *Plane) end(a Event, s Stream, name string, bytes int64) error {
	if d.tl == nil {
		return nil
	}
	b, err := d.record(s)
	if err != nil {
		return err
	}
	stream := "compute stream"
	if s == d.copy {
		stream = "copy stream"
	}
	d.tl.pending = append(d.tl.pending, timed{name: name, stream: stream, bytes: bytes, a: a, b: b})
	return nil
}

// flush resolves the recorded work (all of it complete after a Sync)
// and rewrites the trace.
func (d *Plane) flush() error {
	t := d.tl
	if t == nil {
		return nil
	}
	for _, w := range t.pending {
		s, err := d.rt.EventElapsed(t.start, w.a)
		if err != nil {
			return err
		}
		e, err := d.rt.EventElapsed(t.start, w.b)
		if err != nil {
			return err
		}
		ev := chromeEvent{Name: w.name, Ph: "X", Ts: float64(s) * 1000, Dur: float64(e-s) * 1000, Pid: 1, Tid: w.stream}
		if w.bytes > 0 {
			ev.Args = map[string]any{"bytes": w.bytes}
		}
		t.done = append(t.done, ev)
		d.rt.EventDestroy(w.a)
		d.rt.EventDestroy(w.b)
	}
	t.pending = t.pending[:0]
	b, err := json.Marshal(map[string]any{"traceEvents": t.done, "displayTimeUnit": "ns",
		"otherData": map[string]string{"device": d.cfg.Name, "clock": "CUDA events"}})
	if err != nil {
		return err
	}
	tmp := t.path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return fmt.Errorf("%s: timeline: %w", d.cfg.Name, err)
	}
	return os.Rename(tmp, t.path)
}
