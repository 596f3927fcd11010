// Package sim is tref's simulated accelerator, --device sim[:N]: its
// memory is host memory that only it reads and writes, and it computes
// with the cpu kernels, so results are bit-identical to --device cpu. Its
// clock is virtual: the placement engine's model of it (device.Model,
// with the cost model of --sim-bw, --sim-flops, ...) is its time, so
// traces and timings are deterministic and tests assert on them.
package sim

import (
	"fmt"

	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/device"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// DefaultMem is the simulated device's memory without --mem: a modest
// 8 GiB card.
const DefaultMem = 8 << 30

func init() {
	device.Register(device.Kind{Name: "sim", Indexed: true, Open: func(spec device.Spec, opts device.Options) (device.Device, error) {
		d := New(spec.Name, !opts.NoInPlace)
		d.inexact = opts.NoExactFallback
		if opts.Mem > 0 {
			d.budget = opts.Mem
		}
		return d, nil
	}})
}

// Device is one simulated accelerator.
type Device struct {
	name    string
	inplace bool
	// inexact makes Caps claim that the host's kernels differ from the
	// device's (device.Options.NoExactFallback).
	inexact bool
	pool    *refs.HostPool
	// budget is the memory the engine plans with (--mem, else
	// DefaultMem): the pool caches freed blocks only within what the live
	// ones leave of it, as a card's caching allocator does, so that
	// memstats never reports more than the card has.
	budget int64
	// dense is Run's scratch list of input tensors.
	dense []*tensor.Dense
}

// New makes a simulated device named name ("sim:0"). inplace lets op
// results take over dying operands' memory (device.Caps.InPlace).
func New(name string, inplace bool) *Device {
	pool := refs.NewHostPool()
	pool.Keep = 64 << 20
	return &Device{name: name, inplace: inplace, pool: pool, budget: DefaultMem}
}

// Name is the device's name, e.g. "sim:0".
func (d *Device) Name() string { return d.name }

// Caps: virtual time, and the host's kernels are the device's (unless
// told to claim otherwise).
func (d *Device) Caps() device.Caps {
	return device.Caps{Clock: device.Virtual, InPlace: d.inplace, ExactFallback: !d.inexact, Memory: DefaultMem}
}

// Supports runs every op the cpu backend has.
func (d *Device) Supports(op *refs.Op) string {
	if _, ok := cpu.Lookup(op.Op); !ok {
		return "the cpu backend has no kernel for " + op.Op.Name()
	}
	return ""
}

// Holds every dtype.
func (d *Device) Holds(tensor.DType) bool { return true }

// Alloc takes host memory for the simulated device's buffer.
func (d *Device) Alloc(m tensor.Meta) (device.Memory, error) {
	if err := d.pool.Check(m.Bytes()); err != nil {
		return nil, err
	}
	mem, err := d.pool.Alloc(m)
	d.trim()
	return mem, err
}

// Free returns mem to the pool.
func (d *Device) Free(mem device.Memory) {
	d.pool.Free(mem.(*tensor.Dense))
	d.trim()
}

// trim keeps the cached blocks within what the live ones leave of the
// budget.
func (d *Device) trim() {
	if st := d.pool.Stats(); st.LiveBytes+st.SlackBytes+st.CachedBytes > d.budget {
		d.pool.Trim(d.budget - st.LiveBytes - st.SlackBytes)
	}
}

// CopyIn copies src into dst.
func (d *Device) CopyIn(dst device.Memory, src *tensor.Dense) (device.Span, error) {
	b := dst.(*tensor.Dense)
	if len(src.Buf) != len(b.Buf) {
		return device.Span{}, fmt.Errorf("sim: h2d of %d bytes into a buffer of %d", len(src.Buf), len(b.Buf))
	}
	copy(b.Buf, src.Buf)
	return device.Span{}, nil
}

// CopyOut copies src into dst.
func (d *Device) CopyOut(dst *tensor.Dense, src device.Memory) (device.Span, error) {
	b := src.(*tensor.Dense)
	if len(dst.Buf) != len(b.Buf) {
		return device.Span{}, fmt.Errorf("sim: d2h of %d bytes into a buffer of %d", len(b.Buf), len(dst.Buf))
	}
	copy(dst.Buf, b.Buf)
	return device.Span{}, nil
}

// Run executes op's cpu kernel on device memory.
func (d *Device) Run(op *refs.Op, out device.Memory, ins []device.Memory) (device.Span, error) {
	dense := d.dense[:0] // reused: a local array would escape to the kernel
	for _, in := range ins {
		dense = append(dense, in.(*tensor.Dense))
	}
	d.dense = dense
	err := cpu.Run(op.Op, out.(*tensor.Dense), dense, op.Attrs)
	clear(dense)
	return device.Span{}, err
}

// Sync has nothing to wait for: work runs at once, in issue order.
func (d *Device) Sync() error { return nil }

// Now is 0: the device's times are the model's.
func (d *Device) Now() int64 { return 0 }

// Stats reports the host pool behind the simulated memory.
func (d *Device) Stats() refs.PoolStats { return d.pool.Stats() }

// Close checks that nothing is live.
func (d *Device) Close() error {
	if st := d.pool.Stats(); st.LiveRefs != 0 {
		return fmt.Errorf("sim: %d buffers (%d bytes) still allocated", st.LiveRefs, st.LiveBytes)
	}
	return nil
}
