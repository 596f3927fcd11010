package device

import (
	"fmt"
)

// Model is the placement engine's view of an accelerator in time: its
// three engines (host->device copies, device->host copies, compute) each
// run one thing at a time in virtual time, and work on one engine waits
// for the events it depends on (a copy's end, a kernel's end, the host
// thread) by starting no earlier than them. Durations come from the cost
// model, so the virtual clock is deterministic: the engine's decisions
// depend on it and on nothing that a real device measures, and the same
// program makes the same decisions on every device with the same cost
// model and Caps. On the simulated device the model's times are the
// device's times.
//
// Memory is accounted against a capacity over virtual time (see
// timeline): an allocation is placed at the earliest virtual time from
// which it fits, and in issue order the bytes allocated never exceed the
// capacity either.
type Model struct {
	cost Cost
	mem  timeline
	// spare holds freed buffers for reuse by Alloc.
	spare []*Buffer

	// Free times of the engines and the host thread's clock: launches and
	// copies are issued by the host, so none starts before host. stager
	// is when the staging worker is free (CopyIn).
	h2d, d2h, compute, host, stager int64
	// computeNs sums kernel durations.
	computeNs int64
	buffers   int64
}

// Buffer is accelerator memory holding one ref's data: the device's
// Memory and its times in the model.
type Buffer struct {
	// Mem is the device's storage.
	Mem Memory
	// AllocAt is when the memory became the buffer's; ReadyAt when its
	// contents are complete; BusyUntil when its last reader finishes.
	AllocAt, ReadyAt, BusyUntil int64
	bytes                       int64
	freed                       bool
}

// Bytes is the buffer's size.
func (b *Buffer) Bytes() int64 { return b.bytes }

// Release is when b's memory can be reused: after its contents arrived and
// its last reader finished.
func (b *Buffer) Release() int64 { return max(b.AllocAt, b.ReadyAt, b.BusyUntil) }

// NewModel makes the model of a device with capacity bytes of memory.
func NewModel(capacity int64, c Cost) (*Model, error) {
	c = c.WithDefaults()
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if capacity <= 0 {
		return nil, fmt.Errorf("device memory must be positive, got %d bytes", capacity)
	}
	return &Model{cost: c, mem: timeline{capacity: capacity}}, nil
}

// Cost is the cost model in use.
func (d *Model) Cost() Cost { return d.cost }

// Capacity is the memory budget in bytes.
func (d *Model) Capacity() int64 { return d.mem.capacity }

// Used is the memory allocated and not freed, in issue order.
func (d *Model) Used() int64 { return d.mem.live }

// Peak is the most memory in use at any virtual time.
func (d *Model) Peak() int64 { return d.mem.peak }

// Buffers counts the buffers allocated and not freed.
func (d *Model) Buffers() int64 { return d.buffers }

// Host is the host thread's clock.
func (d *Model) Host() int64 { return d.host }

// ComputeFree is when the compute engine finishes its queued kernels.
func (d *Model) ComputeFree() int64 { return d.compute }

// H2DFree is when the host->device copy engine finishes its queue.
func (d *Model) H2DFree() int64 { return d.h2d }

// ComputeNs is the total time kernels ran.
func (d *Model) ComputeNs() int64 { return d.computeNs }

// Now is when every engine and the host are done.
func (d *Model) Now() int64 { return max(d.h2d, d.d2h, d.compute, d.host) }

// WaitHost blocks the host thread until t (a synchronous read, a host op).
func (d *Model) WaitHost(t int64) {
	d.host = max(d.host, t)
	d.settle()
}

// HostOp runs a kernel on the host thread, which first issues it and
// waits for ready; it returns when it ran.
func (d *Model) HostOp(flops, bytes, ready int64) Span {
	d.host += d.cost.IssueNs
	s := Span{Start: max(d.host, ready)}
	s.End = s.Start + d.cost.HostOpNs(flops, bytes)
	d.host = s.End
	d.settle()
	return s
}

// settle lets the memory timeline forget the past: every allocation is
// placed at or after the host's clock and the free time of the engine that
// fills it (a copy in, or a kernel), so nothing will be placed before the
// earlier of those two engines.
func (d *Model) settle() {
	d.mem.advance(max(d.host, min(d.h2d, d.compute)))
}

// Alloc takes n bytes, usable no earlier than earliest (and than the host
// thread), which must not lie before the h2d or compute engine's free
// time (the buffer is filled by one of them). It fails, allocating
// nothing, when the bytes already allocated leave no room. The caller
// sets the buffer's Mem.
func (d *Model) Alloc(n, earliest int64) (*Buffer, error) {
	at, err := d.mem.alloc(n, max(earliest, d.host))
	if err != nil {
		return nil, err
	}
	d.buffers++
	var b *Buffer
	if k := len(d.spare); k > 0 {
		b, d.spare = d.spare[k-1], d.spare[:k-1]
	} else {
		b = new(Buffer)
	}
	*b = Buffer{AllocAt: at, ReadyAt: at, BusyUntil: at, bytes: n}
	return b, nil
}

// Free returns b's memory, released at b.Release(). Freeing twice is a
// no-op until the next Alloc: the model reuses freed Buffer structs, so
// a caller must drop its pointer to b once it is done reading b's fields
// after the Free.
func (d *Model) Free(b *Buffer) {
	if b == nil || b.freed {
		return
	}
	b.freed = true
	d.mem.free(b.bytes, b.Release())
	b.Mem = nil
	d.buffers--
	d.spare = append(d.spare, b)
}

// CopyIn times a copy into b on the host->device engine, starting no
// earlier than srcReady (when the host copy became valid). With a
// staging bandwidth a worker first copies the bytes into pinned memory,
// one copy after another, and the transfer waits for it (the host thread
// goes on: the CUDA plane's stager), unless refetch: the same host copy
// was copied in before, and the CUDA plane has pinned it in place since
// and copies straight from it.
func (d *Model) CopyIn(b *Buffer, srcReady int64, refetch bool) Span {
	staged := int64(0)
	if st := d.cost.StagingNs(b.bytes); st > 0 && !refetch {
		d.stager = max(d.stager, d.host, srcReady) + st
		staged = d.stager
	}
	s := Span{Start: max(d.h2d, d.host, srcReady, b.AllocAt, staged)}
	s.End = s.Start + d.cost.CopyNs(b.bytes, d.cost.H2D)
	d.h2d = s.End
	b.ReadyAt = s.End
	d.settle()
	return s
}

// CopyOut times a copy of b to the host on the device->host engine,
// after b's contents are ready. With a staging bandwidth the host thread
// waits for the copy and then copies the bytes out of pinned memory.
func (d *Model) CopyOut(b *Buffer) Span {
	s := Span{Start: max(d.d2h, d.host, b.ReadyAt)}
	s.End = s.Start + d.cost.CopyNs(b.bytes, d.cost.D2H)
	d.d2h = s.End
	if st := d.cost.StagingNs(b.bytes); st > 0 {
		d.host = s.End + st
	}
	b.BusyUntil = max(b.BusyUntil, s.End)
	d.settle()
	return s
}

// Run times a kernel on the compute engine that reads ins and writes out,
// after the host issued it (Cost.IssueNs), its inputs are ready and
// out's memory is allocated. flops is the op's compute work (0 for
// memory-bound ops).
func (d *Model) Run(out *Buffer, ins []*Buffer, flops int64) Span {
	bytes := out.bytes
	for _, in := range ins {
		bytes += in.bytes
	}
	return d.RunBytes(out, ins, flops, bytes)
}

// RunBytes is Run for a kernel that reads and writes bytes in all (Run
// sums the buffers' sizes; a caller that lists a repeated operand once
// gives the sum itself).
func (d *Model) RunBytes(out *Buffer, ins []*Buffer, flops, bytes int64) Span {
	d.host += d.cost.IssueNs
	ready := max(d.compute, d.host, out.AllocAt)
	for _, in := range ins {
		ready = max(ready, in.ReadyAt)
	}
	s := Span{Start: ready}
	s.End = s.Start + d.cost.OpNs(flops, bytes)
	d.compute = s.End
	d.computeNs += s.Dur()
	out.ReadyAt = s.End
	out.BusyUntil = max(out.BusyUntil, s.End)
	for _, in := range ins {
		in.BusyUntil = max(in.BusyUntil, s.End)
	}
	d.settle()
	return s
}

// Clone is an independent copy of the model, for a search that tries
// several decisions from one state (package optimal). The buffers stay
// the caller's: the caller copies the Buffers it holds (a Buffer is a
// plain value, `nb := *b`) and uses the copies with the clone.
func (d *Model) Clone() *Model {
	c := *d
	c.mem.ev = append([]memEvent(nil), d.mem.ev...)
	c.mem.scratch = nil
	c.spare = nil
	return &c
}
