package stdlib

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Attention as torch's functional forms take it: F.scaled_dot_product_attention
// with its masks and dropout (the attention builtin is the fused op they
// fall back to without them), and nn.MultiheadAttention's forward
// (F.multi_head_attention_forward) with the module's parameters as a
// record under its state_dict names.

func init() {
	register("scaled_dot_product_attention", "scaled_dot_product_attention(query, key, value, attn_mask=none, dropout_p=0.0, is_causal=false, scale=none, train=true): torch 2's F.scaled_dot_product_attention: softmax(query·keyᵀ·scale + mask)·value over the last two dimensions ([..., L, E], [..., S, E], [..., S, Ev]), scale 1/sqrt(E) by default; attn_mask [..., L, S] (broadcast) a bool mask (true: the position takes part) or a float one (added); is_causal: the lower-triangular mask (not with attn_mask); dropout_p drops attention weights (from the seeded stream) while train; without a mask or dropout it is attention's fused op", builtinSDPA)
	register("multi_head_attention", "multi_head_attention(query, key, value, params, num_heads, key_padding_mask=none, need_weights=true, attn_mask=none, average_attn_weights=true, batch_first=false, add_zero_attn=false, dropout=0.0, train=true): nn.MultiheadAttention's forward: query [L, N, E] ([N, L, E] with batch_first, [L, E] unbatched), key and value [S, N, kdim/vdim]; params a record under the module's state_dict names: in_proj_weight [3E, E] (or q_proj_weight, k_proj_weight, v_proj_weight where kdim or vdim is not E), in_proj_bias [3E], out_proj.weight [E, E], out_proj.bias [E] (the biases optional), bias_k and bias_v [1, 1, E] (optional, appended to key and value); key_padding_mask [N, S] bool (true: ignored), attn_mask [L, S] or [N·num_heads, L, S], bool (true: not attended) or float (added); gives {output, weights}, also read as torch's (attn_output, attn_output_weights): weights [N, L, S] averaged over the heads ([N, num_heads, L, S] without average_attn_weights), none without need_weights", builtinMHA)
}

// maskBias is an additive attention mask from m: a float mask itself, a
// bool one 0 where it is keep and -inf elsewhere.
func (c *chain) maskBias(m *refs.Ref, keep bool, dt tensor.DType) *refs.Ref {
	if m == nil || m.DType().IsFloat() {
		return m
	}
	zero, inf := c.scalar(0, dt), c.scalar(math.Inf(-1), dt)
	if keep {
		return c.Op(ops.Where, nil, m, zero, inf)
	}
	return c.Op(ops.Where, nil, m, inf, zero)
}

// attend is softmax(q·kᵀ·scale + bias)·v for q [..., L, E], k [..., S,
// E], v [..., S, Ev] and bias nil or broadcast to [..., L, S], dropping
// weights with probability p: the output and the (dropped) weights.
func (c *chain) attend(fname string, q, k, v, bias *refs.Ref, scale, p float64) (out, weights *refs.Ref) {
	if c.Err() != nil {
		return nil, nil
	}
	dt := q.DType()
	s := c.Op(ops.Matmul, nil, c.Op(ops.Mul, nil, q, c.scalar(scale, dt)), c.Transpose(k))
	if bias != nil {
		s = c.Op(ops.Add, nil, s, bias)
	}
	w := c.Op(ops.Softmax, ops.SoftmaxAttrs{Dim: -1}, s)
	if p > 0 {
		w = c.dropout(fname, w, p)
	}
	return c.Op(ops.Matmul, nil, w, v), w
}

func builtinSDPA(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var q, k, v *refs.Ref
	maskV, scaleV := eval.Value(eval.None), eval.Value(eval.None)
	var p float64
	var causal bool
	train := true
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "query|q", &q, "key|k", &k, "value|v", &v, "attn_mask?", &maskV, "dropout_p?", &p, "is_causal|causal?", &causal, "scale?", &scaleV, "train|training?", &train); err != nil {
		return nil, err
	}
	if !(p >= 0 && p <= 1) {
		return nil, fmt.Errorf("%s: dropout_p must be in [0, 1], got %v", b.Name, p)
	}
	scale, hasScale, err := optFloat(th, b.Name, "scale", scaleV)
	if err != nil {
		return nil, err
	}
	masks, err := withOptional(th, b.Name, "attn_mask", nil, maskV)
	if err != nil {
		return nil, err
	}
	dims, err := ops.AttentionLayout(q.Shape(), k.Shape(), v.Shape())
	if err != nil {
		return nil, fmt.Errorf("%s: %v", b.Name, err)
	}
	if !train {
		p = 0
	}
	if len(masks) == 0 && p == 0 {
		return th.Submit(ops.Attention, ops.AttentionAttrs{Causal: causal, Scale: scale, HasScale: hasScale}, q, k, v)
	}
	if causal && len(masks) == 1 {
		return nil, fmt.Errorf("%s: an attn_mask and is_causal both given: give one (torch's fused kernels refuse both)", b.Name)
	}
	qs := q.Shape()
	if !hasScale {
		scale = 1 / math.Sqrt(float64(qs[len(qs)-1]))
	}
	c := newChain(th)
	var bias *refs.Ref
	if len(masks) == 1 {
		m := masks[0]
		if m.DType() != tensor.Bool && m.DType() != q.DType() {
			return nil, fmt.Errorf("%s: attn_mask must be bool or the query's dtype %s, got %s", b.Name, q.DType(), m.DType())
		}
		bias = c.maskBias(m, true, q.DType())
	} else if causal {
		bias = c.maskBias(c.causalMask(dims.L, dims.S), true, q.DType())
	}
	out, _ := c.attend(b.Name, q, k, v, bias, scale, p)
	return c.Result(out)
}

// causalMask is the bool [l, s] mask of positions j <= i (torch's
// tril(ones(L, S))).
func (c *chain) causalMask(l, s int) *refs.Ref {
	b := c.builder()
	return c.Ref(b.Op(ops.Ge, nil, b.Iota(l, tensor.Shape{l, 1}), b.Iota(s, tensor.Shape{1, s})))
}

// mhaParams are nn.MultiheadAttention's parameters: the projections of
// query, key and value (wq, wk, wv [E, E/kdim/vdim], biases [E] or nil),
// the output's, and bias_k and bias_v (nil without).
type mhaParams struct {
	wq, wk, wv, bq, bk, bv, wo, bo, biasK, biasV *refs.Ref
}

// stateDict is a record of weights under torch's state_dict names, read
// under a prefix (a transformer layer's "self_attn.").
type stateDict struct {
	rec    *eval.Record
	prefix string
}

// asStateDict is params as a stateDict, or an error naming what it must
// hold.
func asStateDict(fname string, params eval.Value, what string) (stateDict, error) {
	p, ok := params.(*eval.Record)
	if !ok {
		return stateDict{}, fmt.Errorf("%s: params must be a record of the module's weights under its state_dict names (%s), not %s", fname, what, eval.Describe(params))
	}
	return stateDict{rec: p}, nil
}

// under is the part of d under prefix.
func (d stateDict) under(prefix string) stateDict { return stateDict{d.rec, d.prefix + prefix} }

// Get is the weight name (under d's prefix).
func (d stateDict) Get(name string) (eval.Value, bool) { return d.rec.Get(d.prefix + name) }

// unknown is the first key under d's prefix (the prefix left out) that
// allowed does not take, or "".
func (d stateDict) unknown(allowed func(string) bool) string {
	for _, k := range d.rec.Keys {
		if rest, ok := strings.CutPrefix(k, d.prefix); ok && !allowed(rest) {
			return k
		}
	}
	return ""
}

// ref reads the weight name (under d's prefix), a tensor of any shape:
// nil where it is missing and not required.
func (d stateDict) ref(fname, name string, required bool) (*refs.Ref, error) {
	v, ok := d.Get(name)
	full := d.prefix + name
	if !ok {
		if required {
			return nil, fmt.Errorf("%s: params has no %s", fname, full)
		}
		return nil, nil
	}
	t, isT := v.(eval.Tensor)
	if !isT {
		return nil, fmt.Errorf("%s: params.%s must be a tensor, not %s", fname, full, eval.Describe(v))
	}
	return t.Ref, nil
}

// tensor reads the weight name (under d's prefix) of the given shape
// and dtype: nil where it is missing and not required.
func (d stateDict) tensor(fname, name string, shape tensor.Shape, dt tensor.DType, required bool) (*refs.Ref, error) {
	r, err := d.ref(fname, name, required)
	if r == nil || err != nil {
		return nil, err
	}
	if !r.Shape().Equal(shape) || r.DType() != dt {
		return nil, fmt.Errorf("%s: params.%s must be %s %v, got %s %v", fname, d.prefix+name, dt, shape, r.DType(), r.Shape())
	}
	return r, nil
}

// mhaWeights are nn.MultiheadAttention's state_dict names.
var mhaWeights = []string{"in_proj_weight", "q_proj_weight", "k_proj_weight", "v_proj_weight", "in_proj_bias", "out_proj.weight", "out_proj.bias", "bias_k", "bias_v"}

// readMHAParams reads nn.MultiheadAttention's weights from p against the
// embedding size e and key and value sizes kdim and vdim, slicing
// in_proj_weight's rows.
func readMHAParams(c *chain, fname string, p stateDict, e, kdim, vdim int, dt tensor.DType) (mhaParams, error) {
	var m mhaParams
	if k := p.unknown(func(n string) bool { return slices.Contains(mhaWeights, n) }); k != "" {
		return m, fmt.Errorf("%s: params has %q, which is not a weight of nn.MultiheadAttention (in_proj_weight or q_proj_weight, k_proj_weight, v_proj_weight; in_proj_bias, out_proj.weight, out_proj.bias, bias_k, bias_v)", fname, k)
	}
	get := func(name string, shape tensor.Shape, required bool) (*refs.Ref, error) {
		return p.tensor(fname, name, shape, dt, required)
	}
	var err error
	if _, packed := p.Get("in_proj_weight"); packed {
		if kdim != e || vdim != e {
			return m, fmt.Errorf("%s: key and value have %d and %d features where the packed in_proj_weight takes the query's %d: give q_proj_weight, k_proj_weight and v_proj_weight", fname, kdim, vdim, e)
		}
		w, err := get("in_proj_weight", tensor.Shape{3 * e, e}, true)
		if err != nil {
			return m, err
		}
		m.wq, m.wk, m.wv = c.sliceAlong(w, 0, 0, e), c.sliceAlong(w, 0, e, 2*e), c.sliceAlong(w, 0, 2*e, 3*e)
	} else {
		if m.wq, err = get("q_proj_weight", tensor.Shape{e, e}, true); err != nil {
			return m, err
		}
		if m.wk, err = get("k_proj_weight", tensor.Shape{e, kdim}, true); err != nil {
			return m, err
		}
		if m.wv, err = get("v_proj_weight", tensor.Shape{e, vdim}, true); err != nil {
			return m, err
		}
	}
	bias, err := get("in_proj_bias", tensor.Shape{3 * e}, false)
	if err != nil {
		return m, err
	}
	if bias != nil {
		m.bq, m.bk, m.bv = c.sliceAlong(bias, 0, 0, e), c.sliceAlong(bias, 0, e, 2*e), c.sliceAlong(bias, 0, 2*e, 3*e)
	}
	if m.wo, err = get("out_proj.weight", tensor.Shape{e, e}, true); err != nil {
		return m, err
	}
	if m.bo, err = get("out_proj.bias", tensor.Shape{e}, false); err != nil {
		return m, err
	}
	if m.biasK, err = get("bias_k", tensor.Shape{1, 1, e}, false); err != nil {
		return m, err
	}
	if m.biasV, err = get("bias_v", tensor.Shape{1, 1, e}, false); err != nil {
		return m, err
	}
	if (m.biasK == nil) != (m.biasV == nil) {
		return m, fmt.Errorf("%s: params has one of bias_k and bias_v: give both or neither", fname)
	}
	return m, nil
}

// padLast appends n zero columns (false for a bool mask) to m's last
// dimension (nil stays nil).
func (c *chain) padLast(m *refs.Ref, n int) *refs.Ref {
	if m == nil || n == 0 || c.Err() != nil {
		return m
	}
	s := m.Shape().Clone()
	s[len(s)-1] = n
	var z *refs.Ref
	if m.DType() == tensor.Bool {
		z = c.Expand(c.Constant(ops.FloatScalar(0, tensor.Bool)), s)
	} else {
		z = c.Expand(c.scalar(0, m.DType()), s)
	}
	return c.Op(ops.Cat, ops.CatAttrs{Dim: len(s) - 1}, m, z)
}

// mhaCall is one nn.MultiheadAttention forward's arguments past the
// inputs and weights.
type mhaCall struct {
	heads int
	// kpm and mask are the key padding and attention masks as given
	// (nil: none)
	kpm, mask                                 *refs.Ref
	needWeights, average, batchFirst, zeroAtt bool
	dropout                                   float64 // 0 unless training
}

func builtinMHA(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var query, key, value *refs.Ref
	var params eval.Value
	a := mhaCall{needWeights: true, average: true}
	kpmV, maskV := eval.Value(eval.None), eval.Value(eval.None)
	train := true
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "query", &query, "key", &key, "value", &value, "params", &params, "num_heads", &a.heads,
		"key_padding_mask?", &kpmV, "need_weights?", &a.needWeights, "attn_mask?", &maskV, "average_attn_weights?", &a.average,
		"batch_first?", &a.batchFirst, "add_zero_attn?", &a.zeroAtt, "dropout|dropout_p?", &a.dropout, "train|training?", &train); err != nil {
		return nil, err
	}
	if !(a.dropout >= 0 && a.dropout <= 1) {
		return nil, fmt.Errorf("%s: dropout must be in [0, 1], got %v", b.Name, a.dropout)
	}
	if !train {
		a.dropout = 0
	}
	var err error
	if a.kpm, err = optionalTensor(th, b.Name, "key_padding_mask", kpmV); err != nil {
		return nil, err
	}
	if a.mask, err = optionalTensor(th, b.Name, "attn_mask", maskV); err != nil {
		return nil, err
	}
	sd, err := asStateDict(b.Name, params, "in_proj_weight, out_proj.weight, ...")
	if err != nil {
		return nil, err
	}
	c := newChain(th)
	out, w, err := c.multiHeadAttention(b.Name, query, key, value, sd, a)
	if err != nil {
		return c.Abort(err)
	}
	return c.optionalRecord([]string{"output", "weights"}, out, w)
}

// multiHeadAttention is nn.MultiheadAttention's forward of query, key
// and value with the weights in p: the output and the weights (nil
// without need_weights), or an error of bad arguments.
func (c *chain) multiHeadAttention(fname string, query, key, value *refs.Ref, p stateDict, a mhaCall) (out, w *refs.Ref, err error) {
	heads := a.heads
	batchFirst := a.batchFirst
	qs, ks, vs := query.Shape(), key.Shape(), value.Shape()
	dt := query.DType()
	switch {
	case !dt.IsFloat():
		return nil, nil, fmt.Errorf("%s: query must be a float tensor, got %s", fname, dt)
	case len(qs) != 2 && len(qs) != 3:
		return nil, nil, fmt.Errorf("%s: query must be [L, N, E] ([N, L, E] with batch_first, [L, E] unbatched), got shape %v", fname, qs)
	case len(ks) != len(qs) || len(vs) != len(qs):
		return nil, nil, fmt.Errorf("%s: key and value must have the query's %d dimensions, got shapes %v and %v", fname, len(qs), ks, vs)
	case key.DType() != dt || value.DType() != dt:
		return nil, nil, fmt.Errorf("%s: key and value must have the query's dtype %s, got %s and %s", fname, dt, key.DType(), value.DType())
	}
	batched := len(qs) == 3
	// [L, N, E] views of the inputs' sizes
	l, n, e := qs[0], 1, qs[len(qs)-1]
	s, kdim, vdim := ks[0], ks[len(ks)-1], vs[len(vs)-1]
	if batched {
		n = qs[1]
		if batchFirst {
			l, n, s = qs[1], qs[0], ks[1]
		}
		kn, vn, vsl := ks[1], vs[1], vs[0]
		if batchFirst {
			kn, vn, vsl = ks[0], vs[0], vs[1]
		}
		if kn != n || vn != n {
			return nil, nil, fmt.Errorf("%s: key and value must have the query's batch size %d, got shapes %v and %v", fname, n, ks, vs)
		}
		if vsl != s {
			return nil, nil, fmt.Errorf("%s: key and value must have one length, got shapes %v and %v", fname, ks, vs)
		}
	} else if vs[0] != s {
		return nil, nil, fmt.Errorf("%s: key and value must have one length, got shapes %v and %v", fname, ks, vs)
	}
	if heads <= 0 || e%heads != 0 {
		return nil, nil, fmt.Errorf("%s: embed_dim %d must be divisible by num_heads %d", fname, e, heads)
	}
	hd := e / heads
	pr, err := readMHAParams(c, fname, p, e, kdim, vdim, dt)
	if err != nil {
		return nil, nil, err
	}
	extra := 0 // columns that bias_k and add_zero_attn append
	if pr.biasK != nil {
		extra++
	}
	if a.zeroAtt {
		extra++
	}
	// the masks, checked against [N, S] and [L, S] or [N·heads, L, S]
	kpm, mask := a.kpm, a.mask
	if kpm != nil {
		want := tensor.Shape{n, s}
		if !batched {
			want = tensor.Shape{s}
		}
		if kpm.DType() != tensor.Bool || !kpm.Shape().Equal(want) {
			return nil, nil, fmt.Errorf("%s: key_padding_mask must be bool %v, got %s %v", fname, want, kpm.DType(), kpm.Shape())
		}
		kpm = c.Reshape(kpm, tensor.Shape{n, 1, 1, s})
	}
	if mask != nil {
		ms := mask.Shape()
		if mask.DType() != tensor.Bool && mask.DType() != dt {
			return nil, nil, fmt.Errorf("%s: attn_mask must be bool or the query's dtype %s, got %s", fname, dt, mask.DType())
		}
		switch {
		case ms.Equal(tensor.Shape{l, s}):
		case ms.Equal(tensor.Shape{n * heads, l, s}):
			mask = c.Reshape(mask, tensor.Shape{n, heads, l, s})
		default:
			return nil, nil, fmt.Errorf("%s: attn_mask must be [%d, %d] or [%d, %d, %d] (N·num_heads, L, S), got shape %v", fname, l, s, n*heads, l, s, ms)
		}
	}
	// [L, N, E] inputs
	toLNE := func(x *refs.Ref, rows, width int) *refs.Ref {
		switch {
		case !batched:
			return c.Reshape(x, tensor.Shape{rows, 1, width})
		case batchFirst:
			return c.Op(ops.Permute, ops.PermuteAttrs{Dims: []int{1, 0, 2}}, x)
		}
		return x
	}
	q := c.affine(toLNE(query, l, e), c.Transpose(pr.wq), pr.bq)
	k := c.affine(toLNE(key, s, kdim), c.Transpose(pr.wk), pr.bk)
	v := c.affine(toLNE(value, s, vdim), c.Transpose(pr.wv), pr.bv)
	if pr.biasK != nil {
		k = c.Op(ops.Cat, ops.CatAttrs{Dim: 0}, k, c.Expand(pr.biasK, tensor.Shape{1, n, e}))
		v = c.Op(ops.Cat, ops.CatAttrs{Dim: 0}, v, c.Expand(pr.biasV, tensor.Shape{1, n, e}))
	}
	// heads: [rows, N, E] -> [N, heads, rows, hd]
	split := func(x *refs.Ref, rows int) *refs.Ref {
		return c.Op(ops.Permute, ops.PermuteAttrs{Dims: []int{1, 2, 0, 3}}, c.Reshape(x, tensor.Shape{rows, n, heads, hd}))
	}
	sk := s
	if pr.biasK != nil {
		sk++
	}
	qh, kh, vh := split(q, l), split(k, sk), split(v, sk)
	if a.zeroAtt {
		z := c.Expand(c.scalar(0, dt), tensor.Shape{n, heads, 1, hd})
		kh = c.Op(ops.Cat, ops.CatAttrs{Dim: 2}, kh, z)
		vh = c.Op(ops.Cat, ops.CatAttrs{Dim: 2}, vh, z)
	}
	bias := c.maskBias(c.padLast(mask, extra), false, dt)
	if kpm != nil {
		kb := c.maskBias(c.padLast(kpm, extra), false, dt)
		if bias == nil {
			bias = kb
		} else {
			bias = c.Op(ops.Add, nil, bias, kb)
		}
	}
	out, w = c.attend(fname, qh, kh, vh, bias, 1/math.Sqrt(float64(hd)), a.dropout)
	// [N, heads, L, hd] -> [L, N, E], then the output projection
	out = c.Reshape(c.Op(ops.Permute, ops.PermuteAttrs{Dims: []int{2, 0, 1, 3}}, out), tensor.Shape{l, n, e})
	out = c.affine(out, c.Transpose(pr.wo), pr.bo)
	switch {
	case !batched:
		out = c.Reshape(out, tensor.Shape{l, e})
	case batchFirst:
		out = c.Op(ops.Permute, ops.PermuteAttrs{Dims: []int{1, 0, 2}}, out)
	}
	if !a.needWeights {
		w = nil
	} else {
		if a.average {
			w = c.Op(ops.Mean, ops.ReduceAttrs{Dims: []int{1}}, w)
		}
		if !batched {
			ws := w.Shape()
			w = c.Reshape(w, ws[1:])
		}
	}
	return out, w, c.Err()
}

// optionalRecord is Record where a nil ref after the first is none.
func (c *chain) optionalRecord(keys []string, rs ...*refs.Ref) (eval.Value, error) {
	if c.Err() != nil || rs[0] == nil {
		c.Release()
		return nil, c.Err()
	}
	vals := make([]eval.Value, len(rs))
	for i, r := range rs {
		vals[i] = eval.None
		if r != nil {
			c.Thread().RT.Retain(r)
			vals[i] = eval.Tensor{Ref: r}
		}
	}
	c.Release()
	return eval.NewResult(keys, vals), nil
}
