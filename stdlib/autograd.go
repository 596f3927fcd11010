package stdlib

import (
	"fmt"
	"strings"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/autograd"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Reverse-mode gradients in JAX's style (runtime/autograd records the
// ops; each op's rule is in runtime/ops): grad and value_and_grad
// transform a function, stop_gradient and detach cut a value off.

func init() {
	register("grad", "grad(f, argnums=0): a function that returns the gradient of f's one-element float result with respect to argument argnums (an int or a list of ints; a tensor or a list/record tree of tensors)", builtinGrad(false))
	register("value_and_grad", "value_and_grad(f, argnums=0): like grad, but the function returns {value, grad}", builtinGrad(true))
	register("stop_gradient", "stop_gradient(x): x as a constant to every grad", builtinStopGradient)
	register("detach", "detach(x): x as a constant to every grad (as stop_gradient)", builtinStopGradient)
	register("checkpoint", "checkpoint(f): f, whose activations grad does not keep: backward runs f again (gradients flow through f's float tensor arguments)", builtinCheckpoint)
}

func builtinGrad(withValue bool) eval.BuiltinFunc {
	name := "grad"
	if withValue {
		name = "value_and_grad"
	}
	return func(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		var f, argnums eval.Value
		argnums = eval.Int(0)
		if err := eval.UnpackArgs(th, name, args, kwargs, "f", &f, "argnums?", &argnums); err != nil {
			return nil, err
		}
		if f.Type() != "function" {
			return nil, fmt.Errorf("%s: f must be a function, not %s", name, eval.Describe(f))
		}
		nums, single, err := argnumList(th, name, argnums)
		if err != nil {
			return nil, err
		}
		eval.Retain(th.RT, f)
		label := fmt.Sprintf("%s(%s)", name, strings.TrimPrefix(eval.Describe(f), "function "))
		return eval.NewBound(label, func(th *eval.Thread, held, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
			return gradCall(th, name, held[0], nums, single, withValue, args, kwargs)
		}, []eval.Value{f}), nil
	}
}

// argnumList reads argnums: an int (single) or a list of distinct ints.
func argnumList(th *eval.Thread, name string, v eval.Value) ([]int, bool, error) {
	if n, ok := th.AsInt(v); ok {
		return []int{n}, true, nil
	}
	l, ok := v.(*eval.List)
	if !ok || len(l.Elems) == 0 {
		return nil, false, fmt.Errorf("%s: argnums must be an int or a non-empty list of ints, not %s", name, eval.Describe(v))
	}
	nums := make([]int, len(l.Elems))
	for i, e := range l.Elems {
		n, ok := th.AsInt(e)
		if !ok {
			return nil, false, fmt.Errorf("%s: argnums must be an int or a list of ints; element %d is %s", name, i, eval.Describe(e))
		}
		for _, m := range nums[:i] {
			if m == n {
				return nil, false, fmt.Errorf("%s: argnums repeats %d", name, n)
			}
		}
		nums[i] = n
	}
	return nums, false, nil
}

// gradCall calls f with args, recording the ops that depend on the float
// tensors of the arguments argnums, and differentiates its result.
func gradCall(th *eval.Thread, name string, f eval.Value, nums []int, single, withValue bool, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	for _, n := range nums {
		if n < 0 || n >= len(args) {
			return nil, fmt.Errorf("%s: argnums %d is out of range: the function was called with %d positional arguments", name, n, len(args))
		}
	}
	call := append([]eval.Value(nil), args...)
	var owned []eval.Value // the rebuilt argument trees
	defer func() {
		for _, v := range owned {
			eval.Release(th.RT, v)
		}
	}()
	var leaves []*refs.Ref
	for _, n := range nums {
		if err := topLevelFloat(name, n, args[n]); err != nil {
			return nil, err
		}
		v, err := zipTrees(th, []eval.Value{args[n]}, "", func(_ string, xs []eval.Value) (eval.Value, error) {
			return gradLeaf(th, xs[0], &leaves)
		})
		if err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		owned = append(owned, v)
		call[n] = v
	}
	tape := autograd.Start(th.RT, leaves)
	out, err := th.Call(f, call, kwargs)
	if err != nil {
		tape.Discard()
		return nil, err
	}
	var cot map[*refs.Ref]*refs.Ref
	switch o := out.(type) {
	case eval.Tensor:
		if m := o.Ref.Meta(); !m.DType.IsFloat() || m.Shape.Numel() != 1 {
			tape.Discard()
			eval.Release(th.RT, out)
			return nil, fmt.Errorf("%s: the function must return a one-element float tensor, got %s", name, eval.Describe(out))
		}
		cot, err = tape.Backward(o.Ref)
	case eval.Float32, eval.Float64:
		tape.Discard() // a constant result: every gradient is zero
		cot = map[*refs.Ref]*refs.Ref{}
	default:
		tape.Discard()
		eval.Release(th.RT, out)
		return nil, fmt.Errorf("%s: the function must return a one-element float tensor, got %s", name, eval.Describe(out))
	}
	if err != nil {
		eval.Release(th.RT, out)
		return nil, err
	}
	grads := make([]eval.Value, len(nums))
	for i, n := range nums {
		grads[i], _ = zipTrees(th, []eval.Value{call[n]}, "", func(_ string, xs []eval.Value) (eval.Value, error) {
			return gradOf(th, xs[0], cot), nil
		})
	}
	for _, r := range cot { // leaves' cotangents not taken (none are)
		th.RT.Release(r)
	}
	var g eval.Value
	if single {
		g = grads[0]
	} else {
		g = eval.NewList(grads)
	}
	if !withValue {
		eval.Release(th.RT, out)
		return g, nil
	}
	return eval.NewRecord([]string{"value", "grad"}, []eval.Value{out, g}), nil
}

// topLevelFloat rejects an argument that is itself a non-float number or
// not a number at all (a tree may hold such leaves: their gradient is
// none).
func topLevelFloat(name string, n int, v eval.Value) error {
	switch v := v.(type) {
	case *eval.List, *eval.Record, eval.Float32, eval.Float64:
		return nil
	case eval.Tensor:
		if v.Ref.DType().IsFloat() {
			return nil
		}
	}
	return fmt.Errorf("%s: argument %d is %s; gradients are taken with respect to float tensors (use astype(x, \"float32\"))", name, n, eval.Describe(v))
}

// gradLeaf makes the differentiated argument's leaf: a float tensor
// becomes a new ref holding its value (a copy, recorded by any enclosing
// grad), so that the function's other uses of the same tensor, through a
// closure or another argument, are constants to this grad, as in JAX; a
// float number becomes a tensor; anything else stays as it is and gets no
// gradient.
func gradLeaf(th *eval.Thread, v eval.Value, leaves *[]*refs.Ref) (eval.Value, error) {
	var r *refs.Ref
	switch x := v.(type) {
	case eval.Float32, eval.Float64:
		r = th.RT.FromHost(th.Site(), eval.ScalarDense(x))
	case eval.Tensor:
		if !x.Ref.DType().IsFloat() {
			eval.Retain(th.RT, v)
			return v, nil
		}
		c, err := th.RT.Submit(th.Site(), ops.Reshape, ops.ReshapeAttrs{Shape: x.Ref.Shape().Clone()}, x.Ref)
		if err != nil {
			return nil, err
		}
		r = c
	default:
		eval.Retain(th.RT, v)
		return v, nil
	}
	*leaves = append(*leaves, r)
	return eval.Tensor{Ref: r}, nil
}

// gradOf is the gradient tree's leaf for the argument's leaf v: its
// cotangent (taken from cot), zeros when the result does not depend on
// it, none for a leaf that is not a float tensor.
func gradOf(th *eval.Thread, v eval.Value, cot map[*refs.Ref]*refs.Ref) eval.Value {
	t, ok := v.(eval.Tensor)
	if !ok || !t.Ref.DType().IsFloat() {
		return eval.None
	}
	if g := cot[t.Ref]; g != nil {
		delete(cot, t.Ref)
		return eval.Tensor{Ref: g}
	}
	return eval.Tensor{Ref: th.RT.FromHost(th.Site(), tensor.NewDense(t.Ref.Meta()))}
}

func builtinStopGradient(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x eval.Value
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "x", &x); err != nil {
		return nil, err
	}
	t, ok := x.(eval.Tensor)
	if !ok {
		switch x.(type) {
		case eval.Bool, eval.Int, eval.Float32, eval.Float64:
			return x, nil
		}
		return nil, fmt.Errorf("%s: x must be a tensor, not %s", b.Name, eval.Describe(x))
	}
	if !autograd.Recording(th.RT) {
		th.RT.Retain(t.Ref)
		return x, nil
	}
	var out eval.Value
	err := autograd.Paused(th.RT, func() error {
		var err error
		out, err = th.Submit(ops.Reshape, ops.ReshapeAttrs{Shape: t.Ref.Shape().Clone()}, t.Ref)
		return err
	})
	return out, err
}

func builtinCheckpoint(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var f eval.Value
	if err := eval.UnpackArgs(th, "checkpoint", args, kwargs, "f", &f); err != nil {
		return nil, err
	}
	if f.Type() != "function" {
		return nil, fmt.Errorf("checkpoint: f must be a function, not %s", eval.Describe(f))
	}
	eval.Retain(th.RT, f)
	label := "checkpoint(" + strings.TrimPrefix(eval.Describe(f), "function ") + ")"
	return eval.NewBound(label, func(th *eval.Thread, held, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		return checkpointCall(th, held[0], args, kwargs)
	}, []eval.Value{f}), nil
}

// checkpointCall runs f with recording paused, so that no tape keeps its
// activations, and records one step on the tapes instead whose backward
// runs f again on copies of its float tensor arguments under a tape of
// its own and differentiates that.
func checkpointCall(th *eval.Thread, f eval.Value, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	if !autograd.Recording(th.RT) {
		return th.Call(f, args, kwargs)
	}
	var out eval.Value
	if err := autograd.Paused(th.RT, func() error {
		var err error
		out, err = th.Call(f, args, kwargs)
		return err
	}); err != nil {
		return nil, err
	}
	o, ok := out.(eval.Tensor)
	if !ok || !o.Ref.DType().IsFloat() {
		eval.Release(th.RT, out)
		return nil, fmt.Errorf("checkpoint: the function must return a float tensor, got %s", eval.Describe(out))
	}
	var ins []*refs.Ref
	for _, a := range args {
		walkLeaves(a, func(v eval.Value) {
			if t, ok := v.(eval.Tensor); ok && t.Ref.DType().IsFloat() {
				ins = append(ins, t.Ref)
			}
		})
	}
	// The arguments stay alive for the recompute (instead of the
	// activations).
	held := append([]eval.Value(nil), args...)
	kw := append([]eval.Kwarg(nil), kwargs...)
	for _, v := range held {
		eval.Retain(th.RT, v)
	}
	for _, k := range kw {
		eval.Retain(th.RT, k.Value)
	}
	site := th.Site()
	autograd.Custom(th.RT, site, ins, o.Ref, func(g *refs.Ref) ([]*refs.Ref, error) {
		return recompute(th, f, held, kw, len(ins), g)
	}, func() {
		for _, v := range held {
			eval.Release(th.RT, v)
		}
		for _, k := range kw {
			eval.Release(th.RT, k.Value)
		}
	})
	return out, nil
}

// recompute calls f again on copies of its float tensor arguments under
// a new tape and returns their cotangents from the result's, g.
func recompute(th *eval.Thread, f eval.Value, args []eval.Value, kwargs []eval.Kwarg, n int, g *refs.Ref) ([]*refs.Ref, error) {
	var leaves []*refs.Ref
	call := make([]eval.Value, len(args))
	defer func() {
		for _, v := range call {
			if v != nil {
				eval.Release(th.RT, v)
			}
		}
	}()
	for i, a := range args {
		v, err := zipTrees(th, []eval.Value{a}, "", func(_ string, xs []eval.Value) (eval.Value, error) {
			if t, ok := xs[0].(eval.Tensor); ok && t.Ref.DType().IsFloat() {
				return gradLeaf(th, xs[0], &leaves)
			}
			eval.Retain(th.RT, xs[0])
			return xs[0], nil
		})
		if err != nil {
			return nil, err
		}
		call[i] = v
	}
	if len(leaves) != n {
		return nil, fmt.Errorf("checkpoint: the arguments changed between the call and its recompute")
	}
	tape := autograd.Start(th.RT, leaves)
	out, err := th.Call(f, call, kwargs)
	if err != nil {
		tape.Discard()
		return nil, err
	}
	defer eval.Release(th.RT, out)
	o, ok := out.(eval.Tensor)
	if !ok || !o.Ref.Meta().Shape.Equal(g.Shape()) {
		tape.Discard()
		return nil, fmt.Errorf("checkpoint: the recompute gave %s, the call a tensor of shape %v", eval.Describe(out), g.Shape())
	}
	cot, err := tape.BackwardFrom(o.Ref, g)
	if err != nil {
		return nil, err
	}
	gs := make([]*refs.Ref, n)
	for i, l := range leaves {
		gs[i] = cot[l]
		delete(cot, l)
	}
	for _, r := range cot {
		th.RT.Release(r)
	}
	return gs, nil
}

// walkLeaves calls f on each leaf of a tree of lists and records.
func walkLeaves(v eval.Value, f func(eval.Value)) {
	switch v := v.(type) {
	case *eval.List:
		for _, e := range v.Elems {
			walkLeaves(e, f)
		}
	case *eval.Record:
		for _, e := range v.Values {
			walkLeaves(e, f)
		}
	default:
		f(v)
	}
}
