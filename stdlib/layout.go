package stdlib

import (
	"fmt"
	"slices"
	"strings"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Layout functions of torch that are compositions of reshape, permute,
// expand and index ops (so they differentiate and place like them), the
// 1-d pools over the 2-d ones, and kl_div.

func init() {
	register("meshgrid", "meshgrid(*tensors, indexing=\"ij\"): the list of grids of 1-d tensors, each expanded over the others' sizes (\"xy\" swaps the first two dimensions), as torch.meshgrid", meshgridBuiltin)
	register("repeat_interleave", "repeat_interleave(input, repeats, dim=none): each element (slice along dim; of the flattened input without dim) repeated repeats times, an int or a 1-d tensor of counts per element (read on the host), as torch.repeat_interleave", repeatInterleaveBuiltin)
	register("diag", "diag(input, diagonal=0): the 2-d matrix with the 1-d input on the given diagonal, or the 1-d diagonal of a 2-d input, as torch.diag", diagBuiltin)
	register("pixel_shuffle", "pixel_shuffle(input, upscale_factor): [*, C·r², H, W] rearranged to [*, C, H·r, W·r], as F.pixel_shuffle", pixelShuffleBuiltin(false))
	register("pixel_unshuffle", "pixel_unshuffle(input, downscale_factor): [*, C, H·r, W·r] rearranged to [*, C·r², H, W], as F.pixel_unshuffle", pixelShuffleBuiltin(true))
	register("max_pool1d", "max_pool1d(input, kernel_size, stride=kernel_size, padding=0, dilation=1, ceil_mode=false): maximum over windows of [N, C, L] (or [C, L]), as F.max_pool1d", pool1dBuiltin("max_pool2d"))
	register("avg_pool1d", "avg_pool1d(input, kernel_size, stride=kernel_size, padding=0, ceil_mode=false, count_include_pad=true): mean over windows of [N, C, L] (or [C, L]), as F.avg_pool1d", pool1dBuiltin("avg_pool2d"))
	register("kl_div", "kl_div(input, target, reduction=\"mean\", log_target=false): target·(log(target) - input) (0 where target is 0; exp(target)·(target - input) with log_target) of log-probabilities input, reduced by \"mean\", \"batchmean\" (the sum over the batch size), \"sum\" or \"none\", as F.kl_div", klDivBuiltin)
}

func meshgridBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	indexing := "ij"
	var rest []eval.Kwarg
	for _, kw := range kwargs {
		if kw.Name != "indexing" {
			rest = append(rest, kw)
			continue
		}
		s, ok := kw.Value.(eval.String)
		if !ok || (s != "ij" && s != "xy") {
			return nil, fmt.Errorf("%s: indexing must be \"ij\" or \"xy\", not %s", b.Name, eval.Describe(kw.Value))
		}
		indexing = string(s)
	}
	if len(rest) > 0 {
		return nil, fmt.Errorf("%s: unknown keyword argument %q", b.Name, rest[0].Name)
	}
	if len(args) == 1 {
		if l, ok := args[0].(*eval.List); ok {
			args = l.Elems // meshgrid([x, y]) as meshgrid(x, y)
		}
	}
	if len(args) == 0 {
		return nil, fmt.Errorf("%s: expects at least one tensor", b.Name)
	}
	xs := make([]*refs.Ref, len(args))
	shape := make(tensor.Shape, len(args))
	for i, a := range args {
		t, ok := a.(eval.Tensor)
		if !ok || len(t.Ref.Shape()) > 1 {
			return nil, fmt.Errorf("%s: argument %d must be a 0-d or 1-d tensor, not %s", b.Name, i+1, eval.Describe(a))
		}
		if i > 0 && t.Ref.DType() != xs[0].DType() {
			return nil, fmt.Errorf("%s: the tensors must have one dtype, got %s and %s", b.Name, xs[0].DType(), t.Ref.DType())
		}
		xs[i], shape[i] = t.Ref, t.Ref.Shape().Numel()
	}
	// Grid position of each input's dimension.
	pos := make([]int, len(xs))
	for i := range pos {
		pos[i] = i
	}
	if indexing == "xy" && len(xs) > 1 {
		pos[0], pos[1] = 1, 0
		shape[0], shape[1] = shape[1], shape[0]
	}
	c := newChain(th)
	defer c.Release()
	out := make([]eval.Value, 0, len(xs))
	for i, x := range xs {
		lay := make(tensor.Shape, len(shape))
		for k := range lay {
			lay[k] = 1
		}
		lay[pos[i]] = shape[pos[i]]
		g := c.Expand(c.Op(ops.Reshape, ops.ReshapeAttrs{Shape: lay}, x), shape)
		if c.Err() != nil {
			eval.Release(th.RT, eval.NewList(out))
			return nil, c.Err()
		}
		th.RT.Retain(g)
		out = append(out, eval.Tensor{Ref: g})
	}
	return eval.NewList(out), nil
}

func repeatInterleaveBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	var rv eval.Value
	var dimv eval.Value = eval.None
	var outSize eval.Value = eval.None
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, "repeats", &rv, "dim?", &dimv, "output_size?", &outSize); err != nil {
		return nil, err
	}
	c := newChain(th)
	cur, d := x, 0
	if _, none := dimv.(eval.NoneType); none {
		cur = c.Op(ops.Reshape, ops.ReshapeAttrs{Shape: tensor.Shape{x.Shape().Numel()}}, x)
	} else {
		dim, ok := th.AsInt(dimv)
		if !ok {
			return c.Abort(fmt.Errorf("%s: dim must be an int or none, not %s", b.Name, eval.Describe(dimv)))
		}
		var err error
		if d, err = dimOf(b.Name, dim, x.Shape()); err != nil {
			return c.Abort(err)
		}
	}
	if cur == nil {
		return c.Result(nil)
	}
	s := cur.Shape()
	if r, ok := th.AsInt(rv); ok { // a number or a 0-d integer tensor
		if r < 0 {
			return c.Abort(fmt.Errorf("%s: repeats must not be negative, got %d", b.Name, r))
		}
		// [.., n, ..] -> [.., n, r, ..] -> [.., n·r, ..]
		lay := slices.Concat(s[:d+1], tensor.Shape{1}, s[d+1:])
		wide := slices.Concat(s[:d+1], tensor.Shape{r}, s[d+1:])
		flat := slices.Concat(s[:d], tensor.Shape{s[d] * r}, s[d+1:])
		if _, err := tensor.CheckedNumel(wide); err != nil {
			return c.Abort(fmt.Errorf("%s: %v", b.Name, err))
		}
		e := c.Expand(c.Op(ops.Reshape, ops.ReshapeAttrs{Shape: lay}, cur), wide)
		return c.Result(c.Op(ops.Reshape, ops.ReshapeAttrs{Shape: flat}, e))
	}
	rt, ok := rv.(eval.Tensor)
	if !ok || !rt.Ref.DType().IsInt() || len(rt.Ref.Shape()) != 1 {
		return c.Abort(fmt.Errorf("%s: repeats must be an int or a 1-d integer tensor, not %s", b.Name, eval.Describe(rv)))
	}
	counts, err := th.RT.Read(rt.Ref)
	if err != nil {
		return c.Abort(err)
	}
	n := s[d]
	if k := counts.Numel(); k != n && k != 1 {
		return c.Abort(fmt.Errorf("%s: repeats has %d counts for a dimension of size %d", b.Name, k, n))
	}
	total := int64(0)
	for i := range n {
		v := counts.IntAt(min(i, counts.Numel()-1))
		if v < 0 {
			return c.Abort(fmt.Errorf("%s: repeats must not be negative, got %d", b.Name, v))
		}
		total += v
	}
	if total > 1<<40 {
		return c.Abort(fmt.Errorf("%s: %d elements are too many", b.Name, total))
	}
	if err := th.RT.HostPool().Check(total * 8); err != nil {
		return c.Abort(fmt.Errorf("%s: %v", b.Name, err))
	}
	idx := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{int(total)}, DType: tensor.Int64})
	p := idx.I64()[:0]
	for i := range n {
		for range counts.IntAt(min(i, counts.Numel()-1)) {
			p = append(p, int64(i))
		}
	}
	ir := c.Host(idx)
	return c.Result(c.Op(ops.IndexSelect, ops.DimAttrs{Dim: d}, cur, ir))
}

func diagBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	k := 0
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, "diagonal?", &k); err != nil {
		return nil, err
	}
	s := x.Shape()
	c := newChain(th)
	switch len(s) {
	case 1:
		m := s[0]
		n := m + max(k, -k)
		if _, err := tensor.CheckedNumel(tensor.Shape{n, n}); err != nil {
			return nil, fmt.Errorf("%s: %v", b.Name, err)
		}
		// Place x at (i, i+k): pad it to n (zeros after, or before for
		// a negative k: the values sit at rows i-k), lay it along the
		// rows for k >= 0 and along the columns below the diagonal.
		padded := c.Op(ops.Pad, ops.PadAttrs{Pads: []int{0, n - m}}, x)
		var vals *refs.Ref
		if k >= 0 {
			vals = c.Expand(c.Op(ops.Reshape, ops.ReshapeAttrs{Shape: tensor.Shape{n, 1}}, padded), tensor.Shape{n, n})
		} else {
			vals = c.Expand(c.Op(ops.Reshape, ops.ReshapeAttrs{Shape: tensor.Shape{1, n}}, padded), tensor.Shape{n, n})
		}
		mask := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{n, n}, DType: tensor.Bool})
		for i := range n {
			if j := i + k; j >= 0 && j < n {
				mask.Buf[i*n+j] = 1
			}
		}
		mr := c.Host(mask)
		return c.Result(c.Op(ops.Where, nil, mr, vals, c.scalar(0, x.DType())))
	case 2:
		rows, cols := s[0], s[1]
		ir := c.Host(diagonalPositions(rows, cols, k))
		flat := c.Op(ops.Reshape, ops.ReshapeAttrs{Shape: tensor.Shape{rows * cols}}, x)
		return c.Result(c.Op(ops.IndexSelect, ops.DimAttrs{Dim: 0}, flat, ir))
	}
	return nil, fmt.Errorf("%s: the input must be 1-d or 2-d, got shape %v", b.Name, s)
}

func pixelShuffleBuiltin(unshuffle bool) eval.BuiltinFunc {
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		var x *refs.Ref
		var r int
		param := "upscale_factor"
		if unshuffle {
			param = "downscale_factor"
		}
		if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, param, &r); err != nil {
			return nil, err
		}
		s := x.Shape()
		if len(s) < 3 {
			return nil, fmt.Errorf("%s: the input must have at least 3 dimensions, got shape %v", b.Name, s)
		}
		if r <= 0 {
			return nil, fmt.Errorf("%s: %s must be positive, got %d", b.Name, param, r)
		}
		lead, ch, h, w := s[:len(s)-3], s[len(s)-3], s[len(s)-2], s[len(s)-1]
		nl := len(lead)
		var split, perm []int
		var out tensor.Shape
		if !unshuffle {
			if ch%(r*r) != 0 {
				return nil, fmt.Errorf("%s: %d channels do not divide by %s² = %d", b.Name, ch, param, r*r)
			}
			// [*, C, r, r, H, W] -> [*, C, H, r, W, r]
			split = slices.Concat(lead, []int{ch / (r * r), r, r, h, w})
			perm = []int{0, 3, 1, 4, 2}
			out = slices.Concat(lead, tensor.Shape{ch / (r * r), h * r, w * r})
		} else {
			if h%r != 0 || w%r != 0 {
				return nil, fmt.Errorf("%s: height %d and width %d must divide by %s %d", b.Name, h, w, param, r)
			}
			// [*, C, H/r, r, W/r, r] -> [*, C, r, r, H/r, W/r]
			split = slices.Concat(lead, []int{ch, h / r, r, w / r, r})
			perm = []int{0, 2, 4, 1, 3}
			out = slices.Concat(lead, tensor.Shape{ch * r * r, h / r, w / r})
		}
		dims := make([]int, 0, nl+5)
		for i := range nl {
			dims = append(dims, i)
		}
		for _, p := range perm {
			dims = append(dims, nl+p)
		}
		c := newChain(th)
		t := c.Op(ops.Reshape, ops.ReshapeAttrs{Shape: split}, x)
		t = c.Op(ops.Permute, ops.PermuteAttrs{Dims: dims}, t)
		return c.Result(c.Op(ops.Reshape, ops.ReshapeAttrs{Shape: out}, t))
	}
}

// pool1dBuiltin runs the 2-d pool over [N, C, 1, L] with windows of
// height 1.
func pool1dBuiltin(pool2d string) eval.BuiltinFunc {
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		var x *refs.Ref
		var kernel int
		var stride eval.Value = eval.None
		padding, dilation := 0, 1
		ceil, includePad := false, true
		pairs := []any{"input|x", &x, "kernel_size", &kernel, "stride?", &stride, "padding?", &padding}
		if pool2d == "max_pool2d" {
			pairs = append(pairs, "dilation?", &dilation, "ceil_mode?", &ceil)
		} else {
			pairs = append(pairs, "ceil_mode?", &ceil, "count_include_pad?", &includePad)
		}
		if err := eval.UnpackArgs(th, b.Name, args, kwargs, pairs...); err != nil {
			return nil, err
		}
		s := x.Shape()
		if len(s) != 2 && len(s) != 3 {
			return nil, fmt.Errorf("%s: the input must be [N, C, L] or [C, L], got shape %v", b.Name, s)
		}
		st := kernel
		if _, none := stride.(eval.NoneType); !none {
			v, ok := th.AsInt(stride)
			if !ok {
				return nil, fmt.Errorf("%s: stride must be an int, not %s", b.Name, eval.Describe(stride))
			}
			st = v
		}
		pair := func(a, b int) eval.Value { return eval.NewList([]eval.Value{eval.Int(a), eval.Int(b)}) }
		kw := []eval.Kwarg{{Name: "stride", Value: pair(1, st)}, {Name: "padding", Value: pair(0, padding)}, {Name: "ceil_mode", Value: eval.Bool(ceil)}}
		if pool2d == "max_pool2d" {
			kw = append(kw, eval.Kwarg{Name: "dilation", Value: pair(1, dilation)})
		} else {
			kw = append(kw, eval.Kwarg{Name: "count_include_pad", Value: eval.Bool(includePad)})
		}
		c := newChain(th)
		x4 := c.Op(ops.Reshape, ops.ReshapeAttrs{Shape: slices.Concat(s[:len(s)-1], tensor.Shape{1, s[len(s)-1]})}, x)
		if c.Err() != nil {
			return c.Result(nil)
		}
		y, err := eval.CallBuiltin(th, Universe()[pool2d], []eval.Value{eval.Tensor{Ref: x4}, pair(1, kernel)}, kw)
		for _, k := range kw {
			eval.Release(th.RT, k.Value)
		}
		if err != nil {
			return c.Abort(fmt.Errorf("%s", strings.Replace(err.Error(), pool2d, b.Name, 1)))
		}
		c.Keep(y.(eval.Tensor).Ref)
		ys := y.(eval.Tensor).Ref.Shape()
		return c.Result(c.Op(ops.Reshape, ops.ReshapeAttrs{Shape: slices.Concat(ys[:len(ys)-2], ys[len(ys)-1:])}, y.(eval.Tensor).Ref))
	}
}

func klDivBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x, t *refs.Ref
	reduction := "mean"
	var sizeAverage, reduce eval.Value = eval.None, eval.None
	logTarget := false
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input", &x, "target", &t, "size_average?", &sizeAverage, "reduce?", &reduce,
		"reduction?", &reduction, "log_target?", &logTarget); err != nil {
		return nil, err
	}
	if sizeAverage != eval.None || reduce != eval.None {
		return nil, fmt.Errorf("%s: size_average and reduce are deprecated in torch; use reduction=", b.Name)
	}
	c := newChain(th)
	if !c.floatInput(b.Name, x) || !c.floatInput(b.Name, t) {
		return c.Result(nil)
	}
	var loss *refs.Ref
	if logTarget {
		loss = c.Op(ops.Mul, nil, c.Op(ops.Exp, nil, t), c.Op(ops.Sub, nil, t, x))
	} else {
		// xlogy(t, t) - t·x, where xlogy is 0 at t = 0.
		dt := t.DType()
		xlogy := c.Op(ops.Where, nil, c.Op(ops.Eq, nil, t, c.scalar(0, dt)), c.scalar(0, dt), c.Op(ops.Mul, nil, t, c.Op(ops.Log, nil, t)))
		loss = c.Op(ops.Sub, nil, xlogy, c.Op(ops.Mul, nil, t, x))
	}
	switch reduction {
	case "none":
		return c.Result(loss)
	case "sum":
		return c.Result(c.Op(ops.Sum, ops.ReduceAttrs{}, loss))
	case "mean":
		return c.Result(c.Op(ops.Mean, ops.ReduceAttrs{}, loss))
	case "batchmean":
		if c.Err() != nil {
			return c.Result(nil)
		}
		n := 1
		if s := x.Shape(); len(s) > 0 {
			n = s[0]
		}
		sum := c.Op(ops.Sum, ops.ReduceAttrs{}, loss)
		return c.Result(c.Op(ops.Div, nil, sum, c.scalar(float64(n), sum.DType())))
	}
	return c.Abort(fmt.Errorf("%s: reduction must be \"mean\", \"batchmean\", \"sum\" or \"none\", got %q", b.Name, reduction))
}
