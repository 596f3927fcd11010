package stdlib

import "github.com/tref-lang/tref/lang/eval"

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
}

func init() {
	for _, a := range torchAliases {
		registerAlias(a.name, a.target, a.torchName)
	}
}

// registerAlias registers name as target under torch's name torchName.
func registerAlias(name, target, torchName string) {
	register(name, name+"(...): "+target+" under "+torchName+"'s name (see "+target+")",
		func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
			return table[target].Fn(th, b, args, kwargs)
		})
}
