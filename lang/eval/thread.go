package eval

import (
	"errors"
	"io"
	"sync/atomic"

	"github.com/tref-lang/tref/lang/ast"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/rng"
	"github.com/tref-lang/tref/runtime/safefile"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Thread is the state of one running script: the runtime that owns its
// refs and the evaluator's call stack.
type Thread struct {
	RT *refs.Runtime
	// RNG is the script's random stream (rand, randn, randint, dropout);
	// nil until first use, when Rand seeds it with rng.DefaultSeed. The CLI's
	// --seed sets it with rng.New(n).
	RNG *rng.Source
	// Stdout receives print's output.
	Stdout io.Writer
	// Sandbox, when set, confines the files builtins read and write
	// (load, save) to its tree: check a path with Sandbox.Check.
	Sandbox *safefile.Sandbox
	// site is the call site set by SetSite, for threads without frames.
	site refs.Site
	// sitePos is the position of the builtin call or operator being
	// evaluated ("file:line:col"), for Submit.
	sitePos ast.Pos
	// stmtPos is the position of the statement being run (or the last
	// one run), for reporting a Go panic.
	stmtPos *ast.Pos
	// temps are refs made from numbers for the current builtin call.
	temps []*refs.Ref

	// The evaluator's state: the current frame, a pool of frames by
	// depth, the value stack their slots come from, the argument stack.
	cur    *frame
	depth  int
	frames []*frame
	stack  [][]Value
	top    []Value
	chunk  int
	sp     int
	args   []Value
	// curSite is the call site of the builtin being called, for Call.
	curSite *callSite
	// paths interns call paths (see pathOf).
	paths    map[pathKey]uint32
	pathInfo []pathEntry
	col      *collector
	// intr is set by Interpreter.Interrupt.
	intr *atomic.Bool
	// interp is the interpreter running the thread (nil for NewThread).
	interp *Interpreter
	// describe, set by Params, receives the parameters of the next
	// UnpackArgs call, which then returns errDescribed.
	describe *[]Param
	// replValue holds the value of a REPL input's final expression.
	replValue Value
}

// Rand returns the thread's random stream, creating it with the default
// seed on first use.
func (th *Thread) Rand() *rng.Source {
	if th.RNG == nil {
		th.RNG = rng.New(rng.DefaultSeed)
	}
	return th.RNG
}

// Site is the script position (and call path) of the current builtin call;
// builtins pass it to refs.Runtime.Submit so errors point at the script.
func (th *Thread) Site() refs.Site {
	if th.cur == nil {
		return th.site
	}
	return refs.Site{Pos: th.sitePos, Path: th.pathOf(th.cur)}
}

// ToRef returns v as a TensorRef. A Tensor's ref is borrowed; a number
// becomes a temporary constant (refs.Runtime.Constant: an op with a scalar
// form takes its value as an argument) that the thread releases after the
// current builtin call returns.
func (th *Thread) ToRef(v Value) (*refs.Ref, error) {
	switch v := v.(type) {
	case Tensor:
		return v.Ref, nil
	case Bool, Int, Float32, Float64:
		r := th.RT.Constant(th.Site(), ScalarOperand(v))
		th.temps = append(th.temps, r)
		return r, nil
	}
	return nil, errors.New("not a tensor")
}

// releaseTemps drops the temporary refs made since the stack of temps had
// length mark.
func (th *Thread) releaseTemps(mark int) {
	for i := mark; i < len(th.temps); i++ {
		th.RT.Release(th.temps[i])
		th.temps[i] = nil
	}
	th.temps = th.temps[:mark]
}

// ScalarDense makes a 0-d host tensor from an unboxed scalar.
func ScalarDense(v Value) *tensor.Dense { return ScalarOperand(v).Dense() }

// ScalarOperand is an unboxed scalar as an op's scalar operand: its dtype
// (ScalarDType) and exact value.
func ScalarOperand(v Value) ops.Scalar {
	switch v := v.(type) {
	case Int:
		return ops.IntScalar(int64(v))
	case Float32:
		return ops.FloatScalar(float64(v), tensor.Float32)
	case Float64:
		return ops.FloatScalar(float64(v), tensor.Float64)
	case Bool:
		return ops.FloatScalar(b2f(bool(v)), tensor.Bool)
	}
	return ops.Scalar{}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// AsInt reads v as an int: an integral scalar, or a 0-d integer tensor
// (forcing it).
func (th *Thread) AsInt(v Value) (int, bool) {
	if n, ok := toInt(v); ok {
		return n, true
	}
	if t, ok := v.(Tensor); ok && len(t.Ref.Shape()) == 0 && !t.Ref.DType().IsFloat() {
		d, err := th.RT.Read(t.Ref)
		if err != nil {
			return 0, false
		}
		return int(d.At(0)), true
	}
	return 0, false
}

// AsFloat reads v as a float64: any scalar, or a 0-d tensor (forcing it).
func (th *Thread) AsFloat(v Value) (float64, bool) {
	if f, ok := toFloat(v); ok {
		return f, true
	}
	if t, ok := v.(Tensor); ok && len(t.Ref.Shape()) == 0 {
		d, err := th.RT.Read(t.Ref)
		if err != nil {
			return 0, false
		}
		return d.At(0), true
	}
	return 0, false
}

// Submit queues a tensor op at the current call site and returns its
// promise as an owned Tensor value.
func (th *Thread) Submit(op ops.Op, attrs any, ins ...*refs.Ref) (Value, error) {
	r, err := th.RT.Submit(th.Site(), op, attrs, ins...)
	if err != nil {
		return nil, err
	}
	return Tensor{Ref: r}, nil
}

// NewThread makes a thread over rt, for calling builtins outside a script
// (tests, tools). It can also call script functions passed to it.
func NewThread(rt *refs.Runtime) *Thread {
	return &Thread{RT: rt, Stdout: io.Discard, col: &collector{rt: rt}, intr: new(atomic.Bool)}
}

// SetSite sets the call site that subsequent submits report, for threads
// that are not running a script.
func (th *Thread) SetSite(s refs.Site) {
	th.site = s
	th.sitePos = s.Pos
}

// CallBuiltin calls b with borrowed arguments and returns its owned
// result, releasing the temporary refs the call made from numbers.
func CallBuiltin(th *Thread, b *Builtin, args []Value, kwargs []Kwarg) (Value, error) {
	mark := len(th.temps)
	v, err := b.Fn(th, b, args, kwargs)
	th.releaseTemps(mark)
	return v, err
}
