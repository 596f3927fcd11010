package stdlib

import (
	"fmt"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/tensor"
)

// torchAliases are torch's other names for builtins tref has: each runs
// its target (errors name the alias).
var torchAliases = []struct{ name, target, torchName string }{
	{"clip", "clamp", "torch.clip"},
	{"multiply", "mul", "torch.multiply"},
	{"subtract", "sub", "torch.subtract"},
	{"divide", "div", "torch.divide"},
	{"true_divide", "div", "torch.true_divide"},
	{"greater", "gt", "torch.greater"},
	{"greater_equal", "ge", "torch.greater_equal"},
	{"less", "lt", "torch.less"},
	{"less_equal", "le", "torch.less_equal"},
	{"not_equal", "ne", "torch.not_equal"},
	{"negative", "neg", "torch.negative"},
	{"absolute", "abs", "torch.absolute"},
	{"arccos", "acos", "torch.arccos"},
	{"arcsin", "asin", "torch.arcsin"},
	{"arctan", "atan", "torch.arctan"},
	{"arctan2", "atan2", "torch.arctan2"},
	{"arccosh", "acosh", "torch.arccosh"},
	{"arcsinh", "asinh", "torch.arcsinh"},
	{"arctanh", "atanh", "torch.arctanh"},
	{"fix", "trunc", "torch.fix"},
	{"sgn", "sign", "torch.sgn (real tensors)"},
	{"concat", "cat", "torch.concat"},
	{"concatenate", "cat", "torch.concatenate"},
	{"moveaxis", "movedim", "torch.moveaxis"},
	{"floor_divide", "floordiv", "torch.floor_divide (which floors since torch 1.13)"},
	{"mvlgamma", "multigammaln", "torch.mvlgamma"},
	{"split_with_sizes", "split", "torch.split_with_sizes"},
	{"unsafe_split", "split", "torch.unsafe_split"},
	{"unsafe_split_with_sizes", "split", "torch.unsafe_split_with_sizes"},
	{"unsafe_chunk", "chunk", "torch.unsafe_chunk"},
	{"modified_bessel_i0", "i0", "torch.special.modified_bessel_i0"},
	{"modified_bessel_i1", "i1", "torch.special.modified_bessel_i1"},
}

func init() {
	for _, a := range torchAliases {
		registerAlias(a.name, a.target, a.torchName)
	}
	register("rsub", "rsub(input, other, alpha=1): other - alpha·input, as torch.rsub (sub with its operands swapped)", builtinRsub)
	register("positive", "positive(input): input itself, as torch.positive (a bool tensor is an error, as torch's)", builtinPositive)
	register("constant_pad_nd", "constant_pad_nd(input, pad, value=0): pad(input, pad, mode=\"constant\", value=value), as torch.constant_pad_nd", builtinConstantPadND)
	register("adjoint", "adjoint(input): the last two dimensions swapped (input.mH; for real tensors input.mT), as torch.adjoint", builtinAdjoint)
}

func builtinRsub(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x, y eval.Value
	alpha := eval.Value(eval.Int(1))
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input", &x, "other", &y, "alpha?", &alpha); err != nil {
		return nil, err
	}
	return table["sub"].Fn(th, b, []eval.Value{y, x}, []eval.Kwarg{{Name: "alpha", Value: alpha}})
}

func builtinPositive(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x eval.Value
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x); err != nil {
		return nil, err
	}
	switch v := x.(type) {
	case eval.Tensor:
		if v.Ref.DType() == tensor.Bool {
			return nil, fmt.Errorf("%s: not supported on a bool tensor, as torch's", b.Name)
		}
		th.RT.Retain(v.Ref)
		return v, nil
	case eval.Int, eval.Float32, eval.Float64:
		return v, nil
	}
	return nil, fmt.Errorf("%s: argument \"input\" must be a tensor or a number, not %s", b.Name, eval.Describe(x))
}

func builtinConstantPadND(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x, pad eval.Value
	value := eval.Value(eval.Int(0))
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input", &x, "pad", &pad, "value?", &value); err != nil {
		return nil, err
	}
	return table["pad"].Fn(th, b, []eval.Value{x, pad}, []eval.Kwarg{{Name: "mode", Value: eval.String("constant")}, {Name: "value", Value: value}})
}

func builtinAdjoint(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x eval.Value
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x); err != nil {
		return nil, err
	}
	if t, ok := x.(eval.Tensor); !ok || len(t.Ref.Shape()) < 2 {
		return nil, fmt.Errorf("%s: input must be a tensor of at least 2 dimensions, not %s", b.Name, eval.Describe(x))
	}
	return table["transpose"].Fn(th, b, []eval.Value{x, eval.Int(-2), eval.Int(-1)}, nil)
}

// registerAlias registers name as target under torch's name torchName.
func registerAlias(name, target, torchName string) {
	register(name, name+"(...): "+target+" under "+torchName+"'s name (see "+target+")",
		func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
			return table[target].Fn(th, b, args, kwargs)
		})
}
