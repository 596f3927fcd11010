package cuda

import (
	"fmt"
	"time"
	"unsafe"

	"github.com/tref-lang/tref/runtime/refs"
)

// A host tensor copied in through staging costs the host a memcpy into
// pinned memory first: on the H200 machine one core's 7.6 GB/s against
// the link's 50, 550 µs for a 4 MiB weight, on the engine's thread and
// before the kernels after it are issued. Offloading refetches the same
// host tensors (the weights) over and over, so the plane pins those host
// blocks in place (cudaHostRegister) and copies straight from them, as
// peers' offloaders pin their CPU weights: a block is pinned at its
// second copy in (one copy does not repay the pinning), stays pinned
// while the runtime's host pool keeps it (live or cached for reuse, so a
// reused block stays pinned for the next tensor in it) and is unpinned
// when the pool lets it go. The pool tells the plane before a block's
// bytes change or it is dropped (refs.HostWatcher): the plane waits there
// for the copies still reading the block.
//
// Pinning is slow (cudaHostRegister pinned 11.8 GB/s on the H200
// machine: 5.4 ms for a 64 MiB weight), and streamed weights are pinned
// at their second pass: on the engine's thread that took 66 ms of the
// second pass over 1 GiB of weights (bench/RESULTS.md, session 17),
// with no kernel issued meanwhile. So the plane pins off the engine's
// thread, on a goroutine of its own (the device made current there for
// cuda:N, N > 0), and no copy waits for it: a copy of a block still
// being pinned is staged, and the copies after the pinning landed are
// straight from the block. The pool's hooks and Close wait for a
// pinning before the block goes. The block's bytes count against the
// bound from the moment its pinning starts.
//
// When a block is pinned is Config.PinAt: at its second copy in (the
// default, as before), at its first, or when the pool hands it out for
// a new value (refs.BirthWatcher), before the host writes it: the
// first copy of a weight the host made or loaded is then straight from
// it, the pinning done while the host was busy making the others.
//
// Only a plane bound to the runtime's host pool (BindHost) pins: it copies
// only the runtime's host tensors, whose blocks the pool watches. An
// unbound plane (calibrate, tests) stages every copy, so that its caller
// may change a tensor once CopyIn returns (device.Device's contract).

// DefaultPinMin is the smallest host block pinned in place: below it a
// staging memcpy costs about what issuing a copy does.
const DefaultPinMin = 256 << 10

// PinAt is when the plane pins a host block in place (Config.PinAt).
type PinAt uint8

const (
	// PinAtSecondCopy pins a block at its second copy in: one copy does
	// not repay pinning.
	PinAtSecondCopy PinAt = iota
	// PinAtFirstCopy pins a block at its first copy in.
	PinAtFirstCopy
	// PinAtBirth pins a block when the host pool hands it out for a new
	// value (refs.BirthWatcher).
	PinAtBirth
)

// ParsePinAt reads "second", "first" or "birth".
func ParsePinAt(s string) (PinAt, error) {
	switch s {
	case "second":
		return PinAtSecondCopy, nil
	case "first":
		return PinAtFirstCopy, nil
	case "birth":
		return PinAtBirth, nil
	}
	return 0, fmt.Errorf("%q: want second, first or birth", s)
}

// unpinned is why a block copied in is not pinned.
type unpinned uint8

const (
	copiedOnce unpinned = iota + 1 // pinned at its next copy in
	refused                        // by HostRegister: never tried again
)

// pinnedBlock is a host block pinned in place.
type pinnedBlock struct {
	buf  []byte // the whole block: keeps it alive while pinned
	busy Event  // the last copy using it, 0 when none
}

// pinJob is a host block being pinned off the engine's thread.
type pinJob struct {
	block []byte
	done  chan struct{} // closed once err and ns are set
	err   error
	ns    int64 // HostRegister's time
}

// pinning is the plane's host blocks pinned in place.
type pinning struct {
	// limit bounds the pinned bytes (not above 0: nothing is pinned); min is the
	// smallest block pinned.
	limit, min  int64
	bytes, peak int64
	blocks      map[uintptr]*pinnedBlock
	// coming is the blocks being pinned off the engine's thread.
	coming map[uintptr]*pinJob
	// at is when blocks are pinned (Config.PinAt).
	at PinAt
	// setup runs first on each thread that pins (the plane makes its
	// device current there).
	setup func() error
	// unpinned is what became of the blocks copied in but not pinned.
	unpinned map[uintptr]unpinned
	host     *refs.HostPool
	stats    PinStats
	// err is the first failure to unpin a block the pool dropped (the
	// hook cannot return it): Close reports it.
	err error
}

// PinStats counts the plane's copies straight from (or into) pinned host
// blocks and through staging.
type PinStats struct {
	// Direct and Staged count copies in and out by path.
	Direct, Staged int64
	// Pinned and Unpinned count HostRegister and HostUnregister calls;
	// Refused the blocks HostRegister refused; Full the copies staged
	// because pinning their block would pass the bound.
	Pinned, Unpinned, Refused, Full int64
	// Waits counts the times the host waited for a copy (or the
	// staging worker's memcpy) before a block was overwritten or
	// unpinned.
	Waits int64
	// Async counts the chunks whose staging memcpy the worker did;
	// StageWaits the times the plane waited for the worker to issue a
	// copy something needed, StageWaitNs how long in all.
	Async, StageWaits, StageWaitNs int64
	// Deferred counts the chunks that waited for a staging buffer (the
	// pool full, or the buffer being allocated) after their copy in
	// returned; Grown the staging buffers allocated off the engine's
	// thread (ahead, or asked for by a copy: see staging.go).
	Deferred, Grown int64
	// PinNs is the host's time in HostRegister and HostUnregister (the
	// price of pinning, which the copies straight from the blocks repay;
	// HostRegister's runs off the engine's thread); PinStaged counts the
	// copies staged because their block's pinning still ran, PinWaitNs
	// how long the pool's hooks and Close waited for pinnings.
	PinNs, PinStaged, PinWaitNs int64
	// DMAIn is the copy engine's measured time for the staged chunks
	// copied in (while measuring: traced runs), DMAInLarge for those of
	// LargeChunk bytes or more: the staging pool's own copy bandwidth,
	// without the memcpy into it.
	DMAIn, DMAInLarge Transfers
	// Memcpy is the worker's memcpys of the chunks into their staging
	// buffers (Async of them), timed on the host; IssueLagNs is, summed
	// over them, the time from a memcpy's end to the issue of its
	// chunk's copy on the engine's thread (none with StageWait, which
	// issues the copy before the memcpy ends). Beside DMAIn they say
	// which stage of a staged copy sets its pace.
	Memcpy     Transfers
	IssueLagNs int64
	// Bytes is the host memory pinned now, Peak the most at once.
	Bytes, Peak int64
	// Refusal is why HostRegister refused the first block it refused.
	Refusal string
}

// Transfers totals timed transfers: Count of them moved Bytes in Ns.
type Transfers struct{ Count, Bytes, Ns int64 }

// GBps is the transfers' bandwidth in GB/s, 0 when none was measured.
func (t Transfers) GBps() float64 {
	if t.Ns <= 0 {
		return 0
	}
	return float64(t.Bytes) / float64(t.Ns)
}

// LargeChunk is the smallest chunk counted in PinStats.DMAInLarge: from
// 4 MiB the link runs near its peak (48.9 GB/s of 55 on the H200).
const LargeChunk = 4 << 20

// countDMAIn counts a staged chunk of n bytes that the copy engine moved
// in ns.
func (s *PinStats) countDMAIn(n, ns int64) {
	s.DMAIn.add(n, ns)
	if n >= LargeChunk {
		s.DMAInLarge.add(n, ns)
	}
}

// add counts a transfer of n bytes in ns.
func (t *Transfers) add(n, ns int64) {
	t.Count++
	t.Bytes += n
	t.Ns += ns
}

// PinStats reports the plane's pinning counters.
func (d *Plane) PinStats() PinStats {
	s := d.pins.stats
	s.Bytes, s.Peak = d.pins.bytes, d.pins.peak
	s.Grown = d.staging.grown
	return s
}

// base is the address of buf's first byte: blocks are known by it.
func base(buf []byte) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(buf))) }

// pinnedFor is the pinned block that buf (a host tensor's bytes) begins,
// nil when buf is to be staged: a block not pinned, or still being
// pinned. A copy in starts pinning the block at its second copy in (its
// first with PinAtFirstCopy).
func (d *Plane) pinnedFor(buf []byte, copyIn bool) *pinnedBlock {
	p := &d.pins
	if !p.pins(buf) {
		return nil
	}
	at := base(buf)
	if j := p.coming[at]; j != nil && !d.pinned(at, j, false) {
		p.stats.PinStaged++
		return nil
	}
	if b := p.blocks[at]; b != nil && len(buf) <= len(b.buf) {
		return b
	}
	if !copyIn || p.blocks[at] != nil {
		return nil
	}
	block := refs.Block(buf)
	if !p.pinnable(at, block) {
		return nil
	}
	if p.at == PinAtSecondCopy && p.unpinned[at] != copiedOnce {
		p.unpinned[at] = copiedOnce
		return nil
	}
	d.startPin(at, block)
	return nil
}

// Born starts pinning block, which the host pool hands out for a new
// value, with PinAtBirth (refs.BirthWatcher).
func (d *Plane) Born(block []byte) {
	p := &d.pins
	if p.at != PinAtBirth || !p.pins(block) {
		return
	}
	if at := base(block); p.blocks[at] == nil && p.coming[at] == nil && p.pinnable(at, block) {
		d.startPin(at, block)
	}
}

// pins reports whether the plane pins host blocks at all, buf's among
// them: bound to the host pool, with a bound above 0, buf not empty.
func (p *pinning) pins(buf []byte) bool {
	return p.host != nil && p.limit > 0 && len(buf) > 0
}

// pinnable reports whether block, which begins at at, may be pinned:
// it is PinMin or more, and HostRegister has not refused it.
func (p *pinning) pinnable(at uintptr, block []byte) bool {
	return int64(len(block)) >= p.min && p.unpinned[at] != refused
}

// startPin starts pinning block, which begins at at, is pinnable and is
// neither pinned nor being pinned, off the engine's thread, unless it
// would pass the bound.
func (d *Plane) startPin(at uintptr, block []byte) {
	p := &d.pins
	n := int64(len(block))
	if p.bytes+n > p.limit {
		p.stats.Full++
		return
	}
	delete(p.unpinned, at)
	p.bytes += n
	p.peak = max(p.peak, p.bytes)
	j := &pinJob{block: block, done: make(chan struct{})}
	p.coming[at] = j
	go pin(d.rt, p.setup, j)
}

// pin pins j's block on its own goroutine, after setup (the plane's
// device made current on the goroutine's thread), then closes j.done.
func pin(rt Runtime, setup func() error, j *pinJob) {
	defer close(j.done)
	if j.err = onOwnThread(setup); j.err != nil {
		return
	}
	t0 := time.Now()
	j.err = rt.HostRegister(j.block)
	j.ns = int64(time.Since(t0))
}

// pinned takes j, the pinning of the block at at, into the pinned
// blocks once it is done, waiting for it with wait (counted in
// PinWaitNs), and reports whether it was done; a block HostRegister
// refused gives its bytes back and is never pinned again.
func (d *Plane) pinned(at uintptr, j *pinJob, wait bool) bool {
	p := &d.pins
	select {
	case <-j.done:
	default:
		if !wait {
			return false
		}
		t0 := time.Now()
		<-j.done
		p.stats.PinWaitNs += int64(time.Since(t0))
	}
	delete(p.coming, at)
	p.stats.PinNs += j.ns
	if j.err != nil {
		p.bytes -= int64(len(j.block))
		p.stats.Refused++
		if p.stats.Refusal == "" {
			p.stats.Refusal = j.err.Error()
		}
		p.unpinned[at] = refused
		return true
	}
	p.blocks[at] = &pinnedBlock{buf: j.block}
	p.stats.Pinned++
	return true
}

// pinsLanded waits for every pinning still running and takes it in.
func (d *Plane) pinsLanded() {
	for at, j := range d.pins.coming {
		d.pinned(at, j, true)
	}
}

// settle waits for the last copy using b, if it has not completed, and
// reports whether it had to.
func (d *Plane) settle(b *pinnedBlock, why string) (waited bool) {
	if b.busy == 0 {
		return false
	}
	if d.skip != why {
		if done, err := d.rt.EventQuery(b.busy); err == nil && !done {
			waited = true
			// An error here is the runtime's sticky error, which the
			// next call reports.
			d.rt.EventSynchronize(b.busy)
		}
	}
	d.replace(&b.busy, 0)
	return waited
}

// settleFor is settle before the pool overwrites or drops b, counted.
func (d *Plane) settleFor(b *pinnedBlock, why string) {
	d.enter()
	if d.settle(b, why) {
		d.pins.stats.Waits++
	}
}

// Overwriting waits for the copies still reading block before its bytes
// change (refs.HostWatcher).
func (d *Plane) Overwriting(block []byte) {
	d.settleReading(base(block), "host-overwrite-before-stage")
	if b := d.pins.blocks[base(block)]; b != nil {
		d.settleFor(b, "host-overwrite-after-copy")
	}
}

// Releasing unpins block, after the copies still reading it, before the
// pool drops it (refs.HostWatcher).
func (d *Plane) Releasing(block []byte) {
	at := base(block)
	d.settleReading(at, "host-release-before-stage")
	if j := d.pins.coming[at]; j != nil {
		d.pinned(at, j, true)
	}
	delete(d.pins.unpinned, at)
	if b := d.pins.blocks[at]; b != nil {
		d.settleFor(b, "host-release-after-copy")
		if err := d.unpin(at, b); err != nil && d.pins.err == nil {
			d.pins.err = fmt.Errorf("%s: unpinning host memory the pool dropped: %w", d.cfg.Name, err)
		}
	}
}

// unpin unregisters b, pinned at at.
func (d *Plane) unpin(at uintptr, b *pinnedBlock) error {
	delete(d.pins.blocks, at)
	d.pins.bytes -= int64(len(b.buf))
	d.pins.stats.Unpinned++
	t0 := time.Now()
	err := d.rt.HostUnregister(b.buf)
	d.pins.stats.PinNs += int64(time.Since(t0))
	return err
}

// bindPins watches p and pins its blocks, up to limit bytes (0: half p's
// limit, DefaultPinned without one; negative: none).
func (d *Plane) bindPins(p *refs.HostPool, limit int64) {
	if d.pins.host != nil {
		d.pins.host.Unwatch(d)
	}
	if limit == 0 {
		limit = DefaultPinned
		if p.Limit > 0 {
			limit = p.Limit / 2
		}
	}
	d.pins.host, d.pins.limit = p, limit
	p.Watch(d)
}

// unpinAll unpins every block (the streams synchronised) and stops
// watching the host pool.
func (d *Plane) unpinAll() error {
	d.pinsLanded()
	first := d.pins.err
	for at, b := range d.pins.blocks {
		d.replace(&b.busy, 0)
		if err := d.unpin(at, b); err != nil && first == nil {
			first = err
		}
	}
	if d.pins.host != nil {
		d.pins.host.Unwatch(d)
		d.pins.host = nil
	}
	return first
}
