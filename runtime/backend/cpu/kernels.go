// Package cpu is tref's embedded pure-Go backend: one kernel per registered
// op (runtime/ops), run on host tensors, and Device, the executor that runs
// a script entirely on the host.
package cpu

import (
	"fmt"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Kernel computes out from ins. out is allocated with the inferred meta
// but not zeroed: a kernel writes every element. For ops whose Def lists
// Inplace inputs, out may share its buffer with one of those inputs.
type Kernel func(out *tensor.Dense, ins []*tensor.Dense, attrs any) error

// kernels is indexed by op handle; nil where the cpu backend has no
// kernel. Written only during package initialisation (Register).
var kernels []Kernel

// Register adds the cpu kernel for op. Unless the op is exempt
// (narrowExempt), the kernel sees narrow integer operands as int64 (see
// widenNarrow). Call it only during package initialisation.
func Register(op ops.Op, k Kernel) {
	if int(op) >= len(kernels) {
		kernels = append(kernels, make([]Kernel, int(op)+1-len(kernels))...)
	}
	if kernels[op] != nil {
		panic("cpu: duplicate kernel " + op.Name())
	}
	if !narrowExempt[op] {
		k = widenNarrow(k)
	}
	kernels[op] = k
}

// Lookup finds the cpu kernel of op.
func Lookup(op ops.Op) (Kernel, bool) {
	if int(op) >= len(kernels) || kernels[op] == nil {
		return nil, false
	}
	return kernels[op], true
}

// Ops lists the ops that have a cpu kernel, in handle order.
func Ops() []ops.Op {
	var have []ops.Op
	for i, k := range kernels {
		if k != nil {
			have = append(have, ops.Op(i))
		}
	}
	return have
}

// Run executes op on host tensors.
func Run(op ops.Op, out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
	k, ok := Lookup(op)
	if !ok {
		return fmt.Errorf("the cpu backend has no kernel for op %q", op.Name())
	}
	return k(out, ins, attrs)
}
