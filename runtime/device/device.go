// Package device is the seam between tref's placement engine and the
// accelerators it places tensors on. A Device is a data plane: it holds
// tensors in its own memory, copies them in from and out to host buffers,
// and runs ops on them. It does not decide anything: the engine
// (runtime/placement) decides where every op runs and what is resident,
// planning with the device's cost model on a Model, a virtual clock of
// its copy and compute engines and of its memory over time. The engine,
// its strategies, middleware and traces are the same code for every
// device; only the data plane differs.
//
// Devices register a Kind in their own package (runtime/backend/sim,
// runtime/backend/torch), and Parse is the one parser of --device
// values. The simulated device's times are the model's; real devices
// report wall-clock times measured as their work runs (Clock).
package device

import (
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Memory is a device's storage for one tensor: simulated memory, a
// libtorch tensor. Only the device that made it looks inside.
type Memory any

// Device is an accelerator's data plane. The engine calls it from the
// runtime's single host thread, in program order.
//
// Work may complete after a call returns (a copy engine or a compute
// stream running behind the host) as long as the device orders it: a copy
// in completes before any op that reads its memory; an op completes
// before a copy out of its result; memory passed to Free is reused only
// after every copy and op issued on it completes. A device with
// asynchronous streams keeps events for this; a synchronous one (the
// simulated device, libtorch on the CPU) has nothing to wait for.
type Device interface {
	// Name is the device as traces and memstats show it: "sim:0",
	// "torch:cpu", "cuda:1".
	Name() string
	// Caps says what the device can do, for the engine's decisions.
	Caps() Caps
	// Supports is "" when Run can execute op, else why not (the engine
	// then runs op on the host, a fallback).
	Supports(op *refs.Op) string
	// Holds reports whether the device can hold tensors of dtype dt (the
	// engine prefetches nothing else).
	Holds(dt tensor.DType) bool
	// Alloc takes memory for a tensor of meta m; the engine has checked
	// the budget. The memory may be backed only when a copy or op first
	// writes it.
	Alloc(m tensor.Meta) (Memory, error)
	// Free returns mem. Freeing memory that was never written is allowed.
	Free(mem Memory)
	// CopyIn copies host data src into dst. src may be changed or freed
	// once CopyIn returns (an asynchronous device stages it first), but
	// for a device bound to the runtime's host pool (refs.HostBinder):
	// it may read the runtime's host blocks straight, later, until the
	// pool tells it their bytes change (refs.HostWatcher).
	CopyIn(dst Memory, src *tensor.Dense) (Span, error)
	// CopyOut copies src into the host buffer dst, which holds the data
	// when CopyOut returns.
	CopyOut(dst *tensor.Dense, src Memory) (Span, error)
	// Run computes op into out from ins, one per op.Inputs entry (an
	// input repeated in op.Inputs is repeated here). With Caps.InPlace,
	// out may be one of ins.
	Run(op *refs.Op, out Memory, ins []Memory) (Span, error)
	// Sync waits until all issued work has completed.
	Sync() error
	// Now is the device's clock in nanoseconds since it was opened
	// (0 on a virtual-clock device, whose times come from the model).
	Now() int64
	// Stats counts the memory the device holds for tref.
	Stats() refs.PoolStats
	// Close releases the device; nothing may be live.
	Close() error
}

// Caps are a device's capabilities, which the engine's decisions depend
// on (with the cost model, and nothing else about the device).
type Caps struct {
	// Clock says whose times a trace shows: the model's (Virtual) or
	// the ones the device measured (Wall).
	Clock Clock
	// InPlace: an op allowed to (ops.Def.Inplace) may write its result
	// into a dying operand's memory, which then needs no room of its
	// own. Without it every op result takes new memory.
	InPlace bool
	// ExactFallback: the host's kernels give bit-identical results to
	// the device's, so an op that cannot fit the budget may run on the
	// host instead. Without it, such an op is an error: a budget that
	// silently changed the numbers would not be a budget.
	ExactFallback bool
	// Memory is the budget when none is asked for (--mem): the device's
	// memory, or what tref may take of it, or Unbounded.
	Memory int64
	// StagedCopies: copies go through pinned staging memory (a CUDA
	// data plane's memcpy), and CopyIn on a device not bound to a host
	// pool (as Calibrate's) returns once the caller's thread has staged
	// the bytes, the transfer completing later, so Calibrate measures the
	// staging as the cost model's StagingBandwidth. Without it a copy
	// costs nothing beyond the copy itself.
	StagedCopies bool
}

// Unbounded is the budget of a device that keeps every tensor resident
// until libtorch's allocator says no (traces print it as "unbounded").
const Unbounded = 1 << 62

// Clock is where the times of a device's trace come from.
type Clock uint8

const (
	// Virtual times are the model's: deterministic, from the cost model.
	Virtual Clock = iota
	// Wall times are measured on the host's monotonic clock.
	Wall
)

func (c Clock) String() string {
	if c == Wall {
		return "wall"
	}
	return "virtual"
}

// Span is when a piece of work ran, in nanoseconds on a device's clock
// (virtual, or since the device was opened).
type Span struct {
	Start, End int64
	// Work, on a Measurer measuring, names the work so that its measured
	// span can be asked for after Sync; Start and End are then when the
	// host issued it. 0 otherwise.
	Work uint64
}

// Measurer is a device whose work runs behind the host (CUDA streams), so
// that the span a call returns is when the host issued the work, not
// when it ran. Measuring on, it records when each op and copy really ran
// (CUDA events) and, after Sync, Measured gives that span once, on the
// device's clock.
type Measurer interface {
	// Measure turns the recording on or off.
	Measure(on bool) error
	// Measured is the span work ran in, known after a Sync that
	// followed it; ok is false otherwise. Each work is given once.
	Measured(work uint64) (s Span, ok bool)
}

// Dur is the span's length.
func (s Span) Dur() int64 { return s.End - s.Start }
