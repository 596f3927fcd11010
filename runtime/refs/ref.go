// Package refs implements TensorRefs and the promise-op runtime: every
// tensor value of a script is a *Ref whose identity never changes while its
// data moves between devices. Submit infers an op's result at once and
// queues the op in a bounded window; forcing points execute the window's
// head through an Executor (the placement engine or a plain device).
package refs

import (
	"fmt"

	"github.com/tref-lang/tref/lang/pos"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// State is a ref's lifecycle state.
type State uint8

// Ref states: a promise is Pending until its op runs, then Ready or Failed;
// Freed once its reference count reached zero and its storage was released.
const (
	Pending State = iota
	Ready
	Failed
	Freed
)

func (s State) String() string {
	return [...]string{"pending", "ready", "failed", "freed"}[s]
}

// Site says which script position asked for an op or created a ref. Path
// identifies the call path (the evaluator's interned chain of call sites),
// so that the same source line reached through different calls can be told
// apart by the forecast.
type Site struct {
	Pos  pos.Pos // the zero Pos when none; a label (no line) outside scripts
	Path uint32
}

// DeviceCopy is one copy of a ref's data on an accelerator. The executor
// that owns the device creates, validates and drops copies.
type DeviceCopy struct {
	Device string
	Buf    any
	Valid  bool
}

// Ref is a TensorRef.
type Ref struct {
	id    uint64
	meta  tensor.Meta
	state State
	op    *Op
	err   error
	rc    int32
	site  Site

	// host is the host copy, valid when hostValid.
	host      *tensor.Dense
	hostValid bool
	// imm marks a constant made from a number (Runtime.Constant).
	imm bool
	// cid is the ref's ConstID, 0 for an op's result.
	cid uint64
	// lazy loads the host copy on first use (the disk tier); lazyDone,
	// when set, is called once when the loader is no longer needed.
	lazy     func() (*tensor.Dense, error)
	lazyDone func()
	// Copies are the accelerator copies, managed by the Executor.
	Copies []DeviceCopy

	// Aux is the executor's private bookkeeping (placement state).
	Aux any
}

// ID is the ref's stable identity.
func (r *Ref) ID() uint64 { return r.id }

// ConstID is nonzero for a ref whose data was given when it was made
// (FromHost, Lazy, Constant) rather than computed by an op: an identity
// unique in the process and never reused, under which a backend may keep
// what it derives from the data (a packed GEMM weight) across the ops
// that read it. A ref's data never changes while the ref lives (an op
// takes over an input's buffer only when that input dies), wherever the
// placement engine moves it; 0 for an op's result, which is new on every
// call.
func (r *Ref) ConstID() uint64 { return r.cid }

// Meta is the ref's shape and dtype, known from the moment it was created.
func (r *Ref) Meta() tensor.Meta { return r.meta }

// Shape is shorthand for Meta().Shape.
func (r *Ref) Shape() tensor.Shape { return r.meta.Shape }

// DType is shorthand for Meta().DType.
func (r *Ref) DType() tensor.DType { return r.meta.DType }

// Bytes is the storage size of the ref's data.
func (r *Ref) Bytes() int64 { return r.meta.Bytes() }

// State is the ref's lifecycle state.
func (r *Ref) State() State { return r.state }

// Op is the producing op while the ref is pending, else nil.
func (r *Ref) Op() *Op { return r.op }

// Err is the failure of a Failed ref.
func (r *Ref) Err() error { return r.err }

// Count is the current reference count.
func (r *Ref) Count() int32 { return r.rc }

// Site is where the ref was created.
func (r *Ref) Site() Site { return r.site }

// Host returns the valid host copy, or nil when there is none (the data is
// only on a device, still pending, or not yet loaded from disk).
func (r *Ref) Host() *tensor.Dense {
	if r.hostValid {
		return r.host
	}
	return nil
}

// HostBuffer returns the host buffer even when it is stale, so an executor
// can copy device data back into it without a new allocation.
func (r *Ref) HostBuffer() *tensor.Dense { return r.host }

// Lazy reports whether the data still waits on disk.
func (r *Ref) Lazy() bool { return r.lazy != nil && !r.hostValid }

// Device returns where the data is now: the first device holding a valid
// copy, "cpu" when only the host holds it, "disk" when not loaded yet, or
// "" while pending.
func (r *Ref) Device() string {
	for _, c := range r.Copies {
		if c.Valid {
			return c.Device
		}
	}
	switch {
	case r.hostValid:
		return "cpu"
	case r.lazy != nil:
		return "disk"
	}
	return ""
}

func (r *Ref) String() string {
	return fmt.Sprintf("ref#%d %v %v", r.id, r.meta, r.state)
}

// Op is a promise op queued in the window.
type Op struct {
	// Seq numbers ops in program order, from 1.
	Seq uint64
	// Op is what runs.
	Op     ops.Op
	Inputs []*Ref
	Attrs  any
	Out    *Ref
	Site   Site
	// cancelled ops lost their result before running and are skipped.
	cancelled bool
}

// Def is the description of the op that runs.
func (o *Op) Def() *ops.Def { return o.Op.Def() }

// Cancelled reports whether the op's result died before it ran.
func (o *Op) Cancelled() bool { return o.cancelled }

// OpError is an op that failed at execution, with the script position that
// submitted it.
type OpError struct {
	Op   string
	Site Site
	Err  error
}

func (e *OpError) Error() string { return e.Op + ": " + e.Err.Error() }

func (e *OpError) Unwrap() error { return e.Err }

// Position is the script position that submitted the op, and Message the
// error: a printer (lang/diag) places the error there.
func (e *OpError) Position() pos.Pos { return e.Site.Pos }
func (e *OpError) Message() string   { return e.Error() }
