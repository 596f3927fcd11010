package torch

import (
	"fmt"

	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/refs"
)

// Device runs ops with libtorch on one device (the CPU for "torch:cpu",
// or a CUDA device with every tensor resident). Results stay in libtorch
// until the host reads them. An op the plugin lacks, or whose attributes it
// cannot take, runs on the host with the cpu kernels (counted in
// Fallbacks, reported through OnFallback).
type Device struct {
	lib  *Lib
	name string
	dev  int
	live refs.PoolStats
	// Fallbacks counts ops that ran on the host.
	Fallbacks int
	// OnFallback, when set, hears of each host fallback and why.
	OnFallback func(op *refs.Op, reason string)
}

// NewDevice opens device "torch:cpu" or "cuda:N" on a loaded plugin.
func NewDevice(lib *Lib, name string) (*Device, error) {
	d := &Device{lib: lib, name: name, dev: -1}
	if name != "torch:cpu" {
		var n int
		if _, err := fmt.Sscanf(name, "cuda:%d", &n); err != nil {
			return nil, fmt.Errorf("torch backend: unknown device %q (want torch:cpu or cuda:N)", name)
		}
		if have := lib.CUDADevices(); n >= have {
			return nil, fmt.Errorf("torch backend: no device %s (libtorch %s sees %d CUDA devices)", name, lib.Version, have)
		}
		d.dev = n
	}
	return d, nil
}

// Name is the device name as memstats() and traces show it.
func (d *Device) Name() string { return d.name }

// copyOf finds r's copy on this device.
func (d *Device) copyOf(r *refs.Ref) (Handle, bool) {
	for _, c := range r.Copies {
		if c.Device == d.name && c.Valid {
			return c.Buf.(Handle), true
		}
	}
	return 0, false
}

// resident returns r's handle on this device, copying it from the host
// when it has none yet.
func (d *Device) resident(rt *refs.Runtime, r *refs.Ref) (Handle, error) {
	if h, ok := d.copyOf(r); ok {
		return h, nil
	}
	host, err := rt.Read(r)
	if err != nil {
		return 0, err
	}
	h, err := d.lib.FromHost(host, d.dev)
	if err != nil {
		return 0, err
	}
	d.adopt(r, h)
	return h, nil
}

func (d *Device) adopt(r *refs.Ref, h Handle) {
	r.Copies = append(r.Copies, refs.DeviceCopy{Device: d.name, Buf: h, Valid: true})
	d.live.LiveRefs++
	d.live.LiveBytes += r.Bytes()
	d.live.PeakBytes = max(d.live.PeakBytes, d.live.LiveBytes)
}

// Execute runs op in libtorch, or on the host when the plugin cannot.
func (d *Device) Execute(rt *refs.Runtime, op *refs.Op, _ []*refs.Op) error {
	name := op.Op.Name()
	ia, fa, ok := marshal(op)
	reason := ""
	switch {
	case !d.lib.HasOp(op.Op):
		reason = "the torch plugin has no kernel for " + name
	case !ok:
		reason = fmt.Sprintf("the torch backend cannot pass the attributes of %s (%T)", name, op.Attrs)
	default:
		reason = unsupportedDType(op)
	}
	if reason != "" {
		d.Fallbacks++
		if d.OnFallback != nil {
			d.OnFallback(op, reason)
		}
		return cpu.ExecuteOnHost(rt, op, true)
	}
	var buf [4]Handle
	ins := buf[:0]
	for _, in := range op.Inputs {
		h, err := d.resident(rt, in)
		if err != nil {
			return err
		}
		ins = append(ins, h)
	}
	h, err := d.lib.Op(op.Op, ins, ia, fa)
	if err != nil {
		return err
	}
	got, want := d.lib.Meta(h), op.Out.Meta()
	if !got.Shape.Equal(want.Shape) || got.DType != want.DType {
		d.lib.Free(h)
		return fmt.Errorf("torch backend: %s gave %v where tref infers %v", name, got, want)
	}
	d.adopt(op.Out, h)
	return nil
}

// unsupportedDType names an operand or result dtype that the plugin's C
// ABI has no code for (the integer widths other than int64 and uint8), or
// returns "".
func unsupportedDType(op *refs.Op) string {
	if dt := op.Out.DType(); dt.IsNarrowInt() {
		return fmt.Sprintf("the torch plugin has no %s tensors (%s)", dt, op.Op)
	}
	for _, in := range op.Inputs {
		if dt := in.DType(); dt.IsNarrowInt() {
			return fmt.Sprintf("the torch plugin has no %s tensors (%s)", dt, op.Op)
		}
	}
	return ""
}

// ToHost copies r's data from libtorch into its host buffer.
func (d *Device) ToHost(rt *refs.Runtime, r *refs.Ref) error {
	h, ok := d.copyOf(r)
	if !ok {
		return fmt.Errorf("internal: ref#%d has no valid copy on %s or the host", r.ID(), d.name)
	}
	host, err := rt.AllocHost(r)
	if err != nil {
		return err
	}
	if err := d.lib.ToHost(h, host); err != nil {
		return err
	}
	rt.SetHostValid(r, true)
	return nil
}

// Drop frees r's libtorch tensor.
func (d *Device) Drop(_ *refs.Runtime, r *refs.Ref) {
	for _, c := range r.Copies {
		if c.Device == d.name {
			d.lib.Free(c.Buf.(Handle))
			d.live.LiveRefs--
			d.live.LiveBytes -= r.Bytes()
		}
	}
}

// Sync waits for the device.
func (d *Device) Sync(*refs.Runtime) error {
	if d.dev >= 0 {
		d.lib.mu.Lock()
		defer d.lib.mu.Unlock()
		if r := d.lib.sync(d.dev); r != 0 {
			return d.lib.lastError()
		}
	}
	return nil
}

// Stats reports the tensors libtorch holds for tref.
func (d *Device) Stats() []refs.DeviceStats {
	return []refs.DeviceStats{{Device: d.name, PoolStats: d.live}}
}
