package trace

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
)

// Chrome writes the trace-event JSON that Perfetto and chrome://tracing
// open: one process per device, with ops, each copy engine, stalls and
// placement decisions on separate threads (tracks), and resident memory
// as a counter per device.
//
// The output keeps to the rules of Perfetto's JSON importer (docs/trace.md
// lists them): a thread is named before its first event and only when it
// has one; thread ids are unique across processes; slices that overlap on
// one engine (disk reads, which all sit at the host's virtual time) go to
// extra lanes ("disk reads 2"), since the importer drops a slice that
// overlaps another on its thread without nesting in it; and each slice's
// dur is written so that ts + dur, added in float64 as importers do, does
// not pass the next slice's ts.
type Chrome struct {
	w     *bufio.Writer
	n     int
	err   error
	pids  map[string]int
	mem   []memDelta
	order int
	// named marks the thread ids whose thread_name is written.
	named map[int]bool
	// lanes holds, per process and track, the end (ns) of the last slice
	// on each of its lanes.
	lanes map[laneKey][]int64
}

type laneKey struct{ pid, track int }

type memDelta struct {
	device string
	t      int64
	delta  int64
	// abs marks an absolute sample (host counters) instead of a delta.
	abs   bool
	order int
}

// The tracks of each device's process.
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

// Thread ids are pid*tidsPerPid + track*lanesPerTrack + lane: unique
// across processes (Perfetto's importer finds a thread_name's thread by
// tid alone in some versions) and never equal to a pid (which would make
// the thread the process's main thread).
const (
	lanesPerTrack = 1000
	tidsPerPid    = 10 * lanesPerTrack
)

// NewChrome makes a chrome sink writing to w.
func NewChrome(w io.Writer) *Chrome {
	c := &Chrome{w: bufio.NewWriter(w), pids: map[string]int{}, named: map[int]bool{}, lanes: map[laneKey][]int64{}}
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
	Tid   int            `json:"tid,omitempty"`
	Scope string         `json:"s,omitempty"`
	Args  map[string]any `json:"args,omitempty"`
}

func (c *Chrome) write(e chromeEvent) error {
	if c.err != nil {
		return c.err
	}
	b, err := json.Marshal(e)
	if err != nil {
		c.err = err
		return err
	}
	if c.n > 0 {
		c.w.WriteByte(',')
	}
	c.w.WriteByte('\n')
	c.n++
	_, c.err = c.w.Write(b)
	return c.err
}

// pid gives each device a process, named once.
func (c *Chrome) pid(device string) int {
	if p, ok := c.pids[device]; ok {
		return p
	}
	p := len(c.pids) + 1
	c.pids[device] = p
	c.write(chromeEvent{Name: "process_name", Ph: "M", Pid: p, Args: map[string]any{"name": device}})
	return p
}

// thread returns the thread id of a lane of pid's track, naming the
// thread on first use.
func (c *Chrome) thread(pid, track, lane int) int {
	tid := pid*tidsPerPid + track*lanesPerTrack + lane
	if !c.named[tid] {
		c.named[tid] = true
		name := trackNames[track]
		if lane > 0 {
			name = fmt.Sprintf("%s %d", name, lane+1)
		}
		c.write(chromeEvent{Name: "thread_name", Ph: "M", Pid: pid, Tid: tid, Args: map[string]any{"name": name}})
	}
	return tid
}

// lane picks the first lane of pid's track whose last slice ends by t,
// opening a new lane when none does, and records that the lane is busy
// until end. Slices on one lane thus follow each other without overlap,
// whatever order they arrive in.
func (c *Chrome) lane(pid, track int, t, end int64) int {
	k := laneKey{pid, track}
	ends := c.lanes[k]
	i := 0
	for i < len(ends) && ends[i] > t {
		i++
	}
	if i == len(ends) {
		if i == lanesPerTrack-1 {
			// Never seen: a thousand slices overlapping at once. Share the
			// last lane rather than collide with the next track's ids.
			i--
		} else {
			ends = append(ends, 0)
		}
	}
	ends[i] = max(ends[i], end)
	c.lanes[k] = ends
	return i
}

func micros(ns int64) float64 { return float64(ns) / 1e3 }

// spanMicros converts a span to the trace's microseconds: ts exactly as
// micros, and dur lowered by the ulps needed so that ts + dur in float64
// (how Chrome's and DevTools' importers find a slice's end) does not pass
// the end's own micros value, which is the next slice's ts. Rounded to
// whole nanoseconds, as Perfetto reads them, both are unchanged.
func spanMicros(t, d int64) (ts, dur float64) {
	ts, dur = micros(t), micros(d)
	end := micros(t + d)
	for dur > 0 && ts+dur > end {
		dur = math.Nextafter(dur, 0)
	}
	return ts, dur
}

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
	span := func(name, cat string, track int) error {
		d := max(e.Dur, 0)
		tid := c.thread(pid, track, c.lane(pid, track, e.T, e.T+d))
		ts, dur := spanMicros(e.T, d)
		return c.write(chromeEvent{Name: name, Cat: cat, Ph: "X", Ts: ts, Dur: &dur, Pid: pid, Tid: tid, Args: args})
	}
	switch e.Kind {
	case OpStart:
		return nil // the op_end event carries the span
	case OpEnd:
		track := tidCompute
		if e.Stream == StreamHost {
			track = tidHost
		}
		return span(e.Op, "op", track)
	case H2D:
		return span(fmt.Sprintf("h2d #%d", e.Ref), "copy", tidH2D)
	case D2H:
		return span(fmt.Sprintf("d2h #%d", e.Ref), "copy", tidD2H)
	case Stall:
		return span("stall", "stall", tidStall)
	case DiskRead:
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
	if e.Kind == Hint && e.Op != "" {
		name = e.Op // hint_keep, hint_offload
	}
	if e.Ref != 0 {
		name += fmt.Sprintf(" #%d", e.Ref)
	}
	tid := c.thread(pid, tidDecision, 0)
	return c.write(chromeEvent{Name: name, Cat: "decision", Ph: "i", Scope: "t", Ts: micros(e.T), Pid: pid, Tid: tid, Args: args})
}

// Counter keeps an absolute memory sample.
func (c *Chrome) Counter(device string, t, bytes int64) error {
	c.order++
	c.mem = append(c.mem, memDelta{device: device, t: t, delta: bytes, abs: true, order: c.order})
	return nil
}

// Close writes the memory counters in time order and the totals. A
// counter is named "resident" with the one series "bytes": Perfetto names
// its track "resident bytes" (the event's name and the arg's key).
func (c *Chrome) Close(t *Totals) error {
	for _, p := range memoryCurves(c.mem) {
		c.write(chromeEvent{Name: "resident", Ph: "C", Ts: micros(p.t), Pid: c.pid(p.device), Args: map[string]any{"bytes": p.bytes}})
	}
	if c.err != nil {
		return c.err
	}
	// The totals under the jsonl summary's snake_case names.
	sum, err := json.Marshal(struct {
		Device string `json:"device"`
		*SummaryFields
	}{t.Device, summaryFields(t)})
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
