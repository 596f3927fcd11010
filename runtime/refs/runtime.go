package refs

import (
	"errors"
	"fmt"
	"sort"
	"sync/atomic"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Executor runs ops and owns every device other than the host. The plain
// cpu device and the placement engine implement it.
type Executor interface {
	// Execute computes op.Out from op.Inputs, all of them ready. ahead is
	// the rest of the window in program order, for lookahead; it must not be
	// modified. On success op.Out must hold a valid copy somewhere (use
	// Runtime.SetHost or a DeviceCopy).
	Execute(rt *Runtime, op *Op, ahead []*Op) error
	// ToHost makes r's host copy valid (copying back from a device).
	ToHost(rt *Runtime, r *Ref) error
	// Drop releases r's device copies; called once when r dies.
	Drop(rt *Runtime, r *Ref)
	// Sync finishes outstanding device work (end of script, forcing).
	Sync(rt *Runtime) error
	// Stats reports per-device counters, for memstats().
	Stats() []DeviceStats
}

// Hinter is implemented by executors that take placement hints: the
// builtins hint_keep(x) and hint_offload(x) call Hint(rt, ref, "keep",
// site) and Hint(rt, ref, "offload", site) when the executor has it, and
// do nothing otherwise ("auto" clears a hint). site is the call's
// position, for the trace.
type Hinter interface {
	Hint(rt *Runtime, r *Ref, hint string, site Site) error
}

// DeviceStats is one device's line of memstats().
type DeviceStats struct {
	Device string
	PoolStats
}

// Options configure a Runtime.
type Options struct {
	// Lookahead bounds the window in ops; 0 executes every op at once.
	Lookahead int
	// WindowBytes bounds the bytes of pending results in the window.
	WindowBytes int64
	// TrackRefs records every live ref so leaks can be reported by site.
	TrackRefs bool
}

// DefaultLookahead is the window size when none is configured.
const DefaultLookahead = 64

// Runtime owns the refs of one script run.
type Runtime struct {
	opts   Options
	exec   Executor
	host   *HostPool
	window []*Op
	// winBuf is the whole array the window lies in, which the window
	// starts at again whenever it empties.
	winBuf []*Op
	// winBytes is the sum of pending result bytes in the window.
	winBytes int64
	nextID   uint64
	nextSeq  uint64
	live     int64
	tracked  map[*Ref]struct{}
	// metas is Submit's scratch list of input metas, reused so that the
	// per-op path does not allocate it.
	metas []tensor.Meta
	// onLoad observes disk->host loads of lazy refs (see SetLoadObserver).
	onLoad func(LoadEvent)
	// obs sees creations and reads in program order (see SetObserver);
	// executing is set while an executor runs an op, so that its reads of
	// the op's inputs are not taken for the program's reads.
	obs       Observer
	executing bool
	// holds counts the callers holding the window open (Hold).
	holds int
	// rec sees every submitted op (see SetRecorder).
	rec Recorder
	// interrupted is set by Interrupt: the ops still queued fail.
	interrupted atomic.Bool
}

// ErrInterrupted is the failure of an op that Interrupt stopped before it
// ran.
var ErrInterrupted = errors.New("interrupted")

// Interrupt makes every op not yet started fail with ErrInterrupted
// instead of running, from the next op boundary on (the op running now
// finishes), until ClearInterrupt. It is safe to call from another
// goroutine (a signal handler): a statement waiting on queued ops (a
// Flush, a Read) returns soon after.
func (rt *Runtime) Interrupt() { rt.interrupted.Store(true) }

// ClearInterrupt lets ops run again after Interrupt.
func (rt *Runtime) ClearInterrupt() { rt.interrupted.Store(false) }

// Interrupted says whether Interrupt was called since the last
// ClearInterrupt: a frontend that submits ops in a loop of its own (an
// ONNX Loop) stops submitting then.
func (rt *Runtime) Interrupted() bool { return rt.interrupted.Load() }

// New makes a runtime that executes through exec.
func New(exec Executor, opts Options) *Runtime {
	if opts.WindowBytes == 0 {
		opts.WindowBytes = 1 << 30
	}
	rt := &Runtime{opts: opts, exec: exec, host: NewHostPool()}
	if b, ok := exec.(HostBinder); ok {
		b.BindHost(rt.host)
	}
	if opts.TrackRefs {
		rt.tracked = map[*Ref]struct{}{}
	}
	return rt
}

// HostPool is the host's allocator.
func (rt *Runtime) HostPool() *HostPool { return rt.host }

// Executor returns the executor.
func (rt *Runtime) Executor() Executor { return rt.exec }

// Window is the queue of pending ops, oldest first. Read-only.
func (rt *Runtime) Window() []*Op { return rt.window }

// LiveRefs is the number of refs not yet freed.
func (rt *Runtime) LiveRefs() int64 { return rt.live }

func (rt *Runtime) newRef(m tensor.Meta, site Site) *Ref {
	r := &Ref{}
	rt.initRef(r, m, site)
	return r
}

// initRef sets up r, which must be zero. Fields are set one by one: a
// whole-struct store would run the GC's bulk write barrier on every op.
func (rt *Runtime) initRef(r *Ref, m tensor.Meta, site Site) {
	rt.nextID++
	rt.live++
	r.id, r.meta, r.rc, r.site = rt.nextID, m, 1, site
	if rt.tracked != nil {
		rt.tracked[r] = struct{}{}
	}
}

// promise is a submitted op's result ref and the op itself, allocated
// together (one allocation per op on the hot path of small ops), with room
// for the inputs of most ops. The op's input slots are cleared once it has
// run or been cancelled, so a long-lived result does not keep a chain of
// dead refs reachable.
type promise struct {
	ref Ref
	op  Op
	ins [3]*Ref
}

// Submit queues op over ins and returns its promise ref, holding one
// reference for the caller. Shape and dtype are inferred now: a mismatch is
// returned at once, before anything runs.
func (rt *Runtime) Submit(site Site, op ops.Op, attrs any, ins ...*Ref) (*Ref, error) {
	return rt.submit(site, op, attrs, tensor.Meta{}, false, ins)
}

// SubmitInferred is Submit for a caller that already knows the result's
// meta out: a replay of ops whose metas were inferred by Submit on inputs
// of the same metas (the ONNX frontend's plans). It skips the inference
// (and out is not checked against the inputs); out's shape may be shared
// by the results of every replay, as shapes are never modified.
func (rt *Runtime) SubmitInferred(site Site, op ops.Op, attrs any, out tensor.Meta, ins ...*Ref) (*Ref, error) {
	return rt.submit(site, op, attrs, out, true, ins)
}

func (rt *Runtime) submit(site Site, op ops.Op, attrs any, out tensor.Meta, known bool, ins []*Ref) (*Ref, error) {
	def := op.Def()
	if def.TakesScalar && attrs == nil {
		if k := immediateAt(ins); k >= 0 {
			attrs, ins = immediate(ins, k)
		}
	}
	for _, in := range ins {
		if in.state == Freed {
			return nil, fmt.Errorf("%s: input ref#%d was already freed", def.Name, in.id)
		}
		if in.state == Failed {
			return nil, in.err
		}
	}
	if !known {
		metas := rt.metas[:0]
		for _, in := range ins {
			metas = append(metas, in.meta)
		}
		var err error
		out, err = def.Infer(metas, attrs)
		rt.metas = metas[:0] // keeps the last op's metas (small) until reused
		if err != nil {
			return nil, err
		}
	}
	if _, err := tensor.CheckedNumel(out.Shape); err != nil {
		return nil, err
	}
	if err := rt.host.Check(out.Bytes()); err != nil {
		return nil, err
	}
	p := &promise{}
	r, q := &p.ref, &p.op
	rt.initRef(r, out, site)
	rt.nextSeq++
	inputs := p.ins[:0]
	if len(ins) > len(p.ins) {
		inputs = make([]*Ref, 0, len(ins))
	}
	q.Seq, q.Op, q.Inputs, q.Attrs, q.Out, q.Site = rt.nextSeq, op, append(inputs, ins...), attrs, r, site
	for _, in := range ins {
		in.rc++
	}
	r.op = q
	if rt.obs != nil {
		rt.obs.Created(r, q)
	}
	if rt.rec != nil {
		rt.rec.Submitted(q)
	}
	moves := len(rt.window) == cap(rt.window) // append moves the window to a new array
	rt.window = append(rt.window, q)
	if moves {
		rt.winBuf = rt.window[:cap(rt.window)]
	}
	rt.winBytes += out.Bytes()
	for (len(rt.window) > rt.opts.Lookahead && rt.holds == 0) || (rt.winBytes > rt.opts.WindowBytes && len(rt.window) > 0) {
		if err := rt.step(); err != nil {
			return r, nil // the failure is recorded on the ref and surfaces when forced
		}
	}
	return r, nil
}

// step executes the op at the head of the window.
func (rt *Runtime) step() error {
	op := rt.window[0]
	rt.window[0] = nil
	rt.window = rt.window[1:]
	if len(rt.window) == 0 {
		// Start again at the front of the array (an empty window's
		// executor sees no op that a new one could overwrite).
		rt.window = rt.winBuf[:0]
	}
	out := op.Out
	rt.winBytes -= out.meta.Bytes()
	if op.cancelled {
		return nil
	}
	var err error
	for _, in := range op.Inputs {
		if in.state == Failed {
			err = in.err
			break
		}
	}
	if err == nil && rt.interrupted.Load() {
		err = &OpError{Op: op.Op.Name(), Site: op.Site, Err: ErrInterrupted}
	} else if err == nil {
		rt.executing = true
		err = rt.exec.Execute(rt, op, rt.window)
		rt.executing = false
		if err != nil {
			err = &OpError{Op: op.Op.Name(), Site: op.Site, Err: err}
		}
	}
	out.op = nil
	if err != nil {
		out.state, out.err = Failed, err
	} else {
		out.state = Ready
	}
	for _, in := range op.Inputs {
		rt.Release(in)
	}
	dropRefs(op.Inputs)
	op.Inputs = nil
	return err
}

// dropRefs nils the few entries of an op's input list. (clear() would run
// the GC's bulk write barrier, which costs more for two or three slots.)
func dropRefs(ins []*Ref) {
	for i := len(ins) - 1; i >= 0; i-- {
		ins[i] = nil
	}
}

// Force executes the window up to and including r's producing op, and
// returns r's failure if it failed.
func (rt *Runtime) Force(r *Ref) error {
	for r.state == Pending {
		if len(rt.window) == 0 {
			return fmt.Errorf("internal: ref#%d pending with an empty window", r.id)
		}
		rt.step()
	}
	if r.state == Failed {
		return r.err
	}
	if r.state == Freed {
		return fmt.Errorf("internal: ref#%d used after it was freed", r.id)
	}
	return nil
}

// Flush executes every pending op and waits for the devices. It returns
// the first failure among ops whose results are still alive.
func (rt *Runtime) Flush() error {
	var first error
	for len(rt.window) > 0 {
		op := rt.window[0]
		if err := rt.step(); err != nil && first == nil && op.Out.rc > 0 {
			first = err
		}
	}
	if err := rt.exec.Sync(rt); err != nil && first == nil {
		first = err
	}
	return first
}

// Read forces r and returns its valid host copy. The copy belongs to r:
// read it, do not keep it past r's life, do not write it.
func (rt *Runtime) Read(r *Ref) (*tensor.Dense, error) {
	if rt.obs != nil && !rt.executing {
		rt.obs.Read(r)
	}
	if err := rt.Force(r); err != nil {
		return nil, err
	}
	if r.hostValid {
		return r.host, nil
	}
	if r.lazy != nil && len(r.Copies) == 0 {
		return rt.loadLazy(r)
	}
	if err := rt.exec.ToHost(rt, r); err != nil {
		return nil, err
	}
	if !r.hostValid {
		return nil, fmt.Errorf("internal: ref#%d has no host copy after ToHost", r.id)
	}
	return r.host, nil
}

// FromHost makes a ready ref over host data (literals, random numbers,
// loaded files). The runtime takes ownership of d.
func (rt *Runtime) FromHost(site Site, d *tensor.Dense) *Ref {
	r := rt.newRef(d.Meta, site)
	r.state, r.cid = Ready, nextConstID.Add(1)
	rt.host.Adopt(d)
	r.host, r.hostValid = d, true
	if rt.obs != nil {
		rt.obs.Created(r, nil)
	}
	return r
}

// Constant makes a ready 0-d ref holding s, for a number that a builtin
// or the evaluator needs as a tensor operand. An op with a scalar form
// (ops.Def.TakesScalar) submitted over it and a tensor takes s as its
// argument (ops.ScalarOperand) and not the ref, so the number is never
// copied to a device; any other op reads the ref as usual.
func (rt *Runtime) Constant(site Site, s ops.Scalar) *Ref {
	r := rt.FromHost(site, s.Dense())
	r.imm = true
	return r
}

// immediateAt is the position of the one Constant among the two value
// operands of an op with a scalar form (its last two inputs), or -1 when
// there is none, or two, or a Constant among its other inputs.
func immediateAt(ins []*Ref) int {
	n := len(ins)
	if n < 2 || n > 3 {
		return -1
	}
	k := -1
	for i, in := range ins {
		if in.imm {
			if k >= 0 || i < n-2 {
				return -1
			}
			k = i
		}
	}
	return k
}

// immediate turns an op over a Constant (input k) and tensors into its
// scalar form: the attributes and the other inputs. The Constant is a
// number, so it takes the dtype a number takes beside the other value
// operand (ops.Scalar.Wrapped).
func immediate(ins []*Ref, k int) (any, []*Ref) {
	n := len(ins)
	other := ins[n-1]
	if k == n-1 {
		other = ins[n-2]
	}
	a := ops.ScalarOperand{Value: ops.ScalarOf(ins[k].host).Wrapped(other.meta), Left: k == n-2}
	if k == 0 {
		return a, ins[1:]
	}
	if k == len(ins)-1 {
		return a, ins[:k]
	}
	return a, []*Ref{ins[0], ins[2]}
}

// nextConstID numbers the refs made from data (Ref.ConstID) across every
// runtime of the process.
var nextConstID atomic.Uint64

// Lazy makes a ready ref whose data is loaded from disk by load on first
// use (the disk tier). load must return exactly meta m.
func (rt *Runtime) Lazy(site Site, m tensor.Meta, load func() (*tensor.Dense, error)) *Ref {
	r := rt.newRef(m, site)
	r.state, r.cid = Ready, nextConstID.Add(1)
	r.lazy = load
	if rt.obs != nil {
		rt.obs.Created(r, nil)
	}
	return r
}

// AllocHost gives an executor an uninitialised host buffer for r.
func (rt *Runtime) AllocHost(r *Ref) (*tensor.Dense, error) {
	if r.host != nil {
		return r.host, nil
	}
	d, err := rt.host.Alloc(r.meta)
	if err != nil {
		return nil, err
	}
	r.host = d
	return d, nil
}

// SetHostValid marks r's host buffer (from AllocHost) valid or stale.
func (rt *Runtime) SetHostValid(r *Ref, valid bool) {
	if valid && r.host == nil {
		panic("refs: SetHostValid without a host buffer")
	}
	r.hostValid = valid
}

// DropHost frees r's host buffer (after a device took the only valid copy,
// or when the host copy is no longer wanted). It refuses to drop the only
// valid copy.
func (rt *Runtime) DropHost(r *Ref) error {
	if r.host == nil {
		return nil
	}
	if r.hostValid {
		others := false
		for _, c := range r.Copies {
			others = others || c.Valid
		}
		if !others {
			return errors.New("refs: DropHost would lose the only valid copy")
		}
	}
	rt.host.Free(r.host)
	r.host, r.hostValid = nil, false
	return nil
}

// StealHost moves the host buffer of src (which must be dying: its only
// holder is the op being executed) to dst, for in-place execution; their
// metas must be equal. It reports whether the buffer moved.
func (rt *Runtime) StealHost(src, dst *Ref) bool {
	if !src.meta.Shape.Equal(dst.meta.Shape) || !rt.stealable(src, dst) {
		return false
	}
	rt.host.overwriting(src.host.Buf)
	dst.host = src.host // its shape equals dst's: shapes are never modified
	src.host, src.hostValid = nil, false
	return true
}

// StealHostReshaped is StealHost for an op whose result is src's bytes
// under another shape (ops.Def.KeepsBytes): the dtypes and byte counts
// must be equal, and the buffer takes dst's shape.
func (rt *Runtime) StealHostReshaped(src, dst *Ref) bool {
	if src.meta.Bytes() != dst.meta.Bytes() || !rt.stealable(src, dst) {
		return false
	}
	d := src.host
	rt.host.overwriting(d.Buf)
	d.Shape = dst.meta.Shape.Clone() // a new slice: src's shape may be shared
	dst.host = d
	src.host, src.hostValid = nil, false
	return true
}

// stealable reports whether dst may take src's host buffer: src dies at
// the op being executed (its only holder), its host copy is valid and its
// only one, dst has no buffer yet, and their dtypes agree.
func (rt *Runtime) stealable(src, dst *Ref) bool {
	return src.rc == 1 && src.hostValid && len(src.Copies) == 0 && dst.host == nil &&
		src.meta.DType == dst.meta.DType
}

// Retain adds a reference.
func (rt *Runtime) Retain(r *Ref) { r.rc++ }

// Release drops a reference; at zero the ref's storage is released on every
// device at once, and a pending op whose result died is cancelled.
func (rt *Runtime) Release(r *Ref) {
	r.rc--
	if r.rc > 0 {
		return
	}
	if r.rc < 0 {
		panic(fmt.Sprintf("refs: ref#%d released more often than retained", r.id))
	}
	if op := r.op; op != nil {
		op.cancelled = true
		ins := op.Inputs
		op.Inputs = nil
		for _, in := range ins {
			rt.Release(in)
		}
		dropRefs(ins)
		r.op = nil
	}
	rt.exec.Drop(rt, r)
	r.Copies = nil
	if r.host != nil {
		rt.host.Free(r.host)
		r.host, r.hostValid = nil, false
	}
	rt.host.forget(r.cid)
	rt.dropLazy(r)
	r.state = Freed
	rt.live--
	if rt.tracked != nil {
		delete(rt.tracked, r)
	}
}

// Leaks lists the refs still alive, oldest first (needs TrackRefs).
func (rt *Runtime) Leaks() []*Ref {
	out := make([]*Ref, 0, len(rt.tracked))
	for r := range rt.tracked {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].id < out[j].id })
	return out
}

// MemStats reports the host and every executor device.
func (rt *Runtime) MemStats() []DeviceStats {
	return append([]DeviceStats{{Device: "cpu", PoolStats: rt.host.Stats()}}, rt.exec.Stats()...)
}

// Hold keeps the ops submitted from now on queued beyond the lookahead
// (still within the window's byte bound) until the returned function is
// called: a caller that knows a whole graph before any of it runs (the
// ONNX frontend) submits all of it, so the executor sees the exact future
// of every tensor the graph reads. The window drains back to the lookahead
// at the next submit after the last hold ends, or when a value is forced.
// With a lookahead of 0 (execute at once) nothing is held.
func (rt *Runtime) Hold() (release func()) {
	if rt.opts.Lookahead == 0 {
		return func() {}
	}
	rt.holds++
	ended := false
	return func() {
		if !ended {
			ended = true
			rt.holds--
		}
	}
}
