package trace

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"
)

// Chrome writes the trace-event JSON that Perfetto and chrome://tracing
// open: one process per device, with ops, each copy engine, stalls and
// placement decisions on separate threads (tracks; disk reads get one
// when there are any), and resident memory
// as a counter per device.
type Chrome struct {
	w     *bufio.Writer
	n     int
	pids  map[string]int
	mem   []memDelta
	order int
	// diskTrack marks the processes whose disk reads track is named.
	diskTrack map[int]bool
}

type memDelta struct {
	device string
	t      int64
	delta  int64
	// abs marks an absolute sample (host counters) instead of a delta.
	abs   bool
	order int
}

// The tracks (thread ids) of each device's process.
const (
	tidCompute = 1 + iota
	tidH2D
	tidD2H
	tidHost
	tidStall
	tidDecision
	tidDisk
)

var trackNames = map[int]string{
	tidCompute: "compute (ops)", tidH2D: "copy h2d", tidD2H: "copy d2h",
	tidHost: "host ops", tidStall: "stalls", tidDecision: "decisions",
	tidDisk: "disk reads",
}

// NewChrome makes a chrome sink writing to w.
func NewChrome(w io.Writer) *Chrome {
	c := &Chrome{w: bufio.NewWriter(w), pids: map[string]int{}, diskTrack: map[int]bool{}}
	c.w.WriteString(`{"displayTimeUnit":"ns","traceEvents":[`)
	return c
}

type chromeEvent struct {
	Name  string         `json:"name"`
	Cat   string         `json:"cat,omitempty"`
	Ph    string         `json:"ph"`
	Ts    float64        `json:"ts"`
	Dur   *float64       `json:"dur,omitempty"`
	Pid   int            `json:"pid"`
	Tid   int            `json:"tid"`
	Scope string         `json:"s,omitempty"`
	Args  map[string]any `json:"args,omitempty"`
}

func (c *Chrome) write(e chromeEvent) error {
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if c.n > 0 {
		c.w.WriteByte(',')
	}
	c.w.WriteByte('\n')
	c.n++
	_, err = c.w.Write(b)
	return err
}

// pid gives each device a process, named once.
func (c *Chrome) pid(device string) int {
	if p, ok := c.pids[device]; ok {
		return p
	}
	p := len(c.pids) + 1
	c.pids[device] = p
	c.write(chromeEvent{Name: "process_name", Ph: "M", Pid: p, Args: map[string]any{"name": device}})
	for tid := tidCompute; tid <= tidDecision; tid++ {
		c.write(chromeEvent{Name: "thread_name", Ph: "M", Pid: p, Tid: tid, Args: map[string]any{"name": trackNames[tid]}})
	}
	return p
}

func micros(ns int64) float64 { return float64(ns) / 1e3 }

// Event writes ops and copies as complete events, decisions as instants,
// and keeps allocations for the memory counters.
func (c *Chrome) Event(e *Event) error {
	dev := e.Device
	if dev == "" {
		dev = "host"
	}
	pid := c.pid(dev)
	args := map[string]any{"seq": e.Seq}
	if e.Ref != 0 {
		args["ref"] = e.Ref
	}
	if e.Bytes != 0 {
		args["bytes"] = e.Bytes
	}
	if e.Pos != "" {
		args["pos"] = e.Pos
	}
	if e.Reason != "" {
		args["reason"] = e.Reason
	}
	span := func(name, cat string, tid int) error {
		d := micros(e.Dur)
		return c.write(chromeEvent{Name: name, Cat: cat, Ph: "X", Ts: micros(e.T), Dur: &d, Pid: pid, Tid: tid, Args: args})
	}
	switch e.Kind {
	case OpStart:
		return nil // the op_end event carries the span
	case OpEnd:
		tid := tidCompute
		if e.Stream == StreamHost {
			tid = tidHost
		}
		return span(e.Op, "op", tid)
	case H2D:
		return span(fmt.Sprintf("h2d #%d", e.Ref), "copy", tidH2D)
	case D2H:
		return span(fmt.Sprintf("d2h #%d", e.Ref), "copy", tidD2H)
	case Stall:
		return span("stall", "stall", tidStall)
	case DiskRead:
		if !c.diskTrack[pid] {
			// Named on first use: most traces read nothing from disk.
			c.diskTrack[pid] = true
			c.write(chromeEvent{Name: "thread_name", Ph: "M", Pid: pid, Tid: tidDisk, Args: map[string]any{"name": trackNames[tidDisk]}})
		}
		return span(fmt.Sprintf("disk read #%d", e.Ref), "copy", tidDisk)
	case Alloc, Free:
		delta := e.Bytes
		if e.Kind == Free {
			delta = -delta
		}
		c.order++
		c.mem = append(c.mem, memDelta{device: dev, t: e.T, delta: delta, order: c.order})
	}
	name := e.Kind.String()
	if e.Ref != 0 {
		name += fmt.Sprintf(" #%d", e.Ref)
	}
	return c.write(chromeEvent{Name: name, Cat: "decision", Ph: "i", Scope: "t", Ts: micros(e.T), Pid: pid, Tid: tidDecision, Args: args})
}

// Counter keeps an absolute memory sample.
func (c *Chrome) Counter(device string, t, bytes int64) error {
	c.order++
	c.mem = append(c.mem, memDelta{device: device, t: t, delta: bytes, abs: true, order: c.order})
	return nil
}

// Close writes the memory counters in time order and the totals.
func (c *Chrome) Close(t *Totals) error {
	for _, p := range memoryCurves(c.mem) {
		c.write(chromeEvent{Name: "resident bytes", Ph: "C", Ts: micros(p.t), Pid: c.pid(p.device), Args: map[string]any{"bytes": p.bytes}})
	}
	sum, err := json.Marshal(t)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.w, "\n],\"otherData\":%s}\n", sum)
	return c.w.Flush()
}

// memPoint is a device's resident bytes from time t on.
type memPoint struct {
	device string
	t      int64
	bytes  int64
}

// memoryCurves turns deltas (device allocations, which may be recorded out
// of time order) and absolute samples into step curves in time order, one
// point per change.
func memoryCurves(ds []memDelta) []memPoint {
	ds = append([]memDelta(nil), ds...)
	sort.SliceStable(ds, func(i, j int) bool {
		if ds[i].t != ds[j].t {
			return ds[i].t < ds[j].t
		}
		return ds[i].order < ds[j].order
	})
	level := map[string]int64{}
	var out []memPoint
	for _, d := range ds {
		if d.abs {
			level[d.device] = d.delta
		} else {
			level[d.device] += d.delta
		}
		p := memPoint{d.device, d.t, level[d.device]}
		if n := len(out); n > 0 && out[n-1].device == p.device && out[n-1].t == p.t {
			out[n-1] = p
			continue
		}
		out = append(out, p)
	}
	return out
}
