// Package cuda is tref's CUDA data plane: tensors in device memory,
// copies between tref's host buffers and the device on a non-blocking
// copy stream beside the compute stream that the kernels run on, and an
// event for every dependency between them.
//
// The plane talks to CUDA only through Runtime, the few runtime API
// functions it needs. Two implement it: the real libcudart, resolved at
// run time (Load: no CUDA headers or libraries at build time), and Fake,
// a Go model of the same calls whose streams run their work as late as
// the recorded dependencies allow and whose fresh memory is NaN, so that
// a missing wait changes the numbers on a machine without a GPU.
//
// The ordering rules the plane keeps (see Plane):
//   - a copy in completes before the first kernel that reads it;
//   - a kernel completes before a copy out of its result;
//   - a copy out completes before the host reads the staging buffer;
//   - device memory is freed (stream-ordered, on the compute stream) only
//     after every copy that used it, and a staging buffer is reused only
//     after the copy that used it completed;
//   - a host block pinned in place (the runtime's own buffer, copied from
//     without staging) is overwritten or unpinned only after the copies
//     reading it completed (refs.HostWatcher tells the plane when); a
//     block being pinned (off the engine's thread) is copied from only
//     once its pinning landed, and dropped only after it did;
//   - a copy in whose staging memcpy a worker does (stager.go) is issued
//     only after the memcpy, and before any kernel, copy out or free of
//     its tensor; its staging buffer is reused, and the host block it
//     reads overwritten or dropped, only after the memcpy; a chunk that
//     waits for a staging buffer (the pool full) gets one, and goes to
//     the worker, before any of those too. With StageWait its copy is
//     issued at once instead, behind a wait on the copy stream for the
//     word the worker stores after the memcpy.
package cuda

// Ptr is a device address.
type Ptr uintptr

// Stream is a CUDA stream (0 is the legacy default stream, on which
// libtorch's kernels run unless told otherwise).
type Stream uintptr

// Event is a CUDA event.
type Event uintptr

// Runtime is the part of the CUDA runtime API the plane uses. Host
// memory is passed as Go slices over pinned memory: from HostAlloc, or Go
// memory pinned by HostRegister.
// Errors carry cudaGetErrorString's text.
type Runtime interface {
	// SetDevice makes device n current on the calling thread.
	SetDevice(n int) error
	// MemGetInfo is the device's free and total memory in bytes.
	MemGetInfo() (free, total int64, err error)
	// StreamCreateNonBlocking makes a stream that does not synchronise
	// with the legacy default stream.
	StreamCreateNonBlocking() (Stream, error)
	// StreamDestroy releases s once its work completes.
	StreamDestroy(s Stream) error
	// StreamSynchronize waits for all work issued on s.
	StreamSynchronize(s Stream) error
	// EventCreate makes an event with timing.
	EventCreate() (Event, error)
	// EventDestroy releases e (work waiting on it is unaffected).
	EventDestroy(e Event) error
	// EventRecord captures the work issued on s so far in e.
	EventRecord(e Event, s Stream) error
	// EventSynchronize waits until e's captured work completed.
	EventSynchronize(e Event) error
	// EventQuery reports whether e's captured work completed.
	EventQuery(e Event) (bool, error)
	// EventElapsed is the time from a to b in milliseconds; both
	// completed.
	EventElapsed(a, b Event) (float32, error)
	// StreamWaitEvent makes later work on s wait for e's captured work.
	StreamWaitEvent(s Stream, e Event) error
	// MallocAsync allocates n bytes, ordered on s.
	MallocAsync(n int64, s Stream) (Ptr, error)
	// FreeAsync frees p once the work issued on s before it completed.
	FreeAsync(p Ptr, s Stream) error
	// HostAlloc allocates n bytes of pinned host memory.
	HostAlloc(n int64) ([]byte, error)
	// FreeHost frees pinned memory from HostAlloc.
	FreeHost(b []byte) error
	// HostRegister pins b, Go memory the caller keeps alive and
	// unchanged while copies read it, for copies straight from (or
	// into) it, in every CUDA context. A failure leaves no error behind
	// for later calls to report.
	HostRegister(b []byte) error
	// HostUnregister unpins b (registered by HostRegister, with no copy
	// still using it).
	HostUnregister(b []byte) error
	// CopyH2D copies src (pinned) to dst, ordered on s; src is read
	// when the copy runs.
	CopyH2D(dst Ptr, src []byte, s Stream) error
	// CopyD2H copies src to dst (pinned), ordered on s; dst holds the
	// data when the copy completed.
	CopyD2H(dst []byte, src Ptr, s Stream) error
	// HostAllocMapped allocates n bytes of pinned host memory that the
	// device reads too (a word a stream waits on), zeroed, with its
	// device address.
	HostAllocMapped(n int64) ([]byte, Ptr, error)
	// StreamWaitValue makes s wait, before the work issued on it after,
	// until the 32-bit word at p (in HostAllocMapped's memory) is at
	// least v (cuStreamWaitValue32); an error says the driver cannot.
	StreamWaitValue(s Stream, p Ptr, v uint32) error
}
