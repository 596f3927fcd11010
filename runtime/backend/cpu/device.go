package cpu

import (
	"sync"

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

// insPool holds input lists for ExecuteOnHost: the list escapes into the
// kernel (a func value), and taking it from a pool rather than the heap
// keeps small ops allocation-free.
var insPool = sync.Pool{New: func() any {
	s := make([]*tensor.Dense, 0, 4)
	return &s
}}

// ExecuteOnHost runs op with host kernels: it makes every input's host copy
// valid, allocates (or steals) the output buffer and runs the kernel.
func ExecuteOnHost(rt *refs.Runtime, op *refs.Op, inplace bool) error {
	insp := insPool.Get().(*[]*tensor.Dense)
	ins, err := executeOnHost(rt, op, inplace, (*insp)[:0])
	for i := len(ins) - 1; i >= 0; i-- {
		ins[i] = nil // not clear(): its bulk write barrier costs more here
	}
	*insp = ins[:0]
	insPool.Put(insp)
	return err
}

// executeOnHost is ExecuteOnHost with ins as the (empty) input list; it
// returns the list it filled.
func executeOnHost(rt *refs.Runtime, op *refs.Op, inplace bool, ins []*tensor.Dense) ([]*tensor.Dense, error) {
	for _, in := range op.Inputs {
		h, err := rt.Read(in)
		if err != nil {
			return ins, err
		}
		ins = append(ins, h)
	}
	stolen := inplace && stealInput(rt, op, ins)
	out := op.Out.HostBuffer()
	if !stolen {
		var err error
		if out, err = rt.AllocHost(op.Out); err != nil {
			return ins, err
		}
	}
	if err := runOp(rt.HostPool(), op, out, ins); err != nil {
		return ins, err
	}
	rt.SetHostValid(op.Out, true)
	return ins, nil
}

// runOp runs op's kernel, the WeightKernel when the op has one and its
// weight is a constant (with the packings kept in host's memory).
func runOp(host *refs.HostPool, op *refs.Op, out *tensor.Dense, ins []*tensor.Dense) error {
	if len(op.Inputs) > 1 {
		if id := op.Inputs[1].ConstID(); id != 0 {
			if wk := weightKernels[op.Op]; wk != nil {
				if c := packsOf(host); c != nil {
					if done, err := wk(out, ins, op.Attrs, weight{id, c}); done || err != nil {
						return err
					}
				}
			}
		}
	}
	return Run(op.Op, out, ins, op.Attrs)
}

// stealInput gives op's result the host buffer of an input that dies at
// op, where the op allows that (ops.Def.Inplace, KeepsBytes), and points
// ins at it; it reports whether it did.
func stealInput(rt *refs.Runtime, op *refs.Op, ins []*tensor.Dense) bool {
	def := op.Def()
	if def.KeepsBytes {
		if len(op.Inputs) > 0 && rt.StealHostReshaped(op.Inputs[0], op.Out) {
			ins[0] = op.Out.HostBuffer()
			return true
		}
		return false
	}
	for _, i := range def.Inplace {
		if i < len(op.Inputs) && rt.StealHost(op.Inputs[i], op.Out) {
			ins[i] = op.Out.HostBuffer()
			return true
		}
	}
	return false
}

// ToHost is a no-op: on the cpu device the host copy is the only copy.
func (d *Device) ToHost(*refs.Runtime, *refs.Ref) error { return nil }

// Drop has nothing to release beyond the host copy, which the runtime frees.
func (d *Device) Drop(*refs.Runtime, *refs.Ref) {}

// Sync has no outstanding work.
func (d *Device) Sync(*refs.Runtime) error { return nil }

// Stats reports no devices beyond the host.
func (d *Device) Stats() []refs.DeviceStats { return nil }
