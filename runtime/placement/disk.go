package placement

import (
	"github.com/tref-lang/tref/runtime/placement/trace"
	"github.com/tref-lang/tref/runtime/refs"
)

// Attach connects the engine to rt: it subscribes to rt's lazy loads, so
// that every read of a lazy ref's data from disk (load() of a
// safetensors, npy, ... file) is a disk_read event in the trace and for
// the middleware. Execute attaches on its first call; a caller that may
// read lazy refs before the first op (tref trace) attaches at once.
func (e *Engine) Attach(rt *refs.Runtime) {
	if e.attached == rt {
		return
	}
	e.rt, e.attached = rt, rt
	rt.SetLoadObserver(e.onLoad)
}

// onLoad reports a disk->host read. It happens on the host thread: on the
// simulated device the event sits at the host's virtual time, and its
// duration is the read's wall time (the simulation models the
// accelerator's link, not the disk, so the virtual clock does not move).
func (e *Engine) onLoad(ev refs.LoadEvent) {
	if !e.tracing {
		return
	}
	var t int64
	switch {
	case e.wall:
		t = max(e.dev.Now()-int64(ev.Dur), 0) // it ended just now
	case e.dev != nil:
		t = e.model.Host()
	default:
		t = int64(ev.Start.Sub(e.wallStart))
	}
	reason := "disk->host: lazy load"
	if at := ev.Ref.Site().Pos.String(); at != "" {
		reason += " of the tensor made at " + at
	}
	if ev.Err != nil {
		reason = "disk->host read failed: " + ev.Err.Error()
	}
	e.emit(trace.Event{T: t, Dur: max(int64(ev.Dur), 1), Kind: trace.DiskRead, Device: HostDevice, Stream: trace.StreamDisk,
		Ref: ev.Ref.ID(), Bytes: ev.Bytes, Reason: reason})
}
