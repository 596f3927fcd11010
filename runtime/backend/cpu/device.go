package cpu

import (
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Device runs every op on the host. It is the executor for --device cpu
// and the fallback path of the placement engine.
type Device struct {
	// NoInplace turns off output buffer reuse (for measurements).
	NoInplace bool
}

// Execute runs op on the host, reusing a dying operand's buffer for the
// result when the op allows it.
func (d *Device) Execute(rt *refs.Runtime, op *refs.Op, _ []*refs.Op) error {
	return ExecuteOnHost(rt, op, !d.NoInplace)
}

// ExecuteOnHost runs op with host kernels: it makes every input's host copy
// valid, allocates (or steals) the output buffer and runs the kernel.
func ExecuteOnHost(rt *refs.Runtime, op *refs.Op, inplace bool) error {
	var buf [4]*tensor.Dense
	ins := buf[:0]
	for _, in := range op.Inputs {
		h, err := rt.Read(in)
		if err != nil {
			return err
		}
		ins = append(ins, h)
	}
	stolen := false
	if inplace {
		for _, i := range op.Def.Inplace {
			if i < len(op.Inputs) && rt.StealHost(op.Inputs[i], op.Out) {
				ins[i] = op.Out.HostBuffer()
				stolen = true
				break
			}
		}
	}
	out := op.Out.HostBuffer()
	if !stolen {
		var err error
		if out, err = rt.AllocHost(op.Out); err != nil {
			return err
		}
	}
	if err := Run(op.Def.Name, out, ins, op.Attrs); err != nil {
		return err
	}
	rt.SetHostValid(op.Out, true)
	return nil
}

// ToHost is a no-op: on the cpu device the host copy is the only copy.
func (d *Device) ToHost(*refs.Runtime, *refs.Ref) error { return nil }

// Drop has nothing to release beyond the host copy, which the runtime frees.
func (d *Device) Drop(*refs.Runtime, *refs.Ref) {}

// Sync has no outstanding work.
func (d *Device) Sync(*refs.Runtime) error { return nil }

// Stats reports no devices beyond the host.
func (d *Device) Stats() []refs.DeviceStats { return nil }
