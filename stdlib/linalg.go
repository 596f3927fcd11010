package stdlib

import (
	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
)

// Linear algebra builtins: matmul (the @ operator), linear and outer.
func init() {
	register("matmul", "matmul(a, b) (torch's input=, other= too): matrix product with torch.matmul's rules (1-d operands, broadcast batch dimensions); also a @ b", builtinMatmul)
	register("linear", "linear(x, w, b=none) (torch's input=, weight=, bias= too): x @ w.T + b with w of shape [out, in], as torch's F.linear", builtinLinear)
	register("outer", "outer(a, b) (torch's input=, vec2= too): outer product of two vectors, shape [len(a), len(b)]", builtinOuter)
}

func builtinMatmul(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var a, b *refs.Ref
	if err := eval.UnpackArgs(th, "matmul", args, kwargs, "a|input", &a, "b|other", &b); err != nil {
		return nil, err
	}
	return th.Submit(ops.Matmul, nil, a, b)
}

func builtinLinear(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x, w *refs.Ref
	var bias eval.Value = eval.None
	if err := eval.UnpackArgs(th, "linear", args, kwargs, "x|input", &x, "w|weight", &w, "b|bias?", &bias); err != nil {
		return nil, err
	}
	ins, err := withOptional(th, "linear", "b", []*refs.Ref{x, w}, bias)
	if err != nil {
		return nil, err
	}
	return th.Submit(ops.Linear, nil, ins...)
}

func builtinOuter(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var a, b *refs.Ref
	if err := eval.UnpackArgs(th, "outer", args, kwargs, "a|input", &a, "b|vec2", &b); err != nil {
		return nil, err
	}
	return th.Submit(ops.Outer, nil, a, b)
}

// withOptional appends an optional tensor argument (none: absent) to ins.
func withOptional(th *eval.Thread, fname, param string, ins []*refs.Ref, v eval.Value) ([]*refs.Ref, error) {
	r, err := optionalTensor(th, fname, param, v)
	if err != nil {
		return nil, err
	}
	if r == nil {
		return ins, nil
	}
	return append(ins, r), nil
}
