package stdlib

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// torch's transformer modules as functions of a params record under
// their state_dict names, so that a checkpoint of nn.Transformer,
// nn.TransformerEncoder or a single layer runs as it is:
// transformer_encoder_layer and transformer_decoder_layer are
// nn.TransformerEncoderLayer's and nn.TransformerDecoderLayer's forward
// (post-norm, or pre-norm with norm_first), transformer_encoder and
// transformer_decoder their stacks ("layers.0.", ... and the optional
// final "norm."), transformer nn.Transformer's ("encoder.", "decoder.").
// The attention is multi_head_attention's.

func init() {
	register("transformer_encoder_layer", "transformer_encoder_layer(src, params, nhead, src_mask=none, src_key_padding_mask=none, activation=\"relu\", layer_norm_eps=1e-5, batch_first=false, norm_first=false, dropout=0.1, train=true): nn.TransformerEncoderLayer's forward: x = norm1(x + self_attn(x)), then norm2(x + linear2(dropout(activation(linear1(x))))) (norm_first: x + self_attn(norm1(x)), then x + ff(norm2(x))); params under its state_dict names (self_attn.in_proj_weight, ..., linear1.weight, linear1.bias, linear2.*, norm1.*, norm2.*; biases optional); src [S, N, E] ([N, S, E] with batch_first, [S, E] unbatched); masks as multi_head_attention's attn_mask and key_padding_mask; activation \"relu\" or \"gelu\"; dropout (torch's default 0.1) while train", transformerLayerBuiltin(false))
	register("transformer_decoder_layer", "transformer_decoder_layer(tgt, memory, params, nhead, tgt_mask=none, memory_mask=none, tgt_key_padding_mask=none, memory_key_padding_mask=none, activation=\"relu\", layer_norm_eps=1e-5, batch_first=false, norm_first=false, dropout=0.1, train=true): nn.TransformerDecoderLayer's forward: self-attention over tgt (self_attn.*, norm1), attention to memory (multihead_attn.*, norm2), the feed-forward block (linear1, linear2, norm3), each added to x and normalised after (or, norm_first, normalised before); see transformer_encoder_layer", transformerLayerBuiltin(true))
	register("transformer_encoder", "transformer_encoder(src, params, nhead, mask=none, src_key_padding_mask=none, activation=\"relu\", layer_norm_eps=1e-5, batch_first=false, norm_first=false, dropout=0.1, train=true): nn.TransformerEncoder's forward: transformer_encoder_layer with the weights under layers.0., layers.1., ... in turn, then the LayerNorm under norm. where params has one", transformerStackBuiltin(false))
	register("transformer_decoder", "transformer_decoder(tgt, memory, params, nhead, tgt_mask=none, memory_mask=none, tgt_key_padding_mask=none, memory_key_padding_mask=none, activation=\"relu\", layer_norm_eps=1e-5, batch_first=false, norm_first=false, dropout=0.1, train=true): nn.TransformerDecoder's forward: transformer_decoder_layer with the weights under layers.0., layers.1., ... in turn, then the LayerNorm under norm. where params has one", transformerStackBuiltin(true))
	register("transformer", "transformer(src, tgt, params, nhead, src_mask=none, tgt_mask=none, memory_mask=none, src_key_padding_mask=none, tgt_key_padding_mask=none, memory_key_padding_mask=none, activation=\"relu\", layer_norm_eps=1e-5, batch_first=false, norm_first=false, dropout=0.1, train=true): nn.Transformer's forward: transformer_encoder of src under encoder. (memory), then transformer_decoder of tgt and memory under decoder.", transformerBuiltin)
}

// layerOpts are the arguments a transformer layer takes beside its
// inputs, weights and masks.
type layerOpts struct {
	heads                 int
	activation            string
	eps, dropout          float64
	batchFirst, normFirst bool
}

// layerArgs reads layerOpts from the keyword pairs a builtin adds them
// to (after its own), checking them once parsed.
type layerArgs struct {
	o     layerOpts
	train bool
}

func (a *layerArgs) pairs() []any {
	a.o.activation, a.o.eps, a.o.dropout, a.train = "relu", 1e-5, 0.1, true
	return []any{"activation?", &a.o.activation, "layer_norm_eps?", &a.o.eps, "batch_first?", &a.o.batchFirst, "norm_first?", &a.o.normFirst, "dropout?", &a.o.dropout, "train|training?", &a.train}
}

func (a *layerArgs) check(fname string) (layerOpts, error) {
	switch {
	case a.o.activation != "relu" && a.o.activation != "gelu":
		return a.o, fmt.Errorf("%s: activation must be \"relu\" or \"gelu\", not %q", fname, a.o.activation)
	case !(a.o.dropout >= 0 && a.o.dropout <= 1):
		return a.o, fmt.Errorf("%s: dropout must be in [0, 1], got %v", fname, a.o.dropout)
	case !(a.o.eps >= 0):
		return a.o, fmt.Errorf("%s: layer_norm_eps must not be negative, got %v", fname, a.o.eps)
	}
	if !a.train {
		a.o.dropout = 0
	}
	return a.o, nil
}

// masks are the optional masks of one call: "self", "memory",
// "self_kpm" and "memory_kpm" (the key padding masks), nil where none.
type masks map[string]*refs.Ref

// layerNorm is a LayerNorm over the last dimension with the weights
// name.weight (required) and name.bias (optional) of p.
func (c *chain) layerNorm(fname string, x *refs.Ref, p stateDict, name string, eps float64) (*refs.Ref, error) {
	e := x.Shape()[len(x.Shape())-1]
	w, err := p.tensor(fname, name+".weight", tensor.Shape{e}, x.DType(), true)
	if err != nil {
		return nil, err
	}
	b, err := p.tensor(fname, name+".bias", tensor.Shape{e}, x.DType(), false)
	if err != nil {
		return nil, err
	}
	ins := []*refs.Ref{x, w}
	if b != nil {
		ins = append(ins, b)
	}
	return c.Op(ops.LayerNorm, ops.NormAttrs{Eps: eps, HasWeight: true, HasBias: b != nil}, ins...), nil
}

// feedForward is linear2(dropout(activation(linear1(x)))) with the
// weights in p, before the block's own dropout.
func (c *chain) feedForward(fname string, x *refs.Ref, p stateDict, o layerOpts) (*refs.Ref, error) {
	e, dt := x.Shape()[len(x.Shape())-1], x.DType()
	v, ok := p.Get("linear1.weight")
	t, isT := v.(eval.Tensor)
	if !ok || !isT || len(t.Ref.Shape()) != 2 {
		return nil, fmt.Errorf("%s: params.%slinear1.weight must be a tensor [dim_feedforward, %d]", fname, p.prefix, e)
	}
	f := t.Ref.Shape()[0]
	w1, err := p.tensor(fname, "linear1.weight", tensor.Shape{f, e}, dt, true)
	if err != nil {
		return nil, err
	}
	b1, err := p.tensor(fname, "linear1.bias", tensor.Shape{f}, dt, false)
	if err != nil {
		return nil, err
	}
	w2, err := p.tensor(fname, "linear2.weight", tensor.Shape{e, f}, dt, true)
	if err != nil {
		return nil, err
	}
	b2, err := p.tensor(fname, "linear2.bias", tensor.Shape{e}, dt, false)
	if err != nil {
		return nil, err
	}
	act := ops.Relu
	if o.activation == "gelu" {
		act = ops.Gelu
	}
	h := c.Op(act, nil, c.affine(x, c.Transpose(w1), b1))
	if o.dropout > 0 {
		h = c.dropout(fname, h, o.dropout)
	}
	return c.affine(h, c.Transpose(w2), b2), nil
}

// layerWeights says whether name (under a layer's prefix) is one of its
// weights: a decoder's also multihead_attn and norm3.
func layerWeights(decoder bool) func(string) bool {
	return func(name string) bool {
		if a, ok := strings.CutPrefix(name, "self_attn."); ok {
			return slices.Contains(mhaWeights, a)
		}
		if a, ok := strings.CutPrefix(name, "multihead_attn."); ok && decoder {
			return slices.Contains(mhaWeights, a)
		}
		mods := []string{"linear1", "linear2", "norm1", "norm2"}
		if decoder {
			mods = append(mods, "norm3")
		}
		mod, field, ok := strings.Cut(name, ".")
		return ok && (field == "weight" || field == "bias") && slices.Contains(mods, mod)
	}
}

// transformerLayer is one encoder layer's forward of x (decoder: with
// memory) with the weights in p, x [S, N, E] as multi_head_attention
// takes it (batch_first and unbatched alike).
func (c *chain) transformerLayer(fname string, x, memory *refs.Ref, p stateDict, m masks, o layerOpts) (*refs.Ref, error) {
	decoder := memory != nil
	if k := p.unknown(layerWeights(decoder)); k != "" {
		kind := "nn.TransformerEncoderLayer"
		if decoder {
			kind = "nn.TransformerDecoderLayer"
		}
		return nil, fmt.Errorf("%s: params has %q, which is not a weight of %s", fname, k, kind)
	}
	call := func(prefix string, q, kv *refs.Ref, mask, kpm *refs.Ref) (*refs.Ref, error) {
		out, _, err := c.multiHeadAttention(fname, q, kv, kv, p.under(prefix), mhaCall{heads: o.heads, mask: mask, kpm: kpm, batchFirst: o.batchFirst, dropout: o.dropout})
		if err == nil && o.dropout > 0 {
			out = c.dropout(fname, out, o.dropout)
		}
		return out, err
	}
	type block func(x *refs.Ref) (*refs.Ref, error)
	blocks := []block{func(x *refs.Ref) (*refs.Ref, error) { return call("self_attn.", x, x, m["self"], m["self_kpm"]) }}
	if decoder {
		blocks = append(blocks, func(x *refs.Ref) (*refs.Ref, error) {
			return call("multihead_attn.", x, memory, m["memory"], m["memory_kpm"])
		})
	}
	blocks = append(blocks, func(x *refs.Ref) (*refs.Ref, error) {
		y, err := c.feedForward(fname, x, p, o)
		if err == nil && o.dropout > 0 {
			y = c.dropout(fname, y, o.dropout)
		}
		return y, err
	})
	for i, f := range blocks {
		norm := "norm" + strconv.Itoa(i+1)
		if o.normFirst {
			n, err := c.layerNorm(fname, x, p, norm, o.eps)
			if err != nil {
				return nil, err
			}
			y, err := f(n)
			if err != nil {
				return nil, err
			}
			x = c.Op(ops.Add, nil, x, y)
			continue
		}
		y, err := f(x)
		if err != nil {
			return nil, err
		}
		if x, err = c.layerNorm(fname, c.Op(ops.Add, nil, x, y), p, norm, o.eps); err != nil {
			return nil, err
		}
	}
	return x, c.Err()
}

// transformerStack is nn.TransformerEncoder's (or Decoder's) forward:
// the layers under layers.0., layers.1., ... of p, then the LayerNorm
// under norm. where p has one.
func (c *chain) transformerStack(fname string, x, memory *refs.Ref, p stateDict, m masks, o layerOpts) (*refs.Ref, error) {
	n := 0
	for {
		prefix := "layers." + strconv.Itoa(n) + "."
		found := false
		for _, k := range p.rec.Keys {
			if strings.HasPrefix(k, p.prefix+prefix) {
				found = true
				break
			}
		}
		if !found {
			break
		}
		n++
	}
	if n == 0 {
		return nil, fmt.Errorf("%s: params has no weights under %slayers.0. (the state_dict names of the stack's layers)", fname, p.prefix)
	}
	if k := p.unknown(func(name string) bool {
		if rest, ok := strings.CutPrefix(name, "layers."); ok {
			i, _, ok := strings.Cut(rest, ".")
			v, err := strconv.Atoi(i)
			return ok && err == nil && v >= 0 && v < n && strconv.Itoa(v) == i
		}
		return name == "norm.weight" || name == "norm.bias"
	}); k != "" {
		return nil, fmt.Errorf("%s: params has %q, which is not a weight of this %d-layer stack", fname, k, n)
	}
	var err error
	for i := range n {
		if x, err = c.transformerLayer(fname, x, memory, p.under("layers."+strconv.Itoa(i)+"."), m, o); err != nil {
			return nil, err
		}
	}
	if _, ok := p.Get("norm.weight"); ok {
		return c.layerNorm(fname, x, p, "norm", o.eps)
	}
	return x, nil
}

func transformerLayerBuiltin(decoder bool) eval.BuiltinFunc {
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		return transformerCall(th, b, args, kwargs, decoder, (*chain).transformerLayer)
	}
}

func transformerStackBuiltin(decoder bool) eval.BuiltinFunc {
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		return transformerCall(th, b, args, kwargs, decoder, (*chain).transformerStack)
	}
}

// transformerCall reads a layer's or a stack's arguments and runs body.
func transformerCall(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg, decoder bool,
	body func(c *chain, fname string, x, memory *refs.Ref, p stateDict, m masks, o layerOpts) (*refs.Ref, error)) (eval.Value, error) {
	var x, memory *refs.Ref
	var params eval.Value
	var la layerArgs
	mv := make([]eval.Value, 4)
	for i := range mv {
		mv[i] = eval.None
	}
	var pairs []any
	var names []string
	if decoder {
		pairs = []any{"tgt", &x, "memory", &memory, "params", &params, "nhead", &la.o.heads,
			"tgt_mask?", &mv[0], "memory_mask?", &mv[1], "tgt_key_padding_mask?", &mv[2], "memory_key_padding_mask?", &mv[3]}
		names = []string{"tgt_mask", "memory_mask", "tgt_key_padding_mask", "memory_key_padding_mask"}
	} else {
		maskName := "src_mask"
		if strings.HasSuffix(b.Name, "encoder") {
			maskName = "mask"
		}
		pairs = []any{"src", &x, "params", &params, "nhead", &la.o.heads, maskName + "?", &mv[0], "src_key_padding_mask?", &mv[2]}
		names = []string{maskName, "", "src_key_padding_mask", ""}
	}
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, append(pairs, la.pairs()...)...); err != nil {
		return nil, err
	}
	o, err := la.check(b.Name)
	if err != nil {
		return nil, err
	}
	m, err := layerMasks(th, b.Name, names, mv)
	if err != nil {
		return nil, err
	}
	sd, err := asStateDict(b.Name, params, "self_attn.in_proj_weight, linear1.weight, norm1.weight, ...")
	if err != nil {
		return nil, err
	}
	c := newChain(th)
	y, err := body(c, b.Name, x, memory, sd, m, o)
	if err != nil {
		return c.Abort(err)
	}
	return c.Result(y)
}

// layerMasks reads the masks named in names (self, memory, self key
// padding, memory key padding; "" for one the builtin does not take).
func layerMasks(th *eval.Thread, fname string, names []string, vals []eval.Value) (masks, error) {
	m := masks{}
	for i, key := range []string{"self", "memory", "self_kpm", "memory_kpm"} {
		if names[i] == "" {
			continue
		}
		r, err := optionalTensor(th, fname, names[i], vals[i])
		if err != nil {
			return nil, err
		}
		m[key] = r
	}
	return m, nil
}

func transformerBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var src, tgt *refs.Ref
	var params eval.Value
	var la layerArgs
	names := []string{"src_mask", "tgt_mask", "memory_mask", "src_key_padding_mask", "tgt_key_padding_mask", "memory_key_padding_mask"}
	mv := make([]eval.Value, len(names))
	pairs := []any{"src", &src, "tgt", &tgt, "params", &params, "nhead", &la.o.heads}
	for i, n := range names {
		mv[i] = eval.None
		pairs = append(pairs, n+"?", &mv[i])
	}
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, append(pairs, la.pairs()...)...); err != nil {
		return nil, err
	}
	o, err := la.check(b.Name)
	if err != nil {
		return nil, err
	}
	ms := make([]*refs.Ref, len(names))
	for i, n := range names {
		if ms[i], err = optionalTensor(th, b.Name, n, mv[i]); err != nil {
			return nil, err
		}
	}
	sd, err := asStateDict(b.Name, params, "encoder.layers.0.self_attn.in_proj_weight, ...")
	if err != nil {
		return nil, err
	}
	if k := sd.unknown(func(n string) bool { return strings.HasPrefix(n, "encoder.") || strings.HasPrefix(n, "decoder.") }); k != "" {
		return nil, fmt.Errorf("%s: params has %q, which is not a weight of nn.Transformer (all are under encoder. and decoder.)", b.Name, k)
	}
	c := newChain(th)
	memory, err := c.transformerStack(b.Name, src, nil, sd.under("encoder."), masks{"self": ms[0], "self_kpm": ms[3]}, o)
	if err != nil {
		return c.Abort(err)
	}
	y, err := c.transformerStack(b.Name, tgt, memory, sd.under("decoder."), masks{"self": ms[1], "memory": ms[2], "self_kpm": ms[4], "memory_kpm": ms[5]}, o)
	if err != nil {
		return c.Abort(err)
	}
	return c.Result(y)
}
