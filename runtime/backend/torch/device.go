package torch

import (
	"fmt"
	"os"
	"time"

	"github.com/tref-lang/tref/runtime/device"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// The torch backend serves devices "torch:cpu" and "cuda:N". libtorch is
// loaded only when one of them is opened.
func init() {
	device.Register(device.Kind{Name: "torch", Arg: "cpu", Open: open})
	device.Register(device.Kind{Name: "cuda", Indexed: true, Open: open})
}

func open(spec device.Spec, opts device.Options) (device.Device, error) {
	if spec.Kind == "cuda" && !GPUPresent() {
		// Checked before loading libtorch, so that --device auto on a
		// machine without a GPU costs nothing.
		return nil, device.Absent{Why: "no NVIDIA GPU on this machine (no /dev/nvidiactl)"}
	}
	if spec.Kind == "cuda" && os.Getenv("TREF_CUDA_SYNC") == "" {
		return openPlane(spec, opts)
	}
	d, err := Open(spec.Name, "")
	if err != nil {
		return nil, err // not a nil *Device in a non-nil interface
	}
	return d, nil
}

// Device is libtorch on one device (the CPU for "torch:cpu", or a CUDA
// device) as a data plane of the placement engine: its memory is libtorch
// tensors, and moving a tensor between tref's host buffers and libtorch
// is a real copy. Calls are synchronous (libtorch's CPU ops, blocking
// copies on CUDA's default stream), so the times it reports are wall
// times measured around each call.
type Device struct {
	lib   *Lib
	name  string
	dev   int
	start time.Time
	live  refs.PoolStats
}

// tensorMem is a libtorch tensor of the device's, 0 until a copy or op
// writes it.
type tensorMem struct {
	h     Handle
	bytes int64
}

// NewDevice opens device "torch:cpu" or "cuda:N" on a loaded plugin.
func NewDevice(lib *Lib, name string) (*Device, error) {
	d := &Device{lib: lib, name: name, dev: -1, start: time.Now()}
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

// Caps: wall-clock times; results never take over an operand's tensor
// (libtorch's ops make new ones, so the operand and the result coexist);
// the host's kernels differ from libtorch's, so an op that does not fit
// the budget is an error rather than a silent change of numbers. Without
// --mem every tensor stays resident.
func (d *Device) Caps() device.Caps {
	return device.Caps{Clock: device.Wall, Memory: device.Unbounded}
}

// Supports is "" when the plugin has a kernel for op and can take its
// attributes.
func (d *Device) Supports(op *refs.Op) string { return supports(d.lib, op) }

// supports is "" when lib has a kernel for op and can take its
// attributes and dtypes.
func supports(lib *Lib, op *refs.Op) string {
	if !lib.HasOp(op.Op) {
		return "the torch plugin has no kernel for " + op.Op.Name()
	}
	if _, scalar := ops.ScalarSlot(op.Attrs); scalar && (lib.scalars < 1 || op.Op == ops.Where && lib.scalars < 2) {
		return "the torch plugin " + lib.Path + " predates scalar operands (" + op.Op.Name() + "); rebuild it with scripts/build-torch.sh"
	}
	if _, _, ok := marshal(op); !ok {
		return fmt.Sprintf("the torch backend cannot pass the attributes of %s (%T)", op.Op.Name(), op.Attrs)
	}
	return unsupportedDType(op)
}

// unsupportedDType names an operand or result dtype that the plugin's C
// ABI has no code for (the integer widths other than int64 and uint8), or
// returns "".
func unsupportedDType(op *refs.Op) string {
	if dt := op.Out.DType(); !holds(dt) {
		return fmt.Sprintf("the torch plugin has no %s tensors (%s)", dt, op.Op.Name())
	}
	for _, in := range op.Inputs {
		if dt := in.DType(); !holds(dt) {
			return fmt.Sprintf("the torch plugin has no %s tensors (%s)", dt, op.Op.Name())
		}
	}
	return ""
}

// Holds reports whether the plugin's C ABI has a code for dt.
func (d *Device) Holds(dt tensor.DType) bool { return holds(dt) }

func holds(dt tensor.DType) bool { return !dt.IsNarrowInt() }

// Alloc makes an empty slot: libtorch allocates the tensor when a copy
// or an op makes it.
func (d *Device) Alloc(m tensor.Meta) (device.Memory, error) {
	return &tensorMem{bytes: m.Bytes()}, nil
}

// set makes h the tensor of m.
func (d *Device) set(m *tensorMem, h Handle) {
	if m.h != 0 {
		d.drop(m)
	}
	m.h = h
	d.live.LiveRefs++
	d.live.LiveBytes += m.bytes
	d.live.PeakBytes = max(d.live.PeakBytes, d.live.LiveBytes)
}

func (d *Device) drop(m *tensorMem) {
	d.lib.Free(m.h)
	m.h = 0
	d.live.LiveRefs--
	d.live.LiveBytes -= m.bytes
}

// Free releases mem's tensor.
func (d *Device) Free(mem device.Memory) {
	if m := mem.(*tensorMem); m.h != 0 {
		d.drop(m)
	}
}

// span is the wall time from start to now on the device's clock.
func (d *Device) span(start int64) device.Span { return device.Span{Start: start, End: d.Now()} }

// CopyIn copies src into a new libtorch tensor.
func (d *Device) CopyIn(dst device.Memory, src *tensor.Dense) (device.Span, error) {
	t0 := d.Now()
	h, err := d.lib.FromHost(src, d.dev)
	if err != nil {
		return device.Span{}, err
	}
	d.set(dst.(*tensorMem), h)
	return d.span(t0), nil
}

// CopyOut copies src's tensor into dst.
func (d *Device) CopyOut(dst *tensor.Dense, src device.Memory) (device.Span, error) {
	t0 := d.Now()
	m := src.(*tensorMem)
	if m.h == 0 {
		return device.Span{}, fmt.Errorf("internal: %s: copy out of a tensor never written", d.name)
	}
	if err := d.lib.ToHost(m.h, dst); err != nil {
		return device.Span{}, err
	}
	return d.span(t0), nil
}

// Run runs op in libtorch.
func (d *Device) Run(op *refs.Op, out device.Memory, ins []device.Memory) (device.Span, error) {
	t0 := d.Now()
	ia, fa, ok := marshal(op)
	if !ok {
		return device.Span{}, fmt.Errorf("internal: %s: cannot pass the attributes of %s", d.name, op.Op.Name())
	}
	var buf [4]Handle
	hs := buf[:0]
	for _, in := range ins {
		m := in.(*tensorMem)
		if m.h == 0 {
			return device.Span{}, fmt.Errorf("internal: %s: %s reads a tensor never written", d.name, op.Op.Name())
		}
		hs = append(hs, m.h)
	}
	h, err := d.lib.Op(op.Op, hs, ia, fa)
	if err != nil {
		return device.Span{}, err
	}
	got, want := d.lib.Meta(h), op.Out.Meta()
	if !got.Shape.Equal(want.Shape) || got.DType != want.DType {
		d.lib.Free(h)
		return device.Span{}, fmt.Errorf("torch backend: %s gave %v where tref infers %v", op.Op.Name(), got, want)
	}
	d.set(out.(*tensorMem), h)
	return d.span(t0), nil
}

// Sync waits for the device.
func (d *Device) Sync() error {
	if d.dev >= 0 {
		d.lib.mu.Lock()
		defer d.lib.mu.Unlock()
		if r := d.lib.sync(d.dev); r != 0 {
			return d.lib.lastError()
		}
	}
	return nil
}

// Now is the wall time since the device was opened.
func (d *Device) Now() int64 { return int64(time.Since(d.start)) }

// Stats counts the tensors libtorch holds for tref and their bytes.
func (d *Device) Stats() refs.PoolStats { return d.live }

// Close reports tensors still held.
func (d *Device) Close() error {
	if d.live.LiveRefs != 0 {
		return fmt.Errorf("%s: %d tensors (%d bytes) still held", d.name, d.live.LiveRefs, d.live.LiveBytes)
	}
	return nil
}
