package stdlib

import (
	"fmt"
	"math"
	"slices"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// embedding_bag, pdist, channel_shuffle and local_response_norm of
// torch.nn.functional as compositions of tref's ops, with torch 1.13's
// values and gradients (see nn_more.go for the others).
func init() {
	register("embedding_bag", "embedding_bag(input, weight, offsets=none, max_norm=none, norm_type=2, scale_grad_by_freq=false, mode=\"mean\", sparse=false, per_sample_weights=none, include_last_offset=false, padding_idx=none): the sum, mean or max of the rows of weight [num, dim] that each bag of ids picks: the rows of a 2-d input, or the runs of a 1-d input that start at offsets (read on the host); ids equal to padding_idx are left out, an empty bag gives zeros, per_sample_weights (mode \"sum\") scale each row; max takes each column's first maximum (a NaN only as the bag's first value), as F.embedding_bag (max_norm and scale_grad_by_freq are not supported, nor include_last_offset with a 2-d input; sparse gives a dense gradient)", embeddingBagBuiltin)
	register("pdist", "pdist(input, p=2): the p-norm distances between the rows i < j of [N, M], in row-major order of (i, j): N·(N-1)/2 values, differentiated as torch (0 where the distance is 0; p=inf gives each tied element the whole gradient; it makes all N·(N-1)/2 row differences, so memory grows as N²·M where torch's does not), as F.pdist", pdistBuiltin)
	register("channel_shuffle", "channel_shuffle(input, groups): [N, C, *] with its channels, seen as [groups, C/groups], transposed, as F.channel_shuffle", channelShuffleBuiltin)
	register("local_response_norm", "local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0): input / (k + alpha·mean(input² over size neighbouring channels, zero-padded))^beta over dimension 1 of [N, C, *], as F.local_response_norm (an int64 input, as torch, averages its squares rounded down and gives float32)", localResponseNormBuiltin)
}

func embeddingBagBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var ids, weight *refs.Ref
	var offsetsV, maxNorm, pswV, padV eval.Value = eval.None, eval.None, eval.None, eval.None
	normType := 2.0
	scaleGrad, sparse, includeLast := false, false, false
	mode := "mean"
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input", &ids, "weight", &weight, "offsets?", &offsetsV,
		"max_norm?", &maxNorm, "norm_type?", &normType, "scale_grad_by_freq?", &scaleGrad, "mode?", &mode, "sparse?", &sparse,
		"per_sample_weights?", &pswV, "include_last_offset?", &includeLast, "padding_idx?", &padV); err != nil {
		return nil, err
	}
	_ = sparse // the gradient is dense either way
	ws, is := weight.Shape(), ids.Shape()
	switch {
	case !isNone(maxNorm):
		return nil, fmt.Errorf("%s: max_norm is not supported (torch renormalizes weight's rows in place)", b.Name)
	case scaleGrad:
		return nil, fmt.Errorf("%s: scale_grad_by_freq is not supported", b.Name)
	case mode != "sum" && mode != "mean" && mode != "max":
		return nil, fmt.Errorf("%s: mode has to be one of \"sum\", \"mean\" or \"max\", got %q", b.Name, mode)
	case len(ws) != 2:
		return nil, fmt.Errorf("%s: weight has to be a 2-d tensor [num_embeddings, dim], got shape %v", b.Name, ws)
	case !weight.DType().IsFloat():
		return nil, fmt.Errorf("%s: weight must be floating point, got %s", b.Name, weight.DType())
	case ids.DType() != tensor.Int64 && ids.DType() != tensor.Int32:
		return nil, fmt.Errorf("%s: input must be int64 or int32, got %s", b.Name, ids.DType())
	case len(is) != 1 && len(is) != 2:
		return nil, fmt.Errorf("%s: input has to be a 1-d or 2-d tensor, got shape %v", b.Name, is)
	}
	num, dim := ws[0], ws[1]
	pad := int64(-1)
	if !isNone(padV) {
		var p int
		if err := eval.UnpackArgs(th, b.Name, []eval.Value{padV}, nil, "padding_idx", &p); err != nil {
			return nil, err
		}
		if p < -num || p >= num {
			return nil, fmt.Errorf("%s: padding_idx must be within the number of embeddings, %d through %d, but got %d", b.Name, -num, num-1, p)
		}
		if p < 0 {
			p += num
		}
		pad = int64(p)
	}
	var psw *refs.Ref
	if t, ok := pswV.(eval.Tensor); ok {
		psw = t.Ref
		switch {
		case mode != "sum":
			return nil, fmt.Errorf("%s: per_sample_weights is only supported for mode \"sum\", not %q", b.Name, mode)
		case !psw.Shape().Equal(is):
			return nil, fmt.Errorf("%s: per_sample_weights %v must have the input's shape %v", b.Name, psw.Shape(), is)
		case psw.DType() != weight.DType():
			return nil, fmt.Errorf("%s: per_sample_weights (%s) must have weight's dtype %s", b.Name, psw.DType(), weight.DType())
		}
	} else if !isNone(pswV) {
		return nil, fmt.Errorf("%s: per_sample_weights must be a tensor or none, not %s", b.Name, eval.Describe(pswV))
	}
	// bag[i] is the bag of the i-th id (-1: none).
	n := is.Numel()
	// The host tables (bag, inBag and their tensors) and the [n, dim]
	// intermediates: the rows, the weighted and the masked rows, and
	// the int64 bag index (max: also its masks, matches and positions).
	e := float64(weight.DType().Size())
	per := 3*e + 8
	if mode == "max" {
		per = 3*e + 24
	}
	if need := float64(n)*40 + float64(n)*float64(dim)*per; need > 0 {
		if err := th.RT.HostPool().Check(int64(min(need, 1<<62))); err != nil {
			return nil, fmt.Errorf("%s: %d ids of %d values: %v", b.Name, n, dim, err)
		}
	}
	var bags int
	var bag []int64
	if len(is) == 2 {
		if !isNone(offsetsV) {
			return nil, fmt.Errorf("%s: if input is 2-d, offsets has to be none (each row is a bag)", b.Name)
		}
		if includeLast {
			// torch reads the rows' starts as offsets that include the
			// last one: one bag fewer, its last bag's mean divided by the
			// wrong count and its max reading past the input.
			return nil, fmt.Errorf("%s: include_last_offset is not supported with a 2-d input (each row is a bag)", b.Name)
		}
		bags = is[0]
		bag = make([]int64, n)
		for i := range bag {
			bag[i] = int64(i / is[1])
		}
	} else {
		var err error
		if bags, bag, err = readOffsets(th, b.Name, offsetsV, n, includeLast); err != nil {
			return nil, err
		}
	}
	c := newChain(th)
	flatIDs := c.Cast(c.Reshape(ids, tensor.Shape{n}), tensor.Int64)
	rows := c.Op(ops.Embedding, nil, flatIDs, weight) // [n, dim]
	if c.Err() != nil {
		return named(b.Name)(c.Result(nil))
	}
	dt := weight.DType()
	if bags == 0 { // no bag for the ids to go to (scatter would refuse them)
		return named(b.Name)(c.Result(c.Expand(c.scalar(0, dt), tensor.Shape{0, dim})))
	}
	inBag := make([]int64, n)
	for i, v := range bag {
		inBag[i] = int64(min(v+1, 1))
	}
	valid := c.Op(ops.Ne, nil, c.hostInts(inBag, tensor.Shape{n}), c.Constant(ops.IntScalar(0)))
	if pad >= 0 {
		valid = c.Op(ops.BitwiseAnd, nil, valid, c.Op(ops.Ne, nil, flatIDs, c.Constant(ops.IntScalar(pad))))
	}
	for i, v := range bag {
		bag[i] = max(v, 0) // out-of-bag ids add nothing to bag 0
	}
	bagIdx := c.hostInts(bag, tensor.Shape{n})
	validCol := c.Reshape(valid, tensor.Shape{n, 1})
	zero := c.scalar(0, dt)
	outShape := tensor.Shape{bags, dim}
	if mode == "max" {
		return named(b.Name)(c.Result(c.bagMax(rows, validCol, bagIdx, bags)))
	}
	if psw != nil {
		rows = c.Op(ops.Mul, nil, rows, c.Reshape(psw, tensor.Shape{n, 1}))
	}
	contrib := c.Op(ops.Where, nil, validCol, rows, zero)
	bagCol := c.Expand(c.Reshape(bagIdx, tensor.Shape{n, 1}), tensor.Shape{n, dim})
	sum := c.Op(ops.ScatterAdd, ops.DimAttrs{Dim: 0}, c.Expand(zero, outShape), bagCol, contrib)
	if mode == "sum" {
		return named(b.Name)(c.Result(sum))
	}
	count := c.Op(ops.ScatterAdd, ops.DimAttrs{Dim: 0}, c.Expand(zero, tensor.Shape{bags}), bagIdx, c.Cast(valid, dt))
	one := c.scalar(1, dt)
	count = c.Op(ops.Maximum, nil, count, one) // an empty bag's sum, 0, stays 0
	return named(b.Name)(c.Result(c.Op(ops.Div, nil, sum, c.Reshape(count, tensor.Shape{bags, 1}))))
}

// isNone says whether v is none.
func isNone(v eval.Value) bool {
	_, ok := v.(eval.NoneType)
	return ok
}

// readOffsets reads a 1-d input's offsets on the host and gives the
// number of bags and each id's bag, as bagsOf.
func readOffsets(th *eval.Thread, fname string, v eval.Value, n int, includeLast bool) (int, []int64, error) {
	t, ok := v.(eval.Tensor)
	switch {
	case !ok:
		return 0, nil, fmt.Errorf("%s: a 1-d input needs offsets, a 1-d int tensor of the bags' starts, not %s", fname, eval.Describe(v))
	case len(t.Ref.Shape()) != 1:
		return 0, nil, fmt.Errorf("%s: offsets has to be a 1-d tensor, got shape %v", fname, t.Ref.Shape())
	case t.Ref.DType() != tensor.Int64 && t.Ref.DType() != tensor.Int32:
		return 0, nil, fmt.Errorf("%s: offsets must be int64 or int32, got %s", fname, t.Ref.DType())
	}
	offs, err := readInts(th, t.Ref)
	if err != nil {
		return 0, nil, err
	}
	return bagsOf(fname, offs, n, includeLast)
}

// bagsOf gives the number of bags that offs start and each of the n ids'
// bag (-1 for ids after the last offset with include_last_offset), with
// torch's checks.
func bagsOf(fname string, offs []int64, n int, includeLast bool) (int, []int64, error) {
	bags := len(offs)
	if includeLast {
		if bags == 0 {
			return 0, nil, fmt.Errorf("%s: include_last_offset: number of offset should be at least 1", fname)
		}
		bags--
	}
	if len(offs) > 0 && offs[0] != 0 {
		return 0, nil, fmt.Errorf("%s: offsets[0] has to be 0 (the first bag starts at position 0), got %d", fname, offs[0])
	}
	for i, o := range offs {
		switch {
		case o > int64(n):
			return 0, nil, fmt.Errorf("%s: offsets[%d] = %d is beyond the input's length %d", fname, i, o, n)
		case i > 0 && o < offs[i-1]:
			return 0, nil, fmt.Errorf("%s: offsets must be non-decreasing, got offsets[%d] = %d after %d", fname, i, o, offs[i-1])
		}
	}
	bag := make([]int64, n)
	for i := range bag {
		bag[i] = -1
	}
	for k := range bags {
		end := int64(n)
		if k+1 < len(offs) {
			end = offs[k+1]
		}
		for i := offs[k]; i < end; i++ {
			bag[i] = int64(k)
		}
	}
	return bags, bag, nil
}

// bagMax is embedding_bag's max of rows [n, dim] over the ids of each of
// bags bags (bagIdx, validCol [n, 1] true for the ids that count): as
// torch's kernel, each column takes the bag's first value and then every
// larger one, so it is the first maximum of the non-NaN values unless the
// first value is NaN; the value is read from rows with gather, which
// sends the gradient to that one row. An empty bag gives 0.
func (c *chain) bagMax(rows, validCol, bagIdx *refs.Ref, bags int) *refs.Ref {
	if c.Err() != nil {
		return nil
	}
	n, dim := rows.Shape()[0], rows.Shape()[1]
	dt := rows.DType()
	if n == 0 {
		return c.Expand(c.scalar(0, dt), tensor.Shape{bags, dim})
	}
	big := c.Constant(ops.IntScalar(int64(n)))
	pick := c.detached(func() *refs.Ref {
		posList := make([]int64, n)
		for i := range posList {
			posList[i] = int64(i)
		}
		pos := c.hostInts(posList, tensor.Shape{n, 1})
		bagCol := c.Expand(c.Reshape(bagIdx, tensor.Shape{n, 1}), tensor.Shape{n, dim})
		firstOf := func(cond *refs.Ref, s tensor.Shape, idx *refs.Ref) *refs.Ref {
			at := c.Expand(c.Op(ops.Where, nil, cond, pos, big), idx.Shape())
			init := c.Expand(big, s)
			return c.Op(ops.ScatterReduce, ops.ScatterReduceAttrs{Dim: 0, Reduce: "amin", IncludeSelf: true}, init, idx, at)
		}
		isNum := c.Op(ops.BitwiseAnd, nil, validCol, c.Op(ops.LogicalNot, nil, c.Op(ops.Isnan, nil, rows)))
		negInf := c.scalar(math.Inf(-1), dt)
		best := c.Op(ops.ScatterReduce, ops.ScatterReduceAttrs{Dim: 0, Reduce: "amax", IncludeSelf: true},
			c.Expand(negInf, tensor.Shape{bags, dim}), bagCol, c.Op(ops.Where, nil, isNum, rows, negInf))
		hit := c.Op(ops.BitwiseAnd, nil, isNum, c.Op(ops.Eq, nil, rows, c.Op(ops.IndexSelect, ops.DimAttrs{Dim: 0}, best, bagIdx)))
		firstMax := firstOf(hit, tensor.Shape{bags, dim}, bagCol)                                // [bags, dim]
		first := firstOf(validCol, tensor.Shape{bags, 1}, c.Reshape(bagIdx, tensor.Shape{n, 1})) // [bags, 1]
		safeFirst := c.Op(ops.Minimum, nil, first, c.Constant(ops.IntScalar(int64(n-1))))        // in range for an empty bag
		firstNaN := c.Op(ops.Isnan, nil, c.Op(ops.Gather, ops.DimAttrs{Dim: 0}, rows, c.Expand(safeFirst, tensor.Shape{bags, dim})))
		return c.Op(ops.Where, nil, c.Op(ops.BitwiseAnd, nil, firstNaN, c.Op(ops.Lt, nil, first, big)), c.Expand(first, tensor.Shape{bags, dim}), firstMax)
	})
	empty := c.Op(ops.Eq, nil, pick, big)
	val := c.Op(ops.Gather, ops.DimAttrs{Dim: 0}, rows, c.Op(ops.Minimum, nil, pick, c.Constant(ops.IntScalar(int64(n-1)))))
	return c.Op(ops.Where, nil, empty, c.scalar(0, dt), val)
}

func pdistBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	p := 2.0
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input", &x, "p?", &p); err != nil {
		return nil, err
	}
	xs := x.Shape()
	switch {
	case len(xs) != 2:
		return nil, fmt.Errorf("%s: the input must be 2-d [N, M], got shape %v", b.Name, xs)
	case !x.DType().IsFloat():
		return nil, fmt.Errorf("%s: the input must be floating point, got %s", b.Name, x.DType())
	case p < 0 || math.IsNaN(p):
		return nil, fmt.Errorf("%s: p must be non-negative, got %v", b.Name, p)
	}
	rows := xs[0]
	var pairs int64
	if rows > 1 {
		// rows·(rows-1) must not wrap: refuse before multiplying.
		if int64(rows-1) > math.MaxInt64/int64(rows) {
			return nil, fmt.Errorf("%s: %d rows have too many pairs (N·(N-1) overflows int64)", b.Name, rows)
		}
		pairs = int64(rows) * int64(rows-1) / 2
		if _, err := tensor.CheckedNumel(tensor.Shape{int(pairs), xs[1]}); err != nil {
			return nil, fmt.Errorf("%s: %v", b.Name, err)
		}
		if err := th.RT.HostPool().Check(pairs * 16); err != nil {
			return nil, fmt.Errorf("%s: %v", b.Name, err)
		}
	}
	is, js := make([]int64, 0, pairs), make([]int64, 0, pairs)
	for i := range rows {
		for j := i + 1; j < rows; j++ {
			is, js = append(is, int64(i)), append(js, int64(j))
		}
	}
	c := newChain(th)
	pick := func(at []int64) *refs.Ref {
		return c.Op(ops.IndexSelect, ops.DimAttrs{Dim: 0}, x, c.hostInts(at, tensor.Shape{len(at)}))
	}
	diff := c.Op(ops.Sub, nil, pick(is), pick(js))
	return c.Result(c.rowNorm(diff, p))
}

// rowNorm is the p-norm of each row of d [P, M] with pdist's values and
// gradient:
// norm's (0 where the norm is 0), but 0 rather than NaN for an element
// that is 0 when p < 1, and for p = inf the whole gradient to every
// element whose |d| is the maximum (norm splits it among them).
func (c *chain) rowNorm(d *refs.Ref, p float64) *refs.Ref {
	if c.Err() != nil {
		return nil
	}
	dt := d.DType()
	zero := c.scalar(0, dt)
	if p == 0 {
		// torch counts min(ceil(|d|), 1): a NaN gives NaN, not 1.
		ones := c.Op(ops.Minimum, nil, c.Op(ops.Ceil, nil, c.Op(ops.Abs, nil, d)), c.scalar(1, dt))
		return c.Op(ops.Sum, ops.ReduceAttrs{Dims: []int{1}}, ones)
	}
	if !math.IsInf(p, 1) {
		if p > 0 && p < 1 {
			// |0|^(p-1) is inf: keep the zeros out of the gradient.
			d = c.Op(ops.Where, nil, c.Op(ops.Eq, nil, d, zero), zero, d)
		}
		return c.Op(ops.Norm, ops.VectorNormAttrs{P: p, Dims: []int{1}}, d)
	}
	a := c.Op(ops.Abs, nil, d)
	var m, hit, aStill *refs.Ref
	c.detached(func() *refs.Ref {
		aStill = c.Op(ops.Abs, nil, d)
		m = c.Op(ops.Norm, ops.VectorNormAttrs{P: p, Dims: []int{1}, Keepdim: true}, d)
		hit = c.Op(ops.Eq, nil, aStill, m)
		return nil
	})
	// Finite maximum: m + Σ_hit (|d| - |d|), which is m, each hit's
	// derivative 1. Infinite: Σ_hit |d| (inf, derivative 1 each).
	finite := c.Op(ops.Add, nil, m, c.Op(ops.Sum, ops.ReduceAttrs{Dims: []int{1}, Keepdim: true},
		c.Op(ops.Where, nil, hit, c.Op(ops.Sub, nil, a, aStill), zero)))
	infinite := c.Op(ops.Sum, ops.ReduceAttrs{Dims: []int{1}, Keepdim: true}, c.Op(ops.Where, nil, hit, a, zero))
	out := c.Op(ops.Where, nil, c.Op(ops.Isinf, nil, m), infinite, finite)
	if c.Err() != nil {
		return nil
	}
	return c.Reshape(out, out.Shape()[:1])
}

func channelShuffleBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	var groups int
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input", &x, "groups", &groups); err != nil {
		return nil, err
	}
	xs := x.Shape()
	switch {
	case len(xs) < 3:
		return nil, fmt.Errorf("%s: expects an input with more than 2 dimensions [N, C, *], got shape %v", b.Name, xs)
	case groups <= 0:
		return nil, fmt.Errorf("%s: the number of groups to divide channels in must be positive, got %d", b.Name, groups)
	case xs[1]%groups != 0:
		return nil, fmt.Errorf("%s: the number of channels must be divisible by groups; got %d channels and %d groups", b.Name, xs[1], groups)
	}
	split := slices.Concat(xs[:1], tensor.Shape{groups, xs[1] / groups}, xs[2:])
	perm := make([]int, len(split))
	for i := range perm {
		perm[i] = i
	}
	perm[1], perm[2] = 2, 1
	c := newChain(th)
	t := c.Op(ops.Permute, ops.PermuteAttrs{Dims: perm}, c.Reshape(x, split))
	return c.Result(c.Reshape(t, xs))
}

func localResponseNormBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	var size int
	alpha, beta, k := 1e-4, 0.75, 1.0
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input", &x, "size", &size, "alpha?", &alpha, "beta?", &beta, "k?", &k); err != nil {
		return nil, err
	}
	xs := x.Shape()
	switch {
	case len(xs) < 3:
		return nil, fmt.Errorf("%s: expected an input of 3 or more dimensions [N, C, *], got shape %v", b.Name, xs)
	case !x.DType().IsFloat() && x.DType() != tensor.Int64:
		return nil, fmt.Errorf("%s: the input must be floating point or int64, got %s", b.Name, x.DType())
	case size <= 0:
		return nil, fmt.Errorf("%s: size must be greater than zero, got %d", b.Name, size)
	}
	if xs.Numel() == 0 {
		th.RT.Retain(x)
		return eval.Tensor{Ref: x}, nil
	}
	// torch's steps: the squares as [N, 1, C, rest], zero-padded along C
	// and averaged over windows of size channels.
	dt := x.DType()
	c := newChain(th)
	sq := c.Reshape(c.Op(ops.Mul, nil, x, x), tensor.Shape{xs[0], 1, xs[1], xs[2:].Numel()})
	if !dt.IsFloat() {
		// torch averages int64 squares as int64 (rounded down, they are
		// not negative) and gives float32 from there on.
		sq = c.Cast(sq, tensor.Float64)
	}
	sq = c.Op(ops.Pad, ops.PadAttrs{Pads: []int{0, 0, size / 2, (size - 1) / 2}, Mode: ops.PadConstant}, sq)
	avg := c.Op(ops.AvgPool2d, ops.AvgPool2dAttrs{Kernel: [2]int{size, 1}, Stride: [2]int{1, 1}, CountIncludePad: true}, sq)
	if !dt.IsFloat() {
		dt = tensor.Float32
		avg, x = c.Cast(c.Op(ops.Floor, nil, avg), dt), c.Cast(x, dt)
	}
	div := c.Op(ops.Add, nil, c.Op(ops.Mul, nil, c.Reshape(avg, xs), c.scalar(alpha, dt)), c.scalar(k, dt))
	div = c.Op(ops.Pow, nil, div, c.scalar(beta, dt))
	return c.Result(c.Op(ops.Div, nil, x, div))
}
