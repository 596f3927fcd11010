package torch

import (
	"fmt"
	"runtime"
	"unsafe"

	"github.com/ebitengine/purego"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Handle is a libtorch tensor owned by tref; Free releases it.
type Handle uintptr

// FromHost copies a host tensor to device dev (-1 for the CPU).
func (l *Lib) FromHost(d *tensor.Dense, dev int) (Handle, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	shape := make([]int64, len(d.Shape)+1) // +1 keeps the pointer valid for 0-d tensors
	for i, s := range d.Shape {
		shape[i] = int64(s)
	}
	var data unsafe.Pointer
	if len(d.Buf) > 0 {
		data = unsafe.Pointer(&d.Buf[0])
	}
	r, _, _ := purego.SyscallN(l.fnFromHost, uintptr(data), uintptr(len(d.Buf)), uintptr(d.DType),
		uintptr(unsafe.Pointer(&shape[0])), uintptr(len(d.Shape)), uintptr(dev))
	runtime.KeepAlive(d)
	runtime.KeepAlive(shape)
	if r == 0 {
		return 0, l.lastError()
	}
	return Handle(r), nil
}

// ToHost copies h's data into d, whose meta must match.
func (l *Lib) ToHost(h Handle, d *tensor.Dense) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	var data unsafe.Pointer
	if len(d.Buf) > 0 {
		data = unsafe.Pointer(&d.Buf[0])
	}
	r, _, _ := purego.SyscallN(l.fnToHost, uintptr(h), uintptr(data), uintptr(len(d.Buf)))
	runtime.KeepAlive(d)
	if int32(r) != 0 {
		return l.lastError()
	}
	return nil
}

// Free releases h.
func (l *Lib) Free(h Handle) { purego.SyscallN(l.fnFree, uintptr(h)) }

// Meta reads h's shape and dtype.
func (l *Lib) Meta(h Handle) tensor.Meta {
	nd, _, _ := purego.SyscallN(l.fnNdim, uintptr(h))
	shape := make(tensor.Shape, int(int32(nd)))
	for i := range shape {
		d, _, _ := purego.SyscallN(l.fnDim, uintptr(h), uintptr(i))
		shape[i] = int(int64(d))
	}
	dt, _, _ := purego.SyscallN(l.fnDtype, uintptr(h))
	return tensor.Meta{Shape: shape, DType: tensor.DType(int32(dt))}
}

// StorageBytes is the size of the memory h keeps alive (its own bytes,
// or more for a view into a larger tensor).
func (l *Lib) StorageBytes(h Handle) int64 {
	r, _, _ := purego.SyscallN(l.fnStorage, uintptr(h))
	return int64(r)
}

// Op runs a plugin op over handles with marshalled attributes.
func (l *Lib) Op(op ops.Op, ins []Handle, ia []int64, fa []float64) (Handle, error) {
	if int(op) >= len(l.cnames) || op == 0 {
		return 0, fmt.Errorf("torch: no op %s (registered after the plugin loaded)", op)
	}
	return l.op(l.cnames[op], ins, ia, fa)
}

// op runs the plugin op named cname (NUL-terminated).
func (l *Lib) op(cname []byte, ins []Handle, ia []int64, fa []float64) (Handle, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var pins, pia, pfa unsafe.Pointer
	if len(ins) > 0 {
		pins = unsafe.Pointer(&ins[0])
	}
	if len(ia) > 0 {
		pia = unsafe.Pointer(&ia[0])
	}
	if len(fa) > 0 {
		pfa = unsafe.Pointer(&fa[0])
	}
	r, _, _ := purego.SyscallN(l.fnOp, uintptr(unsafe.Pointer(&cname[0])), uintptr(pins), uintptr(len(ins)),
		uintptr(pia), uintptr(len(ia)), uintptr(pfa), uintptr(len(fa)))
	runtime.KeepAlive(cname)
	runtime.KeepAlive(ins)
	runtime.KeepAlive(ia)
	runtime.KeepAlive(fa)
	if r == 0 {
		return 0, fmt.Errorf("torch: %w", l.lastError())
	}
	return Handle(r), nil
}

// sync waits for CUDA device dev; the caller holds l.mu.
func (l *Lib) sync(dev int) int32 {
	r, _, _ := purego.SyscallN(l.fnSync, uintptr(dev))
	return int32(r)
}
