package stdlib

import (
	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
)

func init() {
	register("attention", "attention(q, k, v, causal=false, scale=none): softmax(q @ k.T * scale) @ v over the last two dimensions (scale 1/sqrt(E) by default), as torch's scaled_dot_product_attention", builtinAttention)
}

func builtinAttention(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var q, k, v *refs.Ref
	var a ops.AttentionAttrs
	var scale eval.Value = eval.None
	if err := eval.UnpackArgs(th, "attention", args, kwargs, "q", &q, "k", &k, "v", &v,
		"causal?", &a.Causal, "scale?", &scale); err != nil {
		return nil, err
	}
	if _, none := scale.(eval.NoneType); !none {
		if err := eval.UnpackArgs(th, "attention", []eval.Value{scale}, nil, "scale", &a.Scale); err != nil {
			return nil, err
		}
		a.HasScale = true
	}
	return th.Submit(ops.Attention, a, q, k, v)
}
