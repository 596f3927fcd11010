package sim

import (
	"fmt"

	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Device is one simulated accelerator. Its memory is host memory counted
// against Capacity; its three engines (host->device copies, device->host
// copies, compute) each run one thing at a time in virtual time, and work
// on one engine waits for the events it depends on (a copy's end, a
// kernel's end, the host thread) by starting no earlier than them.
//
// Every method is called from the runtime's single host thread; data moves
// and kernels run at once in issue order, so results never depend on the
// virtual timing.
type Device struct {
	name   string
	params Params
	mem    timeline
	pool   *refs.HostPool
	// dense is Run's scratch list of input tensors.
	dense []*tensor.Dense
	// spare holds freed buffers for reuse by Alloc.
	spare []*Buffer

	// Free times of the engines and the host thread's clock: launches and
	// copies are issued by the host, so none starts before host.
	h2d, d2h, compute, host int64
	// computeNs sums kernel durations.
	computeNs int64
	buffers   int64
}

// Buffer is device memory holding one ref's data.
type Buffer struct {
	// Data is the simulated device memory (host memory that only this
	// device reads and writes).
	Data *tensor.Dense
	// AllocAt is when the memory became the buffer's; ReadyAt when its
	// contents are complete; BusyUntil when its last reader finishes.
	AllocAt, ReadyAt, BusyUntil int64
	bytes                       int64
	freed                       bool
}

// Bytes is the buffer's size.
func (b *Buffer) Bytes() int64 { return b.bytes }

// Span is when a piece of work ran on an engine, in virtual nanoseconds.
type Span struct {
	Start, End int64
}

// Dur is the span's length.
func (s Span) Dur() int64 { return s.End - s.Start }

// New makes a device named name ("sim:0") with capacity bytes of memory.
func New(name string, capacity int64, p Params) (*Device, error) {
	p = p.WithDefaults()
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if capacity <= 0 {
		return nil, fmt.Errorf("sim: device memory must be positive, got %d bytes", capacity)
	}
	pool := refs.NewHostPool()
	pool.Keep = 64 << 20
	return &Device{name: name, params: p, mem: timeline{capacity: capacity}, pool: pool}, nil
}

// Name is the device's name, e.g. "sim:0".
func (d *Device) Name() string { return d.name }

// Params is the cost model in use.
func (d *Device) Params() Params { return d.params }

// Capacity is the memory budget in bytes.
func (d *Device) Capacity() int64 { return d.mem.capacity }

// Used is the memory allocated and not freed, in issue order.
func (d *Device) Used() int64 { return d.mem.live }

// Peak is the most memory in use at any virtual time.
func (d *Device) Peak() int64 { return d.mem.peak }

// UsageAt is the memory in use at virtual time t, which must not lie
// before the earliest engine's free time.
func (d *Device) UsageAt(t int64) int64 { return d.mem.usageAt(t) }

// Host is the host thread's clock.
func (d *Device) Host() int64 { return d.host }

// ComputeFree is when the compute engine finishes its queued kernels.
func (d *Device) ComputeFree() int64 { return d.compute }

// H2DFree is when the host->device copy engine finishes its queue.
func (d *Device) H2DFree() int64 { return d.h2d }

// ComputeNs is the total time kernels ran.
func (d *Device) ComputeNs() int64 { return d.computeNs }

// Now is when every engine and the host are done.
func (d *Device) Now() int64 { return max(d.h2d, d.d2h, d.compute, d.host) }

// WaitHost blocks the host thread until t (a synchronous read, a host op).
func (d *Device) WaitHost(t int64) {
	d.host = max(d.host, t)
	d.settle()
}

// HostOp runs a kernel on the host thread, which first waits for ready;
// it returns when it ran.
func (d *Device) HostOp(flops, bytes, ready int64) Span {
	s := Span{Start: max(d.host, ready)}
	s.End = s.Start + d.params.HostOpNs(flops, bytes)
	d.host = s.End
	d.settle()
	return s
}

// settle lets the memory timeline forget the past: every allocation is
// placed at or after the host's clock and the free time of the engine that
// fills it (a copy in, or a kernel), so nothing will be placed before the
// earlier of those two engines.
func (d *Device) settle() {
	d.mem.advance(max(d.host, min(d.h2d, d.compute)))
}

// Alloc takes memory for a tensor of meta m, usable no earlier than
// earliest (and than the host thread), which must not lie before the
// h2d or compute engine's free time (the buffer is filled by one of them).
// It fails, allocating nothing, when the bytes already allocated leave no
// room.
func (d *Device) Alloc(m tensor.Meta, earliest int64) (*Buffer, error) {
	n := m.Bytes()
	if err := d.pool.Check(n); err != nil {
		return nil, err
	}
	at, err := d.mem.alloc(n, max(earliest, d.host))
	if err != nil {
		return nil, err
	}
	data, err := d.pool.Alloc(m)
	if err != nil {
		d.mem.free(n, at)
		return nil, err
	}
	d.buffers++
	var b *Buffer
	if k := len(d.spare); k > 0 {
		b, d.spare = d.spare[k-1], d.spare[:k-1]
	} else {
		b = new(Buffer)
	}
	*b = Buffer{Data: data, AllocAt: at, ReadyAt: at, BusyUntil: at, bytes: n}
	return b, nil
}

// Release is when b's memory can be reused: after its contents arrived and
// its last reader finished.
func (b *Buffer) Release() int64 { return max(b.AllocAt, b.ReadyAt, b.BusyUntil) }

// Free returns b's memory, released at b.Release(). Freeing twice is a
// no-op until the next Alloc: the device reuses freed Buffer structs, so
// a caller must drop its pointer to b once it is done reading b's fields
// after the Free.
func (d *Device) Free(b *Buffer) {
	if b == nil || b.freed {
		return
	}
	b.freed = true
	d.mem.free(b.bytes, b.Release())
	d.pool.Free(b.Data)
	b.Data = nil
	d.buffers--
	d.spare = append(d.spare, b)
}

// CopyIn copies src into b on the host->device engine, starting no
// earlier than srcReady (when the host copy became valid).
func (d *Device) CopyIn(b *Buffer, src *tensor.Dense, srcReady int64) (Span, error) {
	if len(src.Buf) != len(b.Data.Buf) {
		return Span{}, fmt.Errorf("sim: h2d of %d bytes into a buffer of %d", len(src.Buf), len(b.Data.Buf))
	}
	copy(b.Data.Buf, src.Buf)
	s := Span{Start: max(d.h2d, d.host, srcReady, b.AllocAt)}
	s.End = s.Start + d.params.CopyNs(b.bytes, d.params.H2D)
	d.h2d = s.End
	b.ReadyAt = s.End
	d.settle()
	return s, nil
}

// CopyOut copies b into dst on the device->host engine, after b's
// contents are ready.
func (d *Device) CopyOut(dst *tensor.Dense, b *Buffer) (Span, error) {
	if len(dst.Buf) != len(b.Data.Buf) {
		return Span{}, fmt.Errorf("sim: d2h of %d bytes into a buffer of %d", len(b.Data.Buf), len(dst.Buf))
	}
	copy(dst.Buf, b.Data.Buf)
	s := Span{Start: max(d.d2h, d.host, b.ReadyAt)}
	s.End = s.Start + d.params.CopyNs(b.bytes, d.params.D2H)
	d.d2h = s.End
	b.BusyUntil = max(b.BusyUntil, s.End)
	d.settle()
	return s, nil
}

// Run executes op's cpu kernel on device buffers on the compute engine,
// after its inputs are ready and out's memory is allocated. flops is the
// op's compute work (0 for memory-bound ops).
func (d *Device) Run(op ops.Op, attrs any, out *Buffer, ins []*Buffer, flops int64) (Span, error) {
	dense := d.dense[:0] // reused: a local array would escape to the kernel
	ready := max(d.compute, d.host, out.AllocAt)
	bytes := out.bytes
	for _, in := range ins {
		dense = append(dense, in.Data)
		ready = max(ready, in.ReadyAt)
		bytes += in.bytes
	}
	d.dense = dense
	err := cpu.Run(op, out.Data, dense, attrs)
	clear(dense)
	if err != nil {
		return Span{}, err
	}
	s := Span{Start: ready}
	s.End = s.Start + d.params.OpNs(flops, bytes)
	d.compute = s.End
	d.computeNs += s.Dur()
	out.ReadyAt = s.End
	out.BusyUntil = max(out.BusyUntil, s.End)
	for _, in := range ins {
		in.BusyUntil = max(in.BusyUntil, s.End)
	}
	d.settle()
	return s, nil
}

// Stats reports the device's allocator counters.
func (d *Device) Stats() refs.DeviceStats {
	ps := d.pool.Stats()
	return refs.DeviceStats{Device: d.name, PoolStats: refs.PoolStats{
		LiveRefs:    d.buffers,
		LiveBytes:   d.mem.live,
		PeakBytes:   d.mem.peak,
		CachedBytes: ps.CachedBytes,
		SlackBytes:  ps.SlackBytes,
		Hits:        ps.Hits,
		Misses:      ps.Misses,
	}}
}
