package stdlib

import (
	"fmt"
	"io"
	"testing"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// The optimizer and schedule goldens (testdata/golden/optim_port.json,
// gen_optim_port.py) replay several steps in one case through two
// builtins that exist only in this package's tests:
//
// optim_steps(name, params, grads, lrs, keys; kwargs) makes the optimizer
// name(; kwargs), updates the list of tensors params once per element of
// grads (a list of gradient lists), with lr=lrs[i] where lrs is a list
// and lrs[i] is a number (where it is a list, its elements are update's
// keyword arguments as name, value, name, value...), and gives the final
// parameters followed by the state's fields named in keys (a slot's
// leaves, or a number).
//
// lr_steps(name, n, args...; kwargs) gives the rates name(args...;
// kwargs, step=i) for i in range(n), as a float64 tensor.
func init() {
	register("optim_steps", "optim_steps(name, params, grads, lrs, keys): testing only", builtinOptimSteps)
	register("lr_steps", "lr_steps(name, n, args...): testing only", builtinLRSteps)
}

func builtinOptimSteps(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	if len(args) != 5 {
		return nil, fmt.Errorf("optim_steps(name, params, grads, lrs, keys)")
	}
	name, ok := args[0].(eval.String)
	grads, gok := args[2].(*eval.List)
	keys, kok := args[4].(*eval.List)
	if !ok || !gok || !kok {
		return nil, fmt.Errorf("optim_steps(name, params, grads, lrs, keys)")
	}
	opt, err := eval.CallBuiltin(th, Universe()[string(name)], nil, kwargs)
	if err != nil {
		return nil, err
	}
	defer eval.Release(th.RT, opt)
	field := func(v eval.Value, k string) eval.Value {
		f, _ := v.(*eval.Record).Get(k)
		return f
	}
	params := args[1]
	eval.Retain(th.RT, params)
	state, err := th.Call(field(opt, "init"), []eval.Value{params}, nil)
	defer func() { eval.Release(th.RT, params); eval.Release(th.RT, state) }()
	if err != nil {
		return nil, err
	}
	for i, g := range grads.Elems {
		var kw []eval.Kwarg
		if lrs, ok := args[3].(*eval.List); ok {
			switch v := lrs.Elems[i].(type) {
			case eval.NoneType:
			case *eval.List:
				for j := 0; j+1 < len(v.Elems); j += 2 {
					kw = append(kw, eval.Kwarg{Name: string(v.Elems[j].(eval.String)), Value: v.Elems[j+1]})
				}
			default:
				kw = []eval.Kwarg{{Name: "lr", Value: v}}
			}
		}
		r, err := th.Call(field(opt, "update"), []eval.Value{params, g, state}, kw)
		if err != nil {
			return nil, err
		}
		eval.Release(th.RT, params)
		eval.Release(th.RT, state)
		params, state = field(r, "params"), field(r, "state")
		eval.Retain(th.RT, params)
		eval.Retain(th.RT, state)
		eval.Release(th.RT, r)
	}
	out := append([]eval.Value(nil), params.(*eval.List).Elems...)
	for _, k := range keys.Elems {
		switch v := field(state, string(k.(eval.String))).(type) {
		case *eval.List:
			out = append(out, v.Elems...)
		default:
			out = append(out, v)
		}
	}
	for _, v := range out {
		eval.Retain(th.RT, v)
	}
	return eval.NewList(out), nil
}

func builtinLRSteps(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	if len(args) < 2 {
		return nil, fmt.Errorf("lr_steps(name, n, args...)")
	}
	name, ok := args[0].(eval.String)
	n, nok := th.AsInt(args[1])
	if !ok || !nok {
		return nil, fmt.Errorf("lr_steps(name, n, args...)")
	}
	d := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{n}, DType: tensor.Float64})
	for i := range n {
		kw := append([]eval.Kwarg{{Name: "step", Value: eval.Int(i)}}, kwargs...)
		v, err := eval.CallBuiltin(th, Universe()[string(name)], args[2:], kw)
		if err != nil {
			return nil, fmt.Errorf("at step %d: %v", i, err)
		}
		f, _ := th.AsFloat(v)
		d.Set(i, f)
	}
	return eval.Tensor{Ref: th.RT.FromHost(th.Site(), d)}, nil
}

// stopAt interrupts its interpreter when the k-th op starts.
type stopAt struct {
	cpu.Device
	k, n int
	in   *eval.Interpreter
}

func (x *stopAt) Execute(rt *refs.Runtime, op *refs.Op, ahead []*refs.Op) error {
	if x.n++; x.n == x.k {
		x.in.Interrupt()
	}
	return x.Device.Execute(rt, op, ahead)
}

// TestOptimPortInterruptLeaksNothing interrupts two updates of each new
// optimizer (every option that adds arithmetic on) at each of their ops
// in turn: the failed update must leave no tensor alive.
func TestOptimPortInterruptLeaksNothing(t *testing.T) {
	for _, opt := range []string{
		"adadelta(weight_decay=0.1, maximize=true)", "adamax(weight_decay=0.1, maximize=true)",
		"nadam(weight_decay=0.1)", "radam(weight_decay=0.1)", "rprop(maximize=true)",
		"asgd(weight_decay=0.1, t0=0, maximize=true)", "adam(amsgrad=true, maximize=true, weight_decay=0.1)",
	} {
		// radam's 6 steps reach its rectified branch; asgd's t0=0 its averaging
		src := fmt.Sprintf(`let o = %s
let p = {w: tensor([1.0, -2.0]), b: [tensor(0.5), 3]}
let s = o.init(p)
for i in range(6) {
  let r = o.update(p, {w: tensor([0.5, -0.25]) * (i - 2), b: [tensor(1.5), none]}, s, lr=0.01)
  p = r.params
  s = r.state
}
`, opt)
		for la := 0; la <= 8; la += 8 {
			for k := 1; ; k++ {
				x := &stopAt{k: k}
				rt := refs.New(x, refs.Options{Lookahead: la, TrackRefs: true})
				x.in = eval.NewInterpreter(eval.Config{RT: rt, Universe: Universe(), Stdout: io.Discard})
				err := x.in.RunSource("f.tr", []byte(src))
				x.in.Close()
				if n := rt.LiveRefs(); n != 0 {
					t.Fatalf("%s (lookahead %d) interrupted at op %d: %d refs alive (error: %v): %v", opt, la, k, n, err, rt.Leaks())
				}
				if x.n < k { // the run had fewer ops: every point was tried
					if err != nil {
						t.Fatalf("%s: %v", opt, err)
					}
					t.Logf("%s (lookahead %d): interrupted at each of %d ops", opt, la, k-1)
					break
				}
			}
		}
	}
}
