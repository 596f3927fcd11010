package cuda

import (
	"fmt"
	"iter"
	"time"

	"github.com/tref-lang/tref/runtime/device"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Kernels run ops on device memory: libtorch on its stream, or the fake's
// host kernels.
type Kernels interface {
	// Supports is "" when Launch can run op, else why not.
	Supports(op *refs.Op) string
	// Launch issues op on stream s, reading ins and writing out (device
	// memory of the ops' metas); it may return before the work ran.
	Launch(s Stream, op *refs.Op, out Ptr, ins []Ptr) error
}

// Config says which device a Plane drives and how.
type Config struct {
	// Name is the device's name in traces: "cuda:0".
	Name string
	// Index is N of cuda:N; for N > 0 every call first makes it
	// current on the calling thread.
	Index int
	// Margin is the device memory left to libtorch's workspace and
	// temporaries: the budget is the free memory at open minus Margin.
	Margin int64
	// Mem caps the budget (--mem); 0 takes the free memory minus Margin.
	Mem int64
	// Staging bounds the pinned host memory the copies go through.
	Staging int64
	// Chunk is the most one copy stages at once: a larger tensor goes
	// through the staging buffers a chunk at a time, so that pinned
	// memory stays bounded whatever the tensor's size and the host's
	// memcpy of one chunk overlaps the copy engine's transfer of the one
	// before. 0 means DefaultChunk; it is at most Staging.
	Chunk int64
	// Pinned bounds the host memory pinned in place for copies straight
	// from the runtime's host blocks (see pinning.go): 0 means half the
	// host pool's limit (DefaultPinned without one), negative none
	// (every copy staged).
	Pinned int64
	// PinMin is the smallest host block pinned in place; 0 means
	// DefaultPinMin.
	PinMin int64
	// PinAt is when a host block is pinned in place (pinning runs off
	// the engine's thread; see pinning.go): at its second copy in (the
	// zero value), its first, or when the host pool hands it out (a
	// block handed out before the plane was bound, or past the bound
	// then, at its first copy in).
	PinAt PinAt
	// StageWait issues the copy of each chunk the worker stages as soon
	// as it is handed over, behind a wait on the copy stream for the
	// worker's memcpy (cuStreamWaitValue32 on a word the worker stores;
	// see stager.go), instead of at the engine's next call after the
	// memcpy.
	StageWait bool
	// StageAsync is the smallest chunk whose staging memcpy a worker
	// goroutine does, off the caller's thread (see stager.go; only on a
	// plane bound to the host pool): 0 means DefaultStageAsync,
	// negative never.
	StageAsync int64
	// CopySplit is the smallest memcpy between a host tensor and a
	// staging buffer split among goroutines, each copying CopyPiece
	// bytes or more (see hostCopier; 0: the defaults, 8 MiB and 1 MiB).
	CopySplit, CopyPiece int64
	// StagingHostAlloc makes the staging buffers HostAlloc's pinned
	// memory instead of Go memory pinned in place (HostRegister, the
	// default): on the H200 machine HostAlloc pinned 2.2-2.9 GB/s and
	// HostRegister 12, and 1 GiB of weights copied in for the first time
	// took 65 ms through HostAlloc's buffers against 52 through
	// registered ones (bench/RESULTS.md, session 17).
	StagingHostAlloc bool
	// Prealloc is how many Chunk-sized staging buffers a plane bound to
	// the host pool allocates off the engine's thread as soon as it is
	// bound, ahead of the first copies (see staging.go): 0 means
	// DefaultPrealloc, negative none.
	Prealloc int
}

// DefaultPinned bounds the host memory pinned in place when the host
// pool has no limit either.
const DefaultPinned = 4 << 30

// DefaultMargin is the device memory a Plane leaves to libtorch when the
// caller states none: cuBLAS workspaces, the caching allocator's
// temporaries of one op, CUDA's context.
const DefaultMargin = 1 << 30

// DefaultStaging is the pinned staging memory when the caller states
// none: four chunks, enough for the worker's memcpy of one chunk to run
// while the copy engine moves another (the link is faster than the
// memcpy, so a buffer waits for the worker, not for the link). More costs
// more than it gains: pinned memory is slow to allocate, and with 256
// MiB the pool grew to sixteen buffers while the worker ran ahead,
// making the engine allocate a fresh pinned buffer for each chunk of a
// resident run's prefetches (H200, session 15: 1 GiB of weights copied
// in at 10 GB/s against 22 GB/s staged on the engine's thread, which
// reuses two buffers).
const DefaultStaging = 64 << 20

// DefaultChunk is the staging chunk when the caller states none: the link
// moves 16 MiB at about 96% of its peak rate (PyTorch's pinned copies on
// the H200 machine: 48.9 GB/s at 4 MiB, 54.0 at 64 MiB), and a chunk is
// large enough for the hostCopier to split.
const DefaultChunk = 16 << 20

// Plane is a device.Device on a CUDA runtime: tensors live in memory from
// MallocAsync (on the copy stream for a copy in, else on the compute
// stream) and are freed on the compute stream; copies run on a separate
// non-blocking stream through pinned staging buffers, and events order
// the two streams (see the package comment).
type Plane struct {
	rt      Runtime
	k       Kernels
	cfg     Config
	budget  int64
	compute Stream // libtorch's: the legacy default stream
	copy    Stream
	staging stagingPool
	pins    pinning
	stage   stager
	hc      hostCopier // the memcpys between host tensors and staging
	events  *eventPool
	start   time.Time
	live    refs.PoolStats
	// skip names a wait the plane leaves out (mutation tests only).
	skip string
	// m records CUDA-event times (Measure), nil when not asked for.
	m *measure
	// broken, once set, fails every later call: the plane could not keep
	// an ordering rule it owed the host pool (settleReading).
	broken error
}

// buffer is one tensor's device memory and the events of its last uses.
type buffer struct {
	p     Ptr
	bytes int64
	// lastCopy is the copy stream's last use (copy in or out); the
	// compute stream has waited for it when computeWaited.
	lastCopy      Event
	computeWaited bool
	// lastKernel is the compute stream's last write; the copy stream
	// has waited for it when copyWaited.
	lastKernel Event
	copyWaited bool
	// staging is the last chunk of a copy in still waiting for the
	// worker's memcpy (stager.go), nil when none; pending the last one
	// still waiting for a staging buffer.
	staging *stageJob
	pending *pendingChunk
}

// NewPlane opens device cfg.Index on rt, with k running the ops.
func NewPlane(rt Runtime, k Kernels, cfg Config) (*Plane, error) {
	if cfg.Staging <= 0 {
		cfg.Staging = DefaultStaging
	}
	if cfg.Chunk <= 0 {
		cfg.Chunk = DefaultChunk
	}
	cfg.Chunk = min(cfg.Chunk, cfg.Staging)
	if cfg.PinMin <= 0 {
		cfg.PinMin = DefaultPinMin
	}
	if cfg.StageAsync == 0 {
		cfg.StageAsync = DefaultStageAsync
	}
	if err := rt.SetDevice(cfg.Index); err != nil {
		return nil, fmt.Errorf("%s: %w", cfg.Name, err)
	}
	free, _, err := rt.MemGetInfo()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", cfg.Name, err)
	}
	budget := free - cfg.Margin
	if cfg.Mem > 0 {
		if cfg.Mem > budget {
			return nil, fmt.Errorf("%s: --mem %s is more than the device has free (%s free, %s kept for libtorch's workspace)",
				cfg.Name, fmtBytes(cfg.Mem), fmtBytes(free), fmtBytes(cfg.Margin))
		}
		budget = cfg.Mem
	}
	if budget <= 0 {
		return nil, fmt.Errorf("%s: only %s free, less than the %s kept for libtorch's workspace", cfg.Name, fmtBytes(free), fmtBytes(cfg.Margin))
	}
	cs, err := rt.StreamCreateNonBlocking()
	if err != nil {
		return nil, fmt.Errorf("%s: copy stream: %w", cfg.Name, err)
	}
	events := &eventPool{rt: rt}
	d := &Plane{rt: rt, k: k, cfg: cfg, budget: budget, copy: cs, events: events,
		staging: stagingPool{rt: rt, events: events, limit: cfg.Staging, register: !cfg.StagingHostAlloc},
		pins: pinning{min: cfg.PinMin, at: cfg.PinAt, blocks: map[uintptr]*pinnedBlock{},
			coming: map[uintptr]*pinJob{}, unpinned: map[uintptr]unpinned{}},
		stage: stager{min: cfg.StageAsync},
		hc:    hostCopier{split: int(cfg.CopySplit), piece: int(cfg.CopyPiece)},
		start: time.Now()}
	d.staging.issue = d.issueStaged
	if cfg.Index > 0 {
		d.staging.setup = func() error { return rt.SetDevice(cfg.Index) }
		d.pins.setup = d.staging.setup
	}
	if cfg.StageWait {
		if err := d.stage.openWait(rt, cs); err != nil {
			rt.StreamDestroy(cs)
			return nil, fmt.Errorf("%s: staged copies waiting on the copy stream (TREF_CUDA_STAGE=wait): %w", cfg.Name, err)
		}
	}
	return d, nil
}

func fmtBytes(n int64) string {
	const mib = 1 << 20
	return fmt.Sprintf("%.1f MiB", float64(n)/mib)
}

// enter makes the plane's device current on this thread (Go may move
// the engine's goroutine between threads; cudaSetDevice is per thread).
func (d *Plane) enter() error {
	if d.broken != nil {
		return d.broken
	}
	if d.cfg.Index > 0 {
		return d.rt.SetDevice(d.cfg.Index)
	}
	return nil
}

// record is an event capturing s's work so far.
func (d *Plane) record(s Stream) (Event, error) { return d.events.record(s) }

// replace sets *slot to e, giving the event it held back to the pool.
func (d *Plane) replace(slot *Event, e Event) {
	d.events.put(*slot)
	*slot = e
}

// Name is the device's name.
func (d *Plane) Name() string { return d.cfg.Name }

// Caps: wall-clock times, no in-place results, no exact fallback
// (libtorch's CUDA kernels differ from the host's), the budget, copies
// staged through pinned memory by the host.
func (d *Plane) Caps() device.Caps {
	return device.Caps{Clock: device.Wall, Memory: d.budget, StagedCopies: true}
}

// Supports asks the kernels.
func (d *Plane) Supports(op *refs.Op) string { return d.k.Supports(op) }

// Holds: the plane moves bytes; the kernels decide what they take.
func (d *Plane) Holds(dt tensor.DType) bool { return !dt.IsNarrowInt() }

// Alloc makes a buffer; device memory is taken at its first write.
func (d *Plane) Alloc(m tensor.Meta) (device.Memory, error) {
	return &buffer{bytes: m.Bytes()}, nil
}

// back gives b device memory, stream-ordered on s (the stream that
// first writes it; reuse of memory freed on the other stream is the
// allocator's to order, which its pools do by stream-order semantics).
func (d *Plane) back(b *buffer, s Stream) error {
	if b.p != 0 || b.bytes == 0 {
		return nil
	}
	p, err := d.rt.MallocAsync(b.bytes, s)
	if err != nil {
		return fmt.Errorf("%s: allocating %d bytes: %w", d.cfg.Name, b.bytes, err)
	}
	b.p = p
	d.live.LiveRefs++
	d.live.LiveBytes += b.bytes
	d.live.PeakBytes = max(d.live.PeakBytes, d.live.LiveBytes)
	return nil
}

// computeAfterCopies makes the compute stream wait for b's last copy.
func (d *Plane) computeAfterCopies(b *buffer, why string) error {
	if b.lastCopy == 0 || b.computeWaited || d.skip == why {
		return nil
	}
	b.computeWaited = true
	return d.rt.StreamWaitEvent(d.compute, b.lastCopy)
}

// Free releases b's memory on the compute stream once every copy and
// kernel that used it completed.
func (d *Plane) Free(mem device.Memory) {
	b := mem.(*buffer)
	if b.p == 0 {
		return
	}
	// Errors here surface as the runtime's sticky error at the next call.
	d.enter()
	d.settleStaged(b)
	d.computeAfterCopies(b, "free-after-copy")
	d.rt.FreeAsync(b.p, d.compute)
	d.replace(&b.lastCopy, 0)
	d.replace(&b.lastKernel, 0)
	b.p = 0
	d.live.LiveRefs--
	d.live.LiveBytes -= b.bytes
}

// span is the host's time issuing work (from t0 to now) and, when
// measuring, the work's id.
func (d *Plane) span(t0 int64, work uint64) device.Span {
	return device.Span{Start: t0, End: d.Now(), Work: work}
}

// prepareCopy begins a copy between mem and n bytes of the host's
// (what: "copy in" or "copy out"): none when there are no bytes to copy;
// else it issues the staged copies whose memcpy is done, and mem's own
// copies in still waiting (stager.go).
func (d *Plane) prepareCopy(mem device.Memory, n int, what string) (b *buffer, none bool, err error) {
	if err := d.enter(); err != nil {
		return nil, false, err
	}
	b = mem.(*buffer)
	if int64(n) != b.bytes {
		return nil, false, fmt.Errorf("internal: %s: %s of %d host bytes with a tensor of %d", d.cfg.Name, what, n, b.bytes)
	}
	if b.bytes == 0 {
		return b, true, nil
	}
	if err := d.progress(); err != nil {
		return nil, false, err
	}
	return b, false, d.settleStaged(b)
}

// chunks yields the offset and size of each chunk of a copy of n bytes.
func (d *Plane) chunks(n int64) iter.Seq2[int64, int64] {
	return func(yield func(int64, int64) bool) {
		for off := int64(0); off < n; off += d.cfg.Chunk {
			if !yield(off, min(d.cfg.Chunk, n-off)) {
				return
			}
		}
	}
}

// CopyIn stages src in pinned memory and copies it on the copy stream.
func (d *Plane) CopyIn(dst device.Memory, src *tensor.Dense) (device.Span, error) {
	t0 := d.Now()
	b, none, err := d.prepareCopy(dst, len(src.Buf), "copy in")
	if err != nil {
		return device.Span{}, err
	}
	if none {
		return d.span(t0, 0), nil
	}
	if b.p != 0 {
		// Written again: after every kernel issued so far (its
		// readers among them).
		e, err := d.record(d.compute)
		if err != nil {
			return device.Span{}, err
		}
		err = d.rt.StreamWaitEvent(d.copy, e)
		d.events.put(e)
		if err != nil {
			return device.Span{}, err
		}
	}
	// Allocated on the copy stream: the copy need not wait for the
	// kernels issued before it.
	if err := d.back(b, d.copy); err != nil {
		return device.Span{}, err
	}
	if pb := d.pinnedFor(src.Buf, true); pb != nil {
		return d.copyPinned(t0, b, src.Buf, pb, false)
	}
	d.pins.stats.Staged++
	if d.async(min(d.cfg.Chunk, b.bytes)) {
		work, at := d.reserve(), base(src.Buf)
		for off, n := range d.chunks(b.bytes) {
			c := &pendingChunk{chunk: chunk{b: b, off: off, src: src.Buf[off : off+n], at: at, last: off+n == b.bytes, work: work}}
			if err := d.stageAsync(c); err != nil {
				return device.Span{}, err
			}
		}
		return d.span(t0, work), nil
	}
	var a Event
	for off, n := range d.chunks(b.bytes) {
		// Waits, when the pool is full, for the oldest buffer's copy
		// (an earlier chunk's, for a large tensor).
		s, err := d.staging.get(n)
		if err != nil {
			return device.Span{}, err
		}
		d.hc.copy(s.buf, src.Buf[off:off+n])
		if off == 0 {
			if a, err = d.begin(d.copy); err != nil {
				return device.Span{}, err
			}
		}
		if err := d.copyChunkIn(b.p+Ptr(off), s); err != nil {
			return device.Span{}, err
		}
	}
	work, err := d.end(a, d.copy)
	if err != nil {
		return device.Span{}, err
	}
	if err := d.copied(b); err != nil {
		return device.Span{}, err
	}
	return d.span(t0, work), nil
}

// copyPinned copies b in from, or out into, host bytes straight in
// their pinned block pb, which stays busy until the copy completes; the
// host waits for a copy out.
func (d *Plane) copyPinned(t0 int64, b *buffer, host []byte, pb *pinnedBlock, out bool) (device.Span, error) {
	d.pins.stats.Direct++
	a, err := d.begin(d.copy)
	if err != nil {
		return device.Span{}, err
	}
	if out {
		err = d.rt.CopyD2H(host, b.p, d.copy)
	} else {
		err = d.rt.CopyH2D(b.p, host, d.copy)
	}
	if err != nil {
		return device.Span{}, err
	}
	work, err := d.end(a, d.copy)
	if err != nil {
		return device.Span{}, err
	}
	e, err := d.record(d.copy)
	if err != nil {
		return device.Span{}, err
	}
	d.replace(&pb.busy, e)
	if out {
		d.settle(pb, "host-after-copy-out")
	}
	if err := d.copied(b); err != nil {
		return device.Span{}, err
	}
	return d.span(t0, work), nil
}

// staged marks s busy until the copy just issued through it completes.
func (d *Plane) staged(s *staging) error {
	e, err := d.record(d.copy)
	if err != nil {
		return err
	}
	d.staging.use(s, e)
	return nil
}

// copied records the copies just issued on b as its last.
func (d *Plane) copied(b *buffer) error {
	e, err := d.record(d.copy)
	if err != nil {
		return err
	}
	b.computeWaited = false
	d.replace(&b.lastCopy, e)
	return nil
}

// CopyOut copies src on the copy stream, after its producer, into pinned
// memory, waits for it and copies it into dst.
func (d *Plane) CopyOut(dst *tensor.Dense, src device.Memory) (device.Span, error) {
	t0 := d.Now()
	b, none, err := d.prepareCopy(src, len(dst.Buf), "copy out")
	if err != nil {
		return device.Span{}, err
	}
	if none {
		return d.span(t0, 0), nil
	}
	if b.p == 0 {
		return device.Span{}, fmt.Errorf("internal: %s: copy out of a tensor never written", d.cfg.Name)
	}
	if b.lastKernel != 0 && !b.copyWaited && d.skip != "copy-out-after-kernel" {
		if err := d.rt.StreamWaitEvent(d.copy, b.lastKernel); err != nil {
			return device.Span{}, err
		}
		b.copyWaited = true
	}
	if pb := d.pinnedFor(dst.Buf, false); pb != nil {
		return d.copyPinned(t0, b, dst.Buf, pb, true)
	}
	d.pins.stats.Staged++
	// A chunk at a time: each staging buffer is copied out before the
	// next chunk may take it.
	var a Event
	var work uint64
	for off, n := range d.chunks(b.bytes) {
		s, err := d.staging.get(n)
		if err != nil {
			return device.Span{}, err
		}
		if off == 0 {
			if a, err = d.begin(d.copy); err != nil {
				return device.Span{}, err
			}
		}
		if err := d.rt.CopyD2H(s.buf, b.p+Ptr(off), d.copy); err != nil {
			return device.Span{}, err
		}
		if off+n == b.bytes {
			if work, err = d.end(a, d.copy); err != nil {
				return device.Span{}, err
			}
		}
		if err := d.staged(s); err != nil {
			return device.Span{}, err
		}
		if d.skip != "host-after-copy-out" {
			if _, err := d.staging.idle(s, true); err != nil {
				return device.Span{}, err
			}
		}
		d.hc.copy(dst.Buf[off:off+n], s.buf)
	}
	if err := d.copied(b); err != nil {
		return device.Span{}, err
	}
	return d.span(t0, work), nil
}

// Run launches op on the compute stream after the copies of its
// operands.
func (d *Plane) Run(op *refs.Op, out device.Memory, ins []device.Memory) (device.Span, error) {
	t0 := d.Now()
	if err := d.enter(); err != nil {
		return device.Span{}, err
	}
	if err := d.progress(); err != nil {
		return device.Span{}, err
	}
	var buf [4]Ptr
	ps := buf[:0]
	for _, in := range ins {
		b := in.(*buffer)
		if b.p == 0 && b.bytes > 0 {
			return device.Span{}, fmt.Errorf("internal: %s: %s reads a tensor never written", d.cfg.Name, op.Op.Name())
		}
		if d.skip != "kernel-after-stage" {
			if err := d.settleStaged(b); err != nil {
				return device.Span{}, err
			}
		}
		if err := d.computeAfterCopies(b, "kernel-after-copy-in"); err != nil {
			return device.Span{}, err
		}
		ps = append(ps, b.p)
	}
	o := out.(*buffer)
	if err := d.settleStaged(o); err != nil {
		return device.Span{}, err
	}
	if err := d.back(o, d.compute); err != nil {
		return device.Span{}, err
	}
	if err := d.computeAfterCopies(o, "kernel-after-copy-out"); err != nil {
		return device.Span{}, err
	}
	a, err := d.begin(d.compute)
	if err != nil {
		return device.Span{}, err
	}
	if err := d.k.Launch(d.compute, op, o.p, ps); err != nil {
		return device.Span{}, err
	}
	work, err := d.end(a, d.compute)
	if err != nil {
		return device.Span{}, err
	}
	e, err := d.record(d.compute)
	if err != nil {
		return device.Span{}, err
	}
	o.copyWaited = false
	d.replace(&o.lastKernel, e)
	return d.span(t0, work), nil
}

// Sync waits for both streams.
func (d *Plane) Sync() error {
	if err := d.enter(); err != nil {
		return err
	}
	if p := d.stage.pending; len(p) > 0 {
		if err := d.force(p[len(p)-1]); err != nil {
			return err
		}
	}
	if q := d.stage.queue; len(q) > 0 {
		if err := d.issueStaged(q[len(q)-1]); err != nil {
			return err
		}
	}
	if err := d.rt.StreamSynchronize(d.copy); err != nil {
		return err
	}
	if err := d.rt.StreamSynchronize(d.compute); err != nil {
		return err
	}
	d.memcpysDone(true)
	return d.resolve()
}

// Now is the wall time since the plane was opened.
func (d *Plane) Now() int64 { return int64(time.Since(d.start)) }

// Stats counts the device memory held for tref.
func (d *Plane) Stats() refs.PoolStats { return d.live }

// StagingPeak is the most pinned staging memory held at once.
func (d *Plane) StagingPeak() int64 { return d.staging.peak }

// Close waits for all work, frees the staging memory and the copy
// stream, and reports tensors still held.
func (d *Plane) Close() error {
	err := d.Sync()
	d.stopWorker()
	if e := d.stage.closeWait(d.rt); err == nil {
		err = e
	}
	d.Measure(false)
	if e := d.staging.close(); err == nil {
		err = e
	}
	if e := d.unpinAll(); err == nil {
		err = e
	}
	if e := d.events.close(); err == nil {
		err = e
	}
	if e := d.rt.StreamDestroy(d.copy); err == nil {
		err = e
	}
	if err == nil && d.live.LiveRefs != 0 {
		err = fmt.Errorf("%s: %d tensors (%d bytes) still held", d.cfg.Name, d.live.LiveRefs, d.live.LiveBytes)
	}
	return err
}
