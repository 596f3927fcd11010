// Package cpu is tref's embedded pure-Go backend: one kernel per registered
// op (runtime/ops), run on host tensors, and Device, the executor that runs
// a script entirely on the host.
package cpu

import (
	"fmt"
	"sort"
	"sync"

	"github.com/tref-lang/tref/runtime/tensor"
)

// Kernel computes out from ins. out is allocated with the inferred meta
// but not zeroed: a kernel writes every element. For ops whose Def lists
// Inplace inputs, out may share its buffer with one of those inputs.
type Kernel func(out *tensor.Dense, ins []*tensor.Dense, attrs any) error

var (
	mu      sync.RWMutex
	kernels = map[string]Kernel{}
)

// Register adds the cpu kernel for an op. Unless the op is exempt
// (narrowExempt), the kernel sees narrow integer operands as int64 (see
// widenNarrow).
func Register(op string, k Kernel) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := kernels[op]; dup {
		panic("cpu: duplicate kernel " + op)
	}
	if !narrowExempt[op] {
		k = widenNarrow(k)
	}
	kernels[op] = k
}

// Lookup finds the cpu kernel of an op.
func Lookup(op string) (Kernel, bool) {
	mu.RLock()
	defer mu.RUnlock()
	k, ok := kernels[op]
	return k, ok
}

// Ops lists the ops that have a cpu kernel, sorted.
func Ops() []string {
	mu.RLock()
	defer mu.RUnlock()
	names := make([]string, 0, len(kernels))
	for n := range kernels {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Run executes op on host tensors.
func Run(op string, out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
	k, ok := Lookup(op)
	if !ok {
		return fmt.Errorf("the cpu backend has no kernel for op %q", op)
	}
	return k(out, ins, attrs)
}
