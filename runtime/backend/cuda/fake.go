package cuda

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Fake is a Go model of Runtime for tests: streams are FIFO queues; the
// legacy default stream (the compute stream) runs its work as soon as it
// is issued, and the others only when something waits for it (an event
// or stream synchronisation on the host, or a wait recorded on the
// compute stream), so kernels run as early and copies land as late as
// the recorded dependencies allow (with CopiesFirst, the other way
// round: copies at once, kernels when waited for; with Lazy, every
// stream only when the host waits for it); device and pinned memory come
// back filled with NaN; a copy or kernel on freed memory is an error, and
// so is a copy from or to host memory that is not pinned (HostAlloc,
// HostRegister) when it is issued and when it runs. A plane that misses a
// wait reads NaN or stale bytes and its results differ.
type Fake struct {
	free     int64
	total    int64
	mem      map[Ptr][]byte
	next     Ptr
	streams  map[Stream]*fakeStream
	events   map[Event]fakeMark
	nextEv   Event
	nextSt   Stream
	err      error // the first error of work that ran (sticky, as CUDA's)
	launched int64
	clock    int64
	// mapped is HostAllocMapped's memory by its device address (under
	// pinMu).
	mapped map[Ptr][]byte
	// NoStreamWait makes StreamWaitValue fail, as a driver without
	// stream memory operations does.
	NoStreamWait bool
	// Devices is how many devices SetDevice accepts (0: one); Current
	// is the last one set.
	Devices, Current int
	// CopiesFirst runs the copy streams' work at once and the compute
	// stream's when waited for.
	CopiesFirst bool
	// Lazy runs every stream's work only when the host waits for it.
	Lazy bool
	// pinned is the host memory copies may use: HostAlloc's and
	// HostRegister's, by first byte, with its length and origin. pinMu
	// guards it and SetDevice: the plane allocates its staging buffers
	// on goroutines of their own, as CUDA's runtime lets it; every other
	// call comes from the plane's one thread.
	pinned map[*byte]pinnedRange
	pinMu  sync.Mutex
	// HostAllocs counts HostAlloc calls; HostAllocError, when set, is
	// what they return (both under pinMu); HoldHostAlloc, when set, runs
	// first in each (a slow allocation).
	HostAllocs     int64
	HostAllocError error
	HoldHostAlloc  func()
	// RegisterError and UnregisterError, when set, are what
	// HostRegister and HostUnregister return; HoldHostRegister, when
	// set, runs first in each HostRegister (a slow pinning: the plane
	// pins off its thread).
	RegisterError, UnregisterError error
	HoldHostRegister               func()
}

// pinnedRange is a range of pinned host memory.
type pinnedRange struct {
	n          int
	registered bool // by HostRegister, not from HostAlloc
}

// fakeStream is a stream's work: done counts the tasks that ran, and
// ranAt[i] is the fake's clock (tasks run so far, all streams) when
// task i finished.
type fakeStream struct {
	tasks []func()
	done  int
	ranAt []int64
}

// fakeMark is a point in a stream: the first n tasks.
type fakeMark struct {
	s Stream
	n int
}

// NewFake makes a fake device with total bytes of memory.
func NewFake(total int64) *Fake {
	f := &Fake{free: total, total: total, mem: map[Ptr][]byte{}, next: 1 << 20,
		streams: map[Stream]*fakeStream{0: {}}, events: map[Event]fakeMark{}, pinned: map[*byte]pinnedRange{},
		mapped: map[Ptr][]byte{}}
	return f
}

func (f *Fake) stream(s Stream) (*fakeStream, error) {
	st, ok := f.streams[s]
	if !ok {
		return nil, fmt.Errorf("fake cuda: no stream %d", s)
	}
	return st, nil
}

// runTo runs stream s's tasks up to (not including) n.
func (f *Fake) runTo(m fakeMark) {
	st := f.streams[m.s]
	for st != nil && st.done < m.n {
		t := st.tasks[st.done]
		st.tasks[st.done] = nil
		st.done++
		if t != nil { // nil: an event's mark, which takes no time
			t()
			f.clock++
		}
		st.ranAt = append(st.ranAt, f.clock)
	}
}

func (f *Fake) enqueue(s Stream, t func()) error {
	st, err := f.stream(s)
	if err != nil {
		return err
	}
	st.tasks = append(st.tasks, t)
	if !f.Lazy && (s == 0) != f.CopiesFirst {
		// The eager side runs at once (its recorded waits force the
		// work they wait for).
		f.runTo(fakeMark{s, len(st.tasks)})
	}
	return f.err
}

func (f *Fake) fail(format string, args ...any) {
	if f.err == nil {
		f.err = fmt.Errorf("fake cuda: "+format, args...)
	}
}

// SetDevice makes n current (devices 0 to Devices-1).
func (f *Fake) SetDevice(n int) error {
	if n < 0 || n >= max(f.Devices, 1) {
		return fmt.Errorf("fake cuda: no device %d", n)
	}
	f.pinMu.Lock()
	defer f.pinMu.Unlock()
	f.Current = n
	return nil
}

// MemGetInfo is the memory not allocated or freed.
func (f *Fake) MemGetInfo() (int64, int64, error) { return f.free, f.total, f.err }

// StreamCreateNonBlocking makes a new queue.
func (f *Fake) StreamCreateNonBlocking() (Stream, error) {
	f.nextSt++
	f.streams[f.nextSt] = &fakeStream{}
	return f.nextSt, nil
}

// StreamDestroy runs s's work and forgets it.
func (f *Fake) StreamDestroy(s Stream) error {
	if err := f.StreamSynchronize(s); err != nil {
		return err
	}
	delete(f.streams, s)
	return nil
}

// StreamSynchronize runs all of s's work.
func (f *Fake) StreamSynchronize(s Stream) error {
	st, err := f.stream(s)
	if err != nil {
		return err
	}
	f.runTo(fakeMark{s, len(st.tasks)})
	return f.err
}

// EventCreate makes an event that has captured nothing (complete).
func (f *Fake) EventCreate() (Event, error) {
	f.nextEv++
	f.events[f.nextEv] = fakeMark{}
	return f.nextEv, nil
}

// EventDestroy forgets e.
func (f *Fake) EventDestroy(e Event) error {
	if _, ok := f.events[e]; !ok {
		return fmt.Errorf("fake cuda: no event %d", e)
	}
	delete(f.events, e)
	return nil
}

// EventRecord captures s's tasks so far. As in CUDA the event is itself
// work on the stream, which takes no time: its clock is when the stream
// reached it, so an event recorded on an idle lazy stream reads the
// time the stream's next work started, not when its last work ended.
func (f *Fake) EventRecord(e Event, s Stream) error {
	if _, ok := f.events[e]; !ok {
		return fmt.Errorf("fake cuda: no event %d", e)
	}
	if err := f.enqueue(s, nil); err != nil {
		return err
	}
	f.events[e] = fakeMark{s, len(f.streams[s].tasks)}
	return f.err
}

// EventSynchronize runs the captured work.
func (f *Fake) EventSynchronize(e Event) error {
	m, ok := f.events[e]
	if !ok {
		return fmt.Errorf("fake cuda: no event %d", e)
	}
	f.runTo(m)
	return f.err
}

// EventQuery reports completion without running anything: work runs
// only when waited for.
func (f *Fake) EventQuery(e Event) (bool, error) {
	m, ok := f.events[e]
	if !ok {
		return false, fmt.Errorf("fake cuda: no event %d", e)
	}
	st := f.streams[m.s]
	return st == nil || st.done >= m.n, f.err
}

// EventElapsed is the fake's clock from a to b, a task a microsecond:
// the tasks of all streams that ran between them.
func (f *Fake) EventElapsed(a, b Event) (float32, error) {
	ta, err := f.tick(a)
	if err != nil {
		return 0, err
	}
	tb, err := f.tick(b)
	if err != nil {
		return 0, err
	}
	return float32(tb-ta) / 1000, f.err
}

// tick is the clock when the stream reached e (its captured work finished).
func (f *Fake) tick(e Event) (int64, error) {
	m, ok := f.events[e]
	if !ok {
		return 0, fmt.Errorf("fake cuda: no event %d", e)
	}
	st := f.streams[m.s]
	switch {
	case m.n == 0 || st == nil:
		return 0, nil
	case st.done < m.n:
		return 0, fmt.Errorf("fake cuda: event %d not ready", e)
	}
	return st.ranAt[m.n-1], nil
}

// StreamWaitEvent makes s run e's captured work before its later tasks.
func (f *Fake) StreamWaitEvent(s Stream, e Event) error {
	m, ok := f.events[e]
	if !ok {
		return fmt.Errorf("fake cuda: no event %d", e)
	}
	return f.enqueue(s, func() { f.runTo(m) })
}

// MallocAsync hands out NaN-filled memory at once, never at an address
// used before (a copy or kernel that runs after its memory's free fails).
func (f *Fake) MallocAsync(n int64, s Stream) (Ptr, error) {
	if _, err := f.stream(s); err != nil {
		return 0, err
	}
	if n > f.free {
		return 0, fmt.Errorf("fake cuda: out of memory (%d bytes asked, %d free)", n, f.free)
	}
	f.free -= n
	p := f.next
	f.next += Ptr(n+255) &^ 255
	f.next += 256 // a gap: no two allocations touch
	f.mem[p] = poisoned(n)
	return p, f.err
}

// FreeAsync frees p when s reaches this point.
func (f *Fake) FreeAsync(p Ptr, s Stream) error {
	if _, ok := f.mem[p]; !ok {
		return fmt.Errorf("fake cuda: free of %#x, not allocated", p)
	}
	// Stream-ordered: later allocations may count on the memory now;
	// the bytes stay readable only until the free runs.
	f.free += int64(len(f.mem[p]))
	return f.enqueue(s, func() { delete(f.mem, p) })
}

// HostAlloc makes NaN-filled pinned host memory.
func (f *Fake) HostAlloc(n int64) ([]byte, error) {
	if f.HoldHostAlloc != nil {
		f.HoldHostAlloc()
	}
	b := poisoned(n)
	f.pinMu.Lock()
	defer f.pinMu.Unlock()
	f.HostAllocs++
	if f.HostAllocError != nil {
		return nil, f.HostAllocError
	}
	if n > 0 {
		f.pinned[&b[0]] = pinnedRange{n: int(n)}
	}
	return b, nil
}

// FreeHost poisons b, so a copy still to run reads NaN, and unpins it.
func (f *Fake) FreeHost(b []byte) error {
	f.pinMu.Lock()
	defer f.pinMu.Unlock()
	if len(b) > 0 {
		if p, ok := f.pinned[&b[0]]; !ok || p.registered {
			return fmt.Errorf("fake cuda: FreeHost of memory not from HostAlloc")
		}
		delete(f.pinned, &b[0])
		delete(f.mapped, Ptr(unsafe.Pointer(&b[0])))
	}
	copy(b, poisoned(int64(len(b))))
	return nil
}

// HostAllocMapped is HostAlloc's memory, zeroed, whose device address
// is its host address.
func (f *Fake) HostAllocMapped(n int64) ([]byte, Ptr, error) {
	b, err := f.HostAlloc(n)
	if err != nil {
		return nil, 0, err
	}
	clear(b)
	p := Ptr(unsafe.Pointer(unsafe.SliceData(b)))
	f.pinMu.Lock()
	f.mapped[p] = b
	f.pinMu.Unlock()
	return b, p, nil
}

// StreamWaitValue enqueues a task on s that waits until the word at p,
// which another goroutine stores, is at least v: the work enqueued after
// it runs no earlier.
func (f *Fake) StreamWaitValue(s Stream, p Ptr, v uint32) error {
	if f.NoStreamWait {
		return fmt.Errorf("fake cuda: no stream memory operations")
	}
	f.pinMu.Lock()
	b, ok := f.mapped[p]
	f.pinMu.Unlock()
	if !ok || len(b) < 4 {
		return fmt.Errorf("fake cuda: StreamWaitValue on %#x, not mapped host memory", p)
	}
	w := (*uint32)(unsafe.Pointer(unsafe.SliceData(b)))
	return f.enqueue(s, func() {
		for atomic.LoadUint32(w) < v {
			time.Sleep(time.Microsecond)
		}
	})
}

// HostRegister pins b, which must not overlap pinned memory (CUDA's
// cudaErrorHostMemoryAlreadyRegistered).
func (f *Fake) HostRegister(b []byte) error {
	if f.HoldHostRegister != nil {
		f.HoldHostRegister()
	}
	if f.RegisterError != nil {
		return f.RegisterError
	}
	if len(b) == 0 {
		return fmt.Errorf("fake cuda: HostRegister of no memory")
	}
	f.pinMu.Lock()
	defer f.pinMu.Unlock()
	lo, hi := f.addr(b)
	for base, p := range f.pinned {
		a := uintptr(unsafe.Pointer(base))
		if lo < a+uintptr(p.n) && a < hi {
			return fmt.Errorf("fake cuda: HostRegister: part of the host memory is already registered")
		}
	}
	f.pinned[&b[0]] = pinnedRange{n: len(b), registered: true}
	return nil
}

// HostUnregister unpins b, which HostRegister pinned.
func (f *Fake) HostUnregister(b []byte) error {
	if f.UnregisterError != nil {
		return f.UnregisterError
	}
	if len(b) == 0 {
		return fmt.Errorf("fake cuda: HostUnregister of no memory")
	}
	f.pinMu.Lock()
	defer f.pinMu.Unlock()
	if p, ok := f.pinned[&b[0]]; !ok || !p.registered {
		return fmt.Errorf("fake cuda: HostUnregister of memory not registered")
	}
	delete(f.pinned, &b[0])
	return nil
}

// Registered is the host memory HostRegister pinned and
// HostUnregister has not unpinned, in bytes.
func (f *Fake) Registered() int64 {
	f.pinMu.Lock()
	defer f.pinMu.Unlock()
	var n int64
	for _, p := range f.pinned {
		if p.registered {
			n += int64(p.n)
		}
	}
	return n
}

func (f *Fake) addr(b []byte) (lo, hi uintptr) {
	lo = uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return lo, lo + uintptr(len(b))
}

// isPinned reports whether b lies inside pinned host memory.
func (f *Fake) isPinned(b []byte) bool {
	if len(b) == 0 {
		return true
	}
	f.pinMu.Lock()
	defer f.pinMu.Unlock()
	if p, ok := f.pinned[&b[0]]; ok {
		return len(b) <= p.n
	}
	lo, hi := f.addr(b)
	for base, p := range f.pinned {
		if a := uintptr(unsafe.Pointer(base)); lo >= a && hi <= a+uintptr(p.n) {
			return true
		}
	}
	return false
}

// CopyH2D reads src, which must be pinned when the copy is issued and
// when it runs, when it runs; dst may point inside an allocation (a
// chunk of a tensor).
func (f *Fake) CopyH2D(dst Ptr, src []byte, s Stream) error {
	if !f.isPinned(src) {
		return fmt.Errorf("fake cuda: copy in from pageable host memory (%d bytes)", len(src))
	}
	return f.enqueue(s, func() {
		if !f.isPinned(src) {
			f.fail("copy in of %d bytes from host memory unpinned before the copy ran", len(src))
		} else if d := f.span(dst, len(src)); d == nil {
			f.fail("copy in of %d bytes to %#x, not inside one allocation", len(src), dst)
		} else {
			copy(d, src)
		}
	})
}

// CopyD2H writes dst, which must be pinned when the copy is issued and
// when it runs, when it runs; src may point inside an allocation.
func (f *Fake) CopyD2H(dst []byte, src Ptr, s Stream) error {
	if !f.isPinned(dst) {
		return fmt.Errorf("fake cuda: copy out to pageable host memory (%d bytes)", len(dst))
	}
	return f.enqueue(s, func() {
		if !f.isPinned(dst) {
			f.fail("copy out of %d bytes to host memory unpinned before the copy ran", len(dst))
		} else if b := f.span(src, len(dst)); b == nil {
			f.fail("copy out of %d bytes from %#x, not inside one allocation", len(dst), src)
		} else {
			copy(dst, b)
		}
	})
}

// span is the n bytes at p, which must lie inside one live allocation;
// nil if they do not.
func (f *Fake) span(p Ptr, n int) []byte {
	for base, b := range f.mem {
		if p >= base && p < base+Ptr(len(b)) {
			off := int(p - base)
			if off+n > len(b) {
				return nil
			}
			return b[off : off+n]
		}
	}
	return nil
}

// Launch enqueues a kernel on s (as libtorch would on its stream).
func (f *Fake) Launch(s Stream, k func()) error {
	f.launched++
	return f.enqueue(s, k)
}

// Bytes is the memory of allocation p, nil if it is not allocated.
func (f *Fake) Bytes(p Ptr) []byte { return f.mem[p] }

// Fail records an error of running work, returned by every later call.
func (f *Fake) Fail(err error) {
	if f.err == nil {
		f.err = err
	}
}

// poisoned is n bytes of float32 NaNs (a quiet NaN in every 4 bytes;
// float64 reads see NaNs too).
func poisoned(n int64) []byte {
	b := tensor.AlignedBytes(int(n))
	for i := int64(0); i+4 <= n; i += 4 {
		binary.LittleEndian.PutUint32(b[i:], math.Float32bits(float32(math.NaN())))
	}
	return b
}

// FakeKernels runs ops with the host's kernels as work on the fake's
// streams, reading and writing the fake's device memory when the work
// runs.
type FakeKernels struct {
	F *Fake
	// HostOnly are ops the kernels refuse, as a plugin without them
	// would: the engine runs them on the host.
	HostOnly []ops.Op
}

// Supports is "" for ops with a cpu kernel, except HostOnly.
func (k FakeKernels) Supports(op *refs.Op) string {
	if _, ok := cpu.Lookup(op.Op); !ok {
		return "no host kernel for " + op.Op.Name()
	}
	if slices.Contains(k.HostOnly, op.Op) {
		return "the fake kernels leave " + op.Op.Name() + " to the host"
	}
	return ""
}

// Launch enqueues op's host kernel on s.
func (k FakeKernels) Launch(s Stream, op *refs.Op, out Ptr, ins []Ptr) error {
	metas := make([]tensor.Meta, len(ins))
	for i, in := range op.Inputs {
		metas[i] = in.Meta()
	}
	ins = append([]Ptr(nil), ins...)
	o, attrs, name := op.Out.Meta(), op.Attrs, op.Op
	return k.F.Launch(s, func() {
		args := make([]*tensor.Dense, len(ins))
		for i, p := range ins {
			args[i] = k.dense(metas[i], p)
		}
		res := k.dense(o, out)
		if res == nil || slicesHasNil(args) {
			return
		}
		if err := cpu.Run(name, res, args, attrs); err != nil {
			k.F.Fail(err)
		}
	})
}

// dense is the fake's memory at p as a tensor, nil (and the fake's error
// set) if p is not allocated.
func (k FakeKernels) dense(m tensor.Meta, p Ptr) *tensor.Dense {
	if m.Bytes() == 0 {
		return tensor.NewDense(m)
	}
	b := k.F.Bytes(p)
	if int64(len(b)) != m.Bytes() {
		k.F.fail("kernel on %#x: %d bytes allocated, %v wanted (freed too early?)", p, len(b), m)
		return nil
	}
	return &tensor.Dense{Meta: m, Buf: b}
}

func slicesHasNil(ds []*tensor.Dense) bool {
	for _, d := range ds {
		if d == nil {
			return true
		}
	}
	return false
}
