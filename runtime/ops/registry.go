// Package ops is tref's op registry: every tensor operation is registered
// once, as a Def with its backend-free shape and dtype inference, and is
// named everywhere else by the handle Register returns.
//
// A handle (Op) is a small integer, like tinygrad's Ops enum. The handles
// of the built-in ops are package variables of this package, declared next
// to their Defs:
//
//	var Matmul = Register(&Def{Name: "matmul", Infer: inferMatmul, Flops: matmulFlops})
//
// Everything downstream takes the handle: the evaluator and the builtins
// submit ops with it (refs.Runtime.Submit(site, ops.Matmul, attrs, a, b)),
// and each backend keeps its kernels in a slice indexed by it (Count sizes
// such tables), so running an op costs no map look-up and no lock. To add
// an op: register its Def here under a new exported handle, give each
// backend a kernel for that handle, and a builtin that submits it.
//
// Def.Name is for people and for boundaries: error messages, traces, and
// the torch plugin's C ABI, which names ops by string. Lookup turns a name
// back into a handle only where a name genuinely arrives from outside (tests
// that list ops by name, tools reading traces).
//
// Per-op rules that other layers need (a cost, in-place reuse, a gradient
// rule) are fields of Def, so that an op's whole description stays in one
// place. Every op has a gradient rule or a mark saying it is not
// differentiable (grad.go explains how to add one; each family's
// *_grad.go file holds its rules), or runtime/autograd's registry test
// fails.
package ops

import (
	"fmt"

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
	// Name is the op's name in messages, traces and the torch plugin's
	// C ABI ("add", "matmul"); unique.
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
	// TakesScalar marks an op whose last two operands are values one of
	// which may be a number (ScalarOperand attributes) in place of a
	// tensor: the binary elementwise ops and where. Its kernels take the
	// number as an argument (scalar.go).
	TakesScalar bool
	// Grad is the op's gradient rule, or its mark as not differentiable
	// (grad.go); set by defineGrads in the family's *_grad.go file.
	Grad *Grad
}

// Op is the handle of a registered op: an index into the registry, dense
// from 1, that backends use to index their kernel tables. The zero Op is
// no op.
type Op uint16

// The registry is written only while packages initialise (Register is
// called from package variable declarations and init functions) and read
// only after, so it needs no lock.
var (
	defs   = []*Def{nil} // defs[0] stands for the zero Op
	byName = map[string]Op{}
)

// Register adds a Def and returns its handle. Call it only during package
// initialisation; registering a name twice is a programming error.
func Register(d *Def) Op {
	if d.Name == "" || d.Infer == nil {
		panic("ops: Register needs a name and an Infer function")
	}
	if _, dup := byName[d.Name]; dup {
		panic("ops: duplicate op " + d.Name)
	}
	if len(defs) > int(^Op(0)) {
		panic("ops: too many ops")
	}
	op := Op(len(defs))
	defs = append(defs, d)
	byName[d.Name] = op
	return op
}

// Def is op's description; nil for the zero Op.
func (op Op) Def() *Def { return defs[op] }

// Name is op's name, for messages and traces.
func (op Op) Name() string {
	if op == 0 || int(op) >= len(defs) {
		return fmt.Sprintf("op#%d", int(op))
	}
	return defs[op].Name
}

// String is Name.
func (op Op) String() string { return op.Name() }

// Count is one more than the largest handle: the length of a table indexed
// by Op.
func Count() int { return len(defs) }

// Lookup finds an op by name, for names that come from outside the
// program (tests, traces); code names ops by their handles.
func Lookup(name string) (Op, bool) {
	op, ok := byName[name]
	return op, ok
}

// MustLookup is Lookup for names known to be registered (tests); it panics
// on an unknown name.
func MustLookup(name string) Op {
	op, ok := Lookup(name)
	if !ok {
		panic(fmt.Sprintf("ops: unknown op %q", name))
	}
	return op
}
