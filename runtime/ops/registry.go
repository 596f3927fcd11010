// Package ops is tref's kernel registry: every tensor operation has one Def
// here with its backend-free shape and dtype inference. Backends keep their
// own kernel tables keyed by the same names; a backend that lacks a kernel
// fails cleanly, naming the op.
package ops

import (
	"fmt"
	"sort"
	"sync"

	"github.com/tref-lang/tref/runtime/tensor"
)

// InferFunc computes the output meta of an op from its inputs' metas and its
// attributes, or explains why they do not fit (naming both shapes).
type InferFunc func(in []tensor.Meta, attrs any) (tensor.Meta, error)

// CostFunc estimates an op's floating-point work for a cost model. Ops
// without one are treated as memory-bound (bytes read plus bytes written).
type CostFunc func(in []tensor.Meta, out tensor.Meta, attrs any) (flops int64)

// Def describes one operation.
type Def struct {
	// Name is the registry key, shared by every backend ("add", "matmul").
	Name string
	// Infer is required.
	Infer InferFunc
	// Flops is optional; see CostFunc.
	Flops CostFunc
	// Inplace lists the inputs whose buffer may become the output's buffer
	// when that input dies at this op and its meta equals the output's
	// (elementwise ops). Kernels of such ops must tolerate out aliasing
	// that input.
	Inplace []int
	// KeepsBytes marks an op whose result is input 0's bytes unchanged
	// under another shape (reshape): when input 0 dies at this op, the
	// result takes its buffer and nothing is copied. Its kernels must
	// tolerate out aliasing input 0.
	KeepsBytes bool
}

var (
	mu   sync.RWMutex
	defs = map[string]*Def{}
)

// Register adds a Def; registering a name twice is a programming error.
func Register(d *Def) {
	mu.Lock()
	defer mu.Unlock()
	if d.Name == "" || d.Infer == nil {
		panic("ops: Register needs a name and an Infer function")
	}
	if _, dup := defs[d.Name]; dup {
		panic("ops: duplicate op " + d.Name)
	}
	defs[d.Name] = d
}

// Lookup finds an op by name.
func Lookup(name string) (*Def, bool) {
	mu.RLock()
	defer mu.RUnlock()
	d, ok := defs[name]
	return d, ok
}

// MustLookup finds an op by name and panics when it is not registered; for
// package-level lookups of ops that are known to exist.
func MustLookup(name string) *Def {
	d, ok := Lookup(name)
	if !ok {
		panic(fmt.Sprintf("ops: unknown op %q", name))
	}
	return d
}

// Names lists every registered op, sorted.
func Names() []string {
	mu.RLock()
	defer mu.RUnlock()
	names := make([]string, 0, len(defs))
	for n := range defs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
