package placement

import (
	"errors"
	"fmt"
	"math/bits"
	"time"

	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/device"
	"github.com/tref-lang/tref/runtime/placement/trace"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// HostDevice is the name of the host in events and decisions.
const HostDevice = device.Host

// Engine is the placement engine: a refs.Executor that runs every op on
// the accelerator or the host as its Strategy decides, moving, prefetching
// and evicting refs under the accelerator's budget, and reporting every
// decision to its middleware chain and trace.
//
// The engine plans on a model of the accelerator (device.Model: virtual
// engines and memory over time, from the cost model) and carries its
// decisions out on the device's data plane (device.Device): the same
// decisions on every device with the same cost model and capabilities.
type Engine struct {
	// dev is the accelerator, nil when there is none; model is the
	// engine's view of it, caps what it can do, and wall is set when its
	// trace shows measured times rather than the model's.
	dev     device.Device
	model   *device.Model
	caps    device.Caps
	wall    bool
	devName string
	// budgetName names the device in budget errors (Config.BudgetName).
	budgetName string
	strategy   Strategy
	chain      []Middleware
	rec        *trace.Recorder
	tracing    bool
	rt         *refs.Runtime
	// closed is set by Close: the accelerator is gone.
	closed bool
	// attached is the runtime whose lazy loads the engine observes.
	attached *refs.Runtime

	// cur is the op being executed and window the ops after it.
	cur    *refs.Op
	window []*refs.Op
	// seen is the highest op sequence whose uses are recorded; growing
	// says the current step added ops to the window.
	seen    uint64
	growing bool
	// cumNs is the running sum of estimated op durations (RefState.cumNs).
	cumNs int64
	// keys validates NextKey's memo across steps (see keyCache).
	keys keyCache
	// watcher is the strategy when it is a Watcher.
	watcher Watcher

	resident residentList
	fc       forecast
	// observed is set once observe has run.
	observed bool

	wasted, wastedBytes int64
	// wallStart is the origin of event times without an accelerator.
	wallStart time.Time
	scratch   []*RefState
	// spare holds the states of dead refs for reuse (see Drop), and
	// states every state made, by id (nil once dropped for good), so that
	// the forecast's queue holds ids rather than pointers: it may grow
	// long, and the garbage collector does not scan memory without
	// pointers.
	spare, states []*RefState
	vetoed        []*RefState
	metas         []tensor.Meta
}

// errNoRoom means the accelerator cannot hold what an op or prefetch
// needs, even after every allowed eviction.
var errNoRoom = errors.New("no room on the accelerator")

// view is the engine as its strategy sees it.
func (e *Engine) view() *View { return (*View)(e) }

// Device is the accelerator's name ("sim:0"), or "cpu" when there is none.
func (e *Engine) Device() string { return e.devName }

// Accelerator is the accelerator's data plane, nil when there is none.
func (e *Engine) Accelerator() device.Device { return e.dev }

// Model is the engine's model of the accelerator, nil when there is none.
func (e *Engine) Model() *device.Model { return e.model }

// Strategy is the placement strategy.
func (e *Engine) Strategy() Strategy { return e.strategy }

// Recorder is the trace recorder, nil when not tracing.
func (e *Engine) Recorder() *trace.Recorder { return e.rec }

// Window is the exact future: the pending ops after the current one.
func (e *Engine) Window() []*refs.Op { return e.window }

// state returns r's bookkeeping, creating it on first sight.
func (e *Engine) state(r *refs.Ref) *RefState {
	if s, ok := r.Aux.(*RefState); ok {
		return s
	}
	var s *RefState
	if n := len(e.spare); n > 0 {
		s, e.spare = e.spare[n-1], e.spare[:n-1]
		s.ref = r
	} else {
		s = &RefState{ref: r, id: uint32(len(e.states))}
		e.states = append(e.states, s)
	}
	s.bytes = r.Bytes() // a ref's meta never changes
	if e.model != nil {
		s.hostReady = e.model.Host()
	}
	r.Aux = s
	return s
}

// State returns r's bookkeeping, nil when the engine has not seen r.
func (e *Engine) State(r *refs.Ref) *RefState {
	s, _ := r.Aux.(*RefState)
	return s
}

// emit sends an event to the middleware chain when anyone listens. It is
// small enough to inline, so that an untraced run builds no event.
func (e *Engine) emit(ev trace.Event) {
	if e.tracing {
		e.send(ev)
	}
}

func (e *Engine) send(ev trace.Event) {
	if ev.Op == "" && e.cur != nil && ev.Kind != trace.Free {
		ev.Op, ev.Pos = e.cur.Op.Name(), e.cur.Site.Pos.String()
	}
	for _, m := range e.chain {
		m.OnEvent(e, &ev)
	}
}

// hostCounter samples the host's live bytes at time t for the trace's
// memory timeline.
func (e *Engine) hostCounter(t int64) {
	if e.rec != nil && e.rt != nil {
		e.rec.Counter(HostDevice, t, e.rt.HostPool().Stats().LiveBytes)
	}
}

// now is the time of a decision: on a virtual clock the host thread's,
// or later when the compute engine is still busy with the ops before it
// (the host races ahead; its decisions take effect in program order); on
// a wall clock, the time it is. Decisions never depend on it.
func (e *Engine) now() int64 {
	switch {
	case e.wall:
		return e.dev.Now()
	case e.model != nil:
		return max(e.model.Host(), e.model.ComputeFree())
	}
	return int64(time.Since(e.wallStart))
}

// shown is the span a trace shows for work the model timed as model and
// the device measured as measured.
func (e *Engine) shown(model, measured device.Span) device.Span {
	if e.wall {
		return measured
	}
	return model
}

// Execute places and runs op. It implements refs.Executor.
func (e *Engine) Execute(rt *refs.Runtime, op *refs.Op, ahead []*refs.Op) error {
	if e.closed {
		return fmt.Errorf("placement: %s is closed", e.devName)
	}
	e.Attach(rt)
	if e.seen == 0 {
		e.hostCounter(e.now()) // the host's memory before the first op
	}
	e.absorb(op, ahead)
	e.cur, e.window = op, ahead
	if e.keys.begin(op, e.windowEnd()) {
		e.lose(0) // ops were skipped
	}
	for _, in := range op.Inputs {
		if s := e.State(in); s != nil {
			forgetKey(s) // op was its next use
		}
	}
	defer func() {
		e.cur, e.window = nil, nil
		e.keys.finish()
	}()

	where, ws := HostDevice, e.workingSet(op)
	if e.dev != nil && e.strategy.OnDevice(e.view(), op) {
		where = e.devName
	}
	if len(e.chain) > 0 {
		ev := OpEvent{Op: op, Device: where, WorkingSet: ws}
		for _, m := range e.chain {
			if err := m.BeforeOp(e, &ev); err != nil {
				return err
			}
		}
		where = ev.Device
	}
	onDevice := where == e.devName && e.dev != nil
	if onDevice {
		if why := e.dev.Supports(op); why != "" {
			e.fallback(why)
			onDevice = false
		}
	}
	if onDevice && ws > e.model.Capacity() {
		msg := fmt.Sprintf("working set %s exceeds the %s budget of %s",
			trace.FormatBytes(ws), e.budgetName, trace.FormatBytes(e.model.Capacity()))
		if !e.caps.ExactFallback {
			return fmt.Errorf("%s; raise --mem", msg)
		}
		e.fallback(msg)
		onDevice = false
	}
	err := e.place(op, onDevice)
	e.logOp(op)
	if err != nil {
		return err
	}
	e.observe(op)
	return e.strategy.After(e.view(), op)
}

// place runs op on the accelerator or the host. On the accelerator, the
// op's operands come first (on demand when not resident), then the
// strategy prefetches for the window, then the result is allocated and
// the kernel launched; the operands stay pinned throughout. Prefetching
// here rather than after the op means the previous op's dying operands
// are already released.
func (e *Engine) place(op *refs.Op, onDevice bool) error {
	var sbuf [4]*RefState
	ins := sbuf[:0]
	for _, in := range op.Inputs {
		s := e.state(in)
		s.pins++
		ins = append(ins, s)
	}
	defer func() {
		for _, s := range ins {
			s.pins--
		}
	}()
	if onDevice {
		err := e.fetchOperands(op, ins)
		if oom, ok := err.(*oomError); ok {
			if !e.caps.ExactFallback {
				return oom
			}
			e.fallback(oom.Error())
			onDevice = false
		} else if err != nil {
			return err
		}
	}
	if e.model != nil {
		if err := e.strategy.Prefetch(e.view()); err != nil {
			return err
		}
	}
	if onDevice {
		err := e.launch(op, ins)
		oom, ok := err.(*oomError)
		if !ok {
			return err
		}
		if !e.caps.ExactFallback {
			return oom
		}
		e.fallback(oom.Error())
	}
	return e.runOnHost(op)
}

// oomError is a failure to make room, which sends the op to the host.
type oomError struct{ msg string }

func (o *oomError) Error() string { return o.msg }

func (e *Engine) fallback(reason string) {
	e.emit(trace.Event{T: e.now(), Kind: trace.Fallback, Device: HostDevice, Ref: e.cur.Out.ID(), Bytes: e.workingSet(e.cur), Reason: reason})
}

// workingSet is the bytes of op's distinct inputs and output, less the
// output when it may take over a dying input's buffer.
func (e *Engine) workingSet(op *refs.Op) int64 {
	n := op.Out.Bytes()
	for i, in := range op.Inputs {
		if !repeated(op.Inputs, i) {
			n += in.Bytes()
		}
	}
	if e.inplaceInput(op) >= 0 {
		n -= op.Out.Bytes()
	}
	return n
}

// inplaceInput is the index of an input whose buffer op's output may take
// over (it dies at this op and has the output's meta), or -1; always -1
// on an accelerator without Caps.InPlace.
func (e *Engine) inplaceInput(op *refs.Op) int {
	if e.model != nil && !e.caps.InPlace {
		return -1
	}
	return inplaceCandidate(op)
}

// inplaceCandidate is inplaceInput on a device that computes in place.
func inplaceCandidate(op *refs.Op) int {
	for _, i := range op.Def().Inplace {
		if i >= len(op.Inputs) {
			continue
		}
		in := op.Inputs[i]
		if in.Count() == 1 && in.DType() == op.Out.DType() && in.Shape().Equal(op.Out.Shape()) {
			return i
		}
	}
	return -1
}

// inplaceOf is inplaceInput(op), with the comparison of metas done once
// when op entered the window.
func (e *Engine) inplaceOf(op *refs.Op) int {
	return e.inplaceWith(op, e.State(op.Out))
}

// inplaceWith is inplaceOf(op) given the state of op's result (nil when
// it has none).
func (e *Engine) inplaceWith(op *refs.Op, s *RefState) int {
	if s == nil || !s.costed || len(op.Def().Inplace) > 8 {
		return e.inplaceInput(op)
	}
	for m := s.inplace; m != 0; m &= m - 1 {
		if i := op.Def().Inplace[bits.TrailingZeros8(m)]; i < len(op.Inputs) && op.Inputs[i].Count() == 1 {
			return i
		}
	}
	return -1
}

// inplaceMetas is the bit set of op.Def().Inplace's entries that name an
// input with the output's meta (see RefState.inplace); empty on an
// accelerator without Caps.InPlace.
func (e *Engine) inplaceMetas(op *refs.Op) uint8 {
	var m uint8
	if e.model != nil && !e.caps.InPlace {
		return 0
	}
	for k, i := range op.Def().Inplace {
		if k >= 8 {
			break
		}
		if i < len(op.Inputs) {
			if in := op.Inputs[i]; in.DType() == op.Out.DType() && in.Shape().Equal(op.Out.Shape()) {
				m |= 1 << k
			}
		}
	}
	return m
}

// observe feeds the forecast with op's reads and marks prefetched copies
// as used.
func (e *Engine) observe(op *refs.Op) {
	if e.fc.sites == nil {
		e.fc.sites = map[refs.Site]uint32{}
	}
	if !e.observed {
		// Before the first observation there is no prediction to queue.
		_, e.fc.queueing = e.strategy.(PredictionReader)
		e.observed = true
	}
	var site uint32
	if s := e.State(op.Out); s != nil && s.site != 0 {
		site = s.site // interned when op entered the window
	} else {
		site = e.fc.site(op.Site)
	}
	for i, in := range op.Inputs {
		if in.State() == refs.Freed || repeated(op.Inputs, i) {
			continue
		}
		if s := e.State(in); s != nil {
			s.lastUse = op.Seq
			e.fc.observe(s, site, op.Seq)
			forgetKey(s) // its forecast changed
		}
	}
	if e.fc.compactDue() {
		e.fc.compact(e.states, op.Seq)
	}
}

// logOp appends op to the trace's op log for the Belady reference.
func (e *Engine) logOp(op *refs.Op) {
	if e.rec == nil {
		return
	}
	var buf [4]trace.Use
	ins := buf[:0]
	inplace := -1
	ip := e.inplaceInput(op)
	for i, in := range op.Inputs {
		if repeated(op.Inputs, i) {
			continue
		}
		if i == ip {
			inplace = len(ins)
		}
		ins = append(ins, trace.Use{Ref: in.ID(), Bytes: in.Bytes()})
	}
	e.rec.LogOp(ins, trace.Use{Ref: op.Out.ID(), Bytes: op.Out.Bytes()}, inplace,
		trace.OpCost{Flops: e.opFlops(op), Bytes: opBytes(op)})
}

// flops is op's compute work from its cost function, 0 when it has none.
// metas is scratch space, returned for reuse.
func flops(op *refs.Op, metas []tensor.Meta) (int64, []tensor.Meta) {
	if op.Def().Flops == nil || op.Cancelled() {
		return 0, metas
	}
	metas = metas[:0]
	for _, in := range op.Inputs {
		metas = append(metas, in.Meta())
	}
	return op.Def().Flops(metas, op.Out.Meta(), op.Attrs), metas
}

// opFlops is op's compute work, computed once when it entered the window.
func (e *Engine) opFlops(op *refs.Op) int64 {
	if s := e.State(op.Out); s != nil && s.costed {
		return s.flops
	}
	n, metas := flops(op, e.metas)
	e.metas = metas
	return n
}

// opBytes is the bytes op reads and writes.
func opBytes(op *refs.Op) int64 {
	n := op.Out.Bytes()
	for _, in := range op.Inputs {
		n += in.Bytes()
	}
	return n
}

// lose tells a Watcher strategy that a ref the window's op of sequence
// next reads (any op for 0) is not on the accelerator although it may
// have been when the strategy last looked.
func (e *Engine) lose(next uint64) {
	if e.watcher != nil {
		e.watcher.Lost(next)
	}
}

// runOnHost runs op with the cpu kernels. Inputs held only by the
// accelerator are copied back first (ToHost, through the runtime).
func (e *Engine) runOnHost(op *refs.Op) error {
	e.lose(0) // the result is not on the accelerator
	start := time.Now()
	wallStart := int64(0)
	if e.wall {
		wallStart = e.dev.Now()
	}
	if err := cpu.ExecuteOnHost(e.rt, op, true); err != nil {
		return err
	}
	out := e.state(op.Out)
	var span device.Span
	switch {
	case e.model != nil:
		ready := int64(0)
		for _, in := range op.Inputs {
			if s := e.State(in); s != nil {
				ready = max(ready, s.hostReady)
			}
		}
		host := e.model.Host()
		span = e.model.HostOp(e.opFlops(op), opBytes(op), ready)
		out.hostReady = span.End
		if e.wall {
			span = device.Span{Start: wallStart, End: e.dev.Now()}
		} else if span.Start > host {
			e.emit(trace.Event{T: host, Dur: span.Start - host, Kind: trace.Stall, Device: HostDevice, Stream: trace.StreamHost,
				Reason: "host op waits for its inputs' copies"})
		}
	default:
		span.End = int64(time.Since(e.wallStart))
		span.Start = span.End - int64(time.Since(start))
		out.hostReady = span.End
	}
	e.emit(trace.Event{T: span.Start, Kind: trace.OpStart, Device: HostDevice, Stream: trace.StreamHost, Ref: op.Out.ID(), Bytes: op.Out.Bytes()})
	e.emit(trace.Event{T: span.Start, Dur: span.Dur(), Kind: trace.OpEnd, Device: HostDevice, Stream: trace.StreamHost, Ref: op.Out.ID(), Bytes: op.Out.Bytes()})
	e.hostCounter(span.End)
	return nil
}

// fetchOperands makes op's operands resident on the accelerator, fetching
// the missing ones on demand. An *oomError means nothing could make room.
func (e *Engine) fetchOperands(op *refs.Op, ins []*RefState) error {
	for i, s := range ins {
		if repeated(op.Inputs, i) {
			continue
		}
		if s.buf != nil {
			reason := "resident"
			if s.prefetched {
				reason = "prefetched"
				if s.fromForecast {
					reason = "prefetched on forecast"
				}
				s.prefetched, s.fromForecast = false, false
			}
			e.emit(trace.Event{T: e.now(), Kind: trace.Hit, Device: e.devName, Ref: s.ref.ID(), Bytes: s.Bytes(), Reason: reason})
			e.resident.touch(s)
			continue
		}
		if e.tracing {
			e.emit(trace.Event{T: e.now(), Kind: trace.Miss, Device: e.devName, Ref: s.ref.ID(), Bytes: s.Bytes(), Reason: "not on " + e.devName + ": fetch on demand"})
		}
		if err := e.fetch(s, op.Seq, roomFor{what: "operand of", op: op}); err != nil {
			return err
		}
	}
	return nil
}

// launch allocates op's result on the accelerator (taking over a dying
// operand's buffer when it may) and runs the kernel there. Its operands
// are resident.
func (e *Engine) launch(op *refs.Op, ins []*RefState) error {
	out := e.state(op.Out)
	freeAt := e.model.ComputeFree()
	ready := freeAt
	var waitFor *RefState
	for _, s := range ins {
		if s.buf.ReadyAt > ready {
			ready, waitFor = s.buf.ReadyAt, s
		}
	}
	if ip := e.inplaceInput(op); ip >= 0 && ins[ip].pins == 1 && ins[ip].buf != nil {
		// The dying input's buffer becomes the output's.
		donor := ins[ip]
		out.buf, donor.buf = donor.buf, nil
		donor.prefetched = false
		e.resident.remove(donor)
		donor.ref.Copies = nil
		// The shapes are equal (inplaceInput): the buffer's header fits.
	} else {
		if err := e.makeRoom(op.Out.Bytes(), op.Seq, op, roomFor{what: "result of", op: op}, true); err != nil {
			return err
		}
		buf, err := e.alloc(out, ready)
		if err != nil {
			return err
		}
		out.buf = buf
	}
	e.resident.pushBack(out)
	var bbuf [4]*device.Buffer
	var mbuf [4]device.Memory
	bufs, mems := bbuf[:0], mbuf[:0]
	for _, s := range ins {
		b := s.buf
		if b == nil {
			b = out.buf // the in-place donor appears again among the inputs
		}
		bufs, mems = append(bufs, b), append(mems, b.Mem)
	}
	measured, err := e.dev.Run(op, out.buf.Mem, mems)
	clear(mems)
	if err != nil {
		return err
	}
	span := e.model.Run(out.buf, bufs, e.opFlops(op))
	out.setCopy(e.devName)
	if span.Start > freeAt && e.tracing && !e.wall {
		reason := "waiting for the host thread"
		switch {
		case waitFor != nil && waitFor.buf != nil && span.Start == waitFor.buf.ReadyAt:
			reason = fmt.Sprintf("waiting for the copy of ref#%d", waitFor.ref.ID())
		case span.Start == out.buf.AllocAt && out.buf.AllocAt > ready:
			reason = "waiting for memory to be released"
		}
		e.emit(trace.Event{T: freeAt, Dur: span.Start - freeAt, Kind: trace.Stall, Device: e.devName, Stream: trace.StreamCompute, Reason: reason})
	}
	span = e.shown(span, measured)
	e.emit(trace.Event{T: span.Start, Kind: trace.OpStart, Device: e.devName, Stream: trace.StreamCompute, Ref: op.Out.ID(), Bytes: op.Out.Bytes(), Work: span.Work})
	e.emit(trace.Event{T: span.Start, Dur: span.Dur(), Kind: trace.OpEnd, Device: e.devName, Stream: trace.StreamCompute, Ref: op.Out.ID(), Bytes: op.Out.Bytes(), Work: span.Work})
	e.hostCounter(span.End)
	return nil
}
