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

// The rest of torch.nn.functional's deterministic functions, composed of
// tref's ops with torch 1.13's formulas (so values and gradients are
// torch's): power-average pooling over avg_pool2d, max unpooling as a
// scatter (its gradient a gather, as torch's), multilabel_margin_loss,
// triplet_margin_with_distance_loss with a script's distance function,
// bilinear, adaptive_max_pool3d as two adaptive max pools (the planes',
// then the depths'), and upsample, the deprecated spellings of
// interpolate. The random ones are in nn_port_random.go.
func init() {
	register("lp_pool1d", "lp_pool1d(input, norm_type, kernel_size, stride=kernel_size, ceil_mode=false): power-average pooling over windows of [N, C, L] (or [C, L]): (sum of x^norm_type over each window)^(1/norm_type), computed as torch does: avg_pool1d of x^norm_type (a ceil_mode window that overhangs the input is averaged over its part inside) times kernel_size, through sign(v)·relu(|v|), so a window summing to 0 gets a zero gradient; kernel_size is an int, as F.lp_pool1d", lpPoolBuiltin(1))
	register("lp_pool2d", "lp_pool2d(input, norm_type, kernel_size, stride=kernel_size, ceil_mode=false): power-average pooling over 2-d windows of [N, C, H, W] (or [C, H, W]): (sum of x^norm_type over each window)^(1/norm_type), computed as torch does: avg_pool2d of x^norm_type (a ceil_mode window that overhangs the input is averaged over its part inside) times kh·kw, through sign(v)·relu(|v|), so a window summing to 0 gets a zero gradient, as F.lp_pool2d", lpPoolBuiltin(2))
	register("max_unpool1d", "max_unpool1d(input, indices, kernel_size, stride=kernel_size, padding=0, output_size=none): zeros of length output_size (default (L-1)·stride + kernel_size - 2·padding; a given one, of 1 or 3 values, must be within stride of it) with each value of input [N, C, L] (or [C, L]) written at its int64 index in indices (input's shape; the last write wins where indices repeat), the inverse of max_pool1d's argmax; the gradient reads the output's at each index, as F.max_unpool1d (float16 and bfloat16 are taken, which torch's CPU kernel refuses)", maxUnpoolBuiltin(1))
	register("max_unpool2d", "max_unpool2d(input, indices, kernel_size, stride=kernel_size, padding=0, output_size=none): zeros of size output_size (default (H-1)·stride + kernel - 2·padding along each side; a given one, of 2 or 4 values, must be within stride of it) with each value of input [N, C, H, W] (or [C, H, W]) written at its int64 index in indices (input's shape, flat within each output plane; the last write wins where indices repeat), the inverse of max_pool2d's argmax; the gradient reads the output's at each index, as F.max_unpool2d (float16 and bfloat16 are taken, which torch's CPU kernel refuses)", maxUnpoolBuiltin(2))
	register("multilabel_margin_loss", "multilabel_margin_loss(input, target, reduction=\"mean\"): per sample of input [N, C] (or [C], or 0-d) with int64 target of its shape holding class indices up to the first -1, the sum over the target classes j (repeats counted) and the classes i not among them of max(0, 1 - input[j] + input[i]) (a NaN term adds nothing, as torch's z > 0 test), divided by C; reduction \"none\" gives [N] (0-d for a target of rank 1 or 0), as F.multilabel_margin_loss (\"mean\" over an empty batch is NaN, where torch's kernel leaves the result unset)", builtinMultilabelMarginLoss)
	register("triplet_margin_with_distance_loss", "triplet_margin_with_distance_loss(anchor, positive, negative, distance_function=none, margin=1.0, swap=false, reduction=\"mean\"): max(0, d(anchor, positive) - d(anchor, negative) + margin) with d the function distance_function (called with two tensors; none: pairwise_distance); swap takes min(d(anchor, negative), d(positive, negative)), as F.triplet_margin_with_distance_loss (whose arguments after negative are keyword-only; here they may be positional too)", builtinTripletMarginWithDistanceLoss)
	register("bilinear", "bilinear(input1, input2, weight, bias=none): y = x1ᵀ·weight[o]·x2 + bias[o] for input1 [..., in1] and input2 [..., in2] with the same leading dimensions, weight [out, in1, in2] and bias [out], giving [..., out], as F.bilinear", builtinBilinear)
	register("adaptive_max_pool3d", "adaptive_max_pool3d(input, output_size, return_indices=false): maximum over the windows that cut [N, C, D, H, W] (or [C, D, H, W]) into output_size (an int, or [d, h, w] where none keeps that size), the first maximum in (depth, height, width) order (a NaN wins: the last one); with return_indices the record (values, indices), the indices flat within each D×H×W volume, as F.adaptive_max_pool3d", builtinAdaptiveMaxPool3d)
	register("upsample", "upsample(input, size=none, scale_factor=none, mode=\"nearest\", align_corners=none): interpolate(input, size, scale_factor, mode, align_corners), as F.upsample (deprecated in torch for F.interpolate)", upsampleBuiltin(""))
	register("upsample_nearest", "upsample_nearest(input, size=none, scale_factor=none): interpolate(input, size, scale_factor, mode=\"nearest\"), as F.upsample_nearest (deprecated in torch for F.interpolate)", upsampleBuiltin("nearest"))
	register("upsample_bilinear", "upsample_bilinear(input, size=none, scale_factor=none): interpolate(input, size, scale_factor, mode=\"bilinear\", align_corners=true) of [N, C, H, W], as F.upsample_bilinear (deprecated in torch for F.interpolate)", upsampleBuiltin("bilinear"))
}

// windowInts reads a pool's int-or-list parameter for rank window axes:
// an int, or a list of 1 or rank ints.
func windowInts(fname, param string, v []int, rank int) ([]int, error) {
	switch len(v) {
	case 1:
		return slices.Repeat(v, rank), nil
	case rank:
		return v, nil
	}
	return nil, fmt.Errorf("%s: %s must be an int or a list of %d ints, got %v", fname, param, rank, tensor.Shape(v))
}

func lpPoolBuiltin(rank int) eval.BuiltinFunc {
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		var x *refs.Ref
		var p float64
		var kernelV, stride eval.Value = nil, eval.None
		ceil := false
		if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input", &x, "norm_type", &p, "kernel_size", &kernelV,
			"stride?", &stride, "ceil_mode?", &ceil); err != nil {
			return nil, err
		}
		if p == 0 {
			return nil, fmt.Errorf("%s: norm_type must not be 0 (torch divides by it)", b.Name)
		}
		if !x.DType().IsFloat() {
			return nil, fmt.Errorf("%s: the input must be floating point, got %s", b.Name, x.DType())
		}
		xs := x.Shape()
		a := ops.AvgPool2dAttrs{CeilMode: ceil, CountIncludePad: true}
		x4 := xs
		if rank == 1 {
			// torch's lp_pool1d multiplies by kernel_size: an int only.
			k, ok := th.AsInt(kernelV)
			if !ok {
				return nil, fmt.Errorf("%s: kernel_size must be an int, not %s", b.Name, eval.Describe(kernelV))
			}
			s, err := poolStride(th, b.Name, stride, k, oneInt)
			if err != nil {
				return nil, err
			}
			if x4, err = check1dInput(b.Name, x); err != nil {
				return nil, err
			}
			switch l := xs[len(xs)-1]; {
			case k < 1 || s < 1:
				return nil, fmt.Errorf("%s: kernel_size and stride must be at least 1, got %d and %d", b.Name, k, s)
			case l < k:
				return nil, fmt.Errorf("%s: the input's length %d is smaller than the kernel_size %d", b.Name, l, k)
			}
			a.Kernel, a.Stride = [2]int{1, k}, [2]int{1, s}
		} else {
			var kernel []int
			if err := eval.UnpackArgs(th, b.Name, []eval.Value{kernelV}, nil, "kernel_size", &kernel); err != nil {
				return nil, err
			}
			var err error
			if a.Kernel, err = intPair(b.Name, "kernel_size", kernel); err != nil {
				return nil, err
			}
			if a.Stride, err = poolStride(th, b.Name, stride, a.Kernel, intPair); err != nil {
				return nil, err
			}
		}
		if _, err := ops.AvgPool2dLayout(x4, a); err != nil {
			return nil, fmt.Errorf("%s over %v: %s", b.Name, xs, stripOp("avg_pool2d", err))
		}
		dt := x.DType()
		c := newChain(th)
		sum := c.Op(ops.AvgPool2d, a, c.Op(ops.Pow, nil, c.Reshape(x, x4), c.scalar(p, dt)))
		// torch: (sign(v)·relu(|v|))·(kh·kw), then the 1/p-th power.
		sum = c.Op(ops.Mul, nil, c.Op(ops.Sign, nil, sum), c.Op(ops.Relu, nil, c.Op(ops.Abs, nil, sum)))
		sum = c.Op(ops.Mul, nil, sum, c.scalar(float64(a.Kernel[0])*float64(a.Kernel[1]), dt))
		y := c.Op(ops.Pow, nil, sum, c.scalar(1/p, dt))
		if rank == 1 && y != nil {
			ys := y.Shape()
			y = c.Reshape(y, slices.Concat(ys[:len(ys)-2], ys[len(ys)-1:]))
		}
		return named(b.Name)(c.Result(y))
	}
}

// unpoolSize is max_unpool's default output length (in-1)·stride + kernel
// - 2·padding along one axis, or false where that does not fit an int.
func unpoolSize(in, kernel, stride, padding int) (int, bool) {
	const most = 1 << 60
	if math.Abs(float64(in-1)*float64(stride)) > most || kernel > most || kernel < -most || padding > most || padding < -most {
		return 0, false
	}
	return (in-1)*stride + kernel - 2*padding, true
}

func maxUnpoolBuiltin(rank int) eval.BuiltinFunc {
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		var x, idx *refs.Ref
		var kernelV []int
		var stride, sizeV eval.Value = eval.None, eval.None
		paddingV := []int{0}
		if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input", &x, "indices", &idx, "kernel_size", &kernelV,
			"stride?", &stride, "padding?", &paddingV, "output_size?", &sizeV); err != nil {
			return nil, err
		}
		layouts := []string{"", "[N, C, L] or [C, L]", "[N, C, H, W] or [C, H, W]"}
		xs := x.Shape()
		switch {
		case len(xs) != rank+1 && len(xs) != rank+2:
			return nil, fmt.Errorf("%s: expected an input of shape %s, got %v", b.Name, layouts[rank], xs)
		case !x.DType().IsFloat():
			return nil, fmt.Errorf("%s: the input must be floating point, got %s", b.Name, x.DType())
		case idx.DType() != tensor.Int64:
			return nil, fmt.Errorf("%s: the indices must be int64, got %s", b.Name, idx.DType())
		case !idx.Shape().Equal(xs):
			return nil, fmt.Errorf("%s: the indices' shape %v differs from the input's %v", b.Name, idx.Shape(), xs)
		case slices.Contains(xs[len(xs)-rank-1:], 0):
			return nil, fmt.Errorf("%s: the input %v has an empty non-batch dimension", b.Name, xs)
		}
		window := func(fname, param string, v []int) ([]int, error) { return windowInts(fname, param, v, rank) }
		kernel, err := window(b.Name, "kernel_size", kernelV)
		if err != nil {
			return nil, err
		}
		strides, err := poolStride(th, b.Name, stride, kernel, window)
		if err != nil {
			return nil, err
		}
		padding, err := window(b.Name, "padding", paddingV)
		if err != nil {
			return nil, err
		}
		in := xs[len(xs)-rank:]
		out := make(tensor.Shape, rank)
		for i := range out {
			var ok bool
			if out[i], ok = unpoolSize(in[i], kernel[i], strides[i], padding[i]); !ok {
				return nil, fmt.Errorf("%s: the output size (%d-1)·%d + %d - 2·%d overflows", b.Name, in[i], strides[i], kernel[i], padding[i])
			}
		}
		if _, none := sizeV.(eval.NoneType); !none {
			var given []int
			if err := eval.UnpackArgs(th, b.Name, []eval.Value{sizeV}, nil, "output_size", &given); err != nil {
				return nil, err
			}
			if len(given) == rank+2 {
				given = given[2:]
			}
			if len(given) != rank {
				return nil, fmt.Errorf("%s: output_size must have %d or %d values, got %d", b.Name, rank, rank+2, len(given))
			}
			for i, o := range given {
				// torch: default - stride < o < default + stride.
				if o < 0 || o > tensor.MaxElements || !(o-out[i] > -strides[i] && o-out[i] < strides[i]) {
					return nil, fmt.Errorf("%s: invalid output_size %v (dimension %d must be strictly between %v and %v)",
						b.Name, tensor.Shape(given), i, float64(out[i])-float64(strides[i]), float64(out[i])+float64(strides[i]))
				}
			}
			copy(out, given)
		}
		for _, o := range out {
			if o < 0 {
				return nil, fmt.Errorf("%s: the output size %v is negative (kernel_size %v, stride %v, padding %v)", b.Name, out, tensor.Shape(kernel), tensor.Shape(strides), tensor.Shape(padding))
			}
		}
		lead := xs[:len(xs)-rank]
		outShape := slices.Concat(lead, out)
		plane, err := tensor.CheckedNumel(out)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", b.Name, err)
		}
		if _, err := tensor.CheckedNumel(outShape); err != nil {
			return nil, fmt.Errorf("%s: %v", b.Name, err)
		}
		c := newChain(th)
		zero := c.scalar(0, x.DType())
		if outShape.Numel() == 0 || xs.Numel() == 0 {
			return c.Result(c.Expand(zero, outShape))
		}
		// torch's kernel checks every index (and writes nothing on an error).
		d, err := th.RT.Read(idx)
		if err != nil {
			return c.Abort(err)
		}
		for _, v := range d.I64() {
			if v < 0 || v >= int64(plane) {
				return c.Abort(fmt.Errorf("%s: found an invalid max index %d (the output planes are of size %s)", b.Name, v, joinSizes(out)))
			}
		}
		flat := slices.Concat(lead, tensor.Shape{in.Numel()})
		y := c.Op(ops.Scatter, ops.DimAttrs{Dim: len(lead)}, c.Expand(zero, slices.Concat(lead, tensor.Shape{plane})), c.Reshape(idx, flat), c.Reshape(x, flat))
		return named(b.Name)(c.Result(c.Reshape(y, outShape)))
	}
}

// joinSizes writes sizes as torch's messages do: 4×4.
func joinSizes(s tensor.Shape) string {
	out := ""
	for i, v := range s {
		if i > 0 {
			out += "×"
		}
		out += fmt.Sprint(v)
	}
	return out
}

func builtinMultilabelMarginLoss(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x, t *refs.Ref
	r, err := lossArgs(th, b.Name, args, kwargs, &x, &t, nil, nil)
	if err != nil {
		return nil, err
	}
	xs, ts := x.Shape(), t.Shape()
	n, classes := 1, 1
	switch len(xs) {
	case 0:
	case 1:
		classes = xs[0]
	case 2:
		n, classes = xs[0], xs[1]
	}
	switch {
	case len(xs) > 2 || len(xs) > 0 && classes == 0:
		return nil, fmt.Errorf("%s: expected a non-empty vector [C] or matrix [N, C] (N may be 0), or a 0-d input, got shape %v", b.Name, xs)
	case len(xs) <= 1 && (len(ts) > 1 || ts.Numel() != classes), len(xs) == 2 && !ts.Equal(xs):
		return nil, fmt.Errorf("%s: the target's shape %v does not go with the input's %v", b.Name, ts, xs)
	case !x.DType().IsFloat():
		return nil, fmt.Errorf("%s: the input must be floating point, got %s", b.Name, x.DType())
	case t.DType() != tensor.Int64:
		return nil, fmt.Errorf("%s: the target must hold int64 class indices, got %s", b.Name, t.DType())
	}
	// Per sample and pair (target slot j, class i): z, its positive part
	// and the result (itemsize each), three masks (1 each).
	itemsize := int64(x.DType().Size())
	if _, err := tensor.CheckedNumel(tensor.Shape{n, classes, classes}); err != nil {
		return nil, fmt.Errorf("%s: %d samples of %d classes: %v", b.Name, n, classes, err)
	}
	if err := th.RT.HostPool().Check(int64(n) * int64(classes) * (int64(classes)*(3*itemsize+3) + 24)); err != nil {
		return nil, fmt.Errorf("%s: %d samples of %d classes: %v", b.Name, n, classes, err)
	}
	td, err := th.RT.Read(t)
	if err != nil {
		return nil, err
	}
	tgt := td.I64()
	for _, v := range tgt {
		if v < -1 || v >= int64(classes) {
			return nil, fmt.Errorf("%s: target value %d is out of range [-1, %d)", b.Name, v, classes)
		}
	}
	// Each sample's target classes (slot j: the class, 0 past the first
	// -1, where valid is false) and the classes not among them.
	slot, err := newHost(th, b.Name, tensor.Shape{n, classes}, tensor.Int64)
	if err != nil {
		return nil, err
	}
	valid, err := newHost(th, b.Name, tensor.Shape{n, classes, 1}, tensor.Bool)
	if err != nil {
		return nil, err
	}
	other, err := newHost(th, b.Name, tensor.Shape{n, 1, classes}, tensor.Bool)
	if err != nil {
		return nil, err
	}
	slots, ok, rest := slot.I64(), valid.U8(), other.U8()
	for i := range rest {
		rest[i] = 1
	}
	for s := range n {
		for j := range classes {
			v := tgt[s*classes+j]
			if v < 0 {
				break
			}
			slots[s*classes+j], ok[s*classes+j] = v, 1
			rest[s*classes+int(v)] = 0
		}
	}
	c := newChain(th)
	dt := x.DType()
	x2 := c.Reshape(x, tensor.Shape{n, classes})
	picked := c.Reshape(c.Op(ops.Gather, ops.DimAttrs{Dim: 1}, x2, c.Host(slot)), tensor.Shape{n, classes, 1})
	// torch: z = 1 - input[target] + input[i], added where z > 0.
	z := c.Op(ops.Add, nil, c.Op(ops.Sub, nil, c.scalar(1, dt), picked), c.Reshape(x2, tensor.Shape{n, 1, classes}))
	use := c.Op(ops.BitwiseAnd, nil, c.Op(ops.BitwiseAnd, nil, c.Host(valid), c.Host(other)), c.Op(ops.Gt, nil, z, c.scalar(0, dt)))
	terms := c.Op(ops.Where, nil, use, z, c.scalar(0, dt))
	loss := c.Op(ops.Div, nil, c.Op(ops.Sum, ops.ReduceAttrs{Dims: []int{1, 2}}, terms), c.scalar(float64(classes), dt))
	if r == ops.ReduceNone && len(ts) <= 1 {
		loss = c.Reshape(loss, tensor.Shape{})
	}
	return named(b.Name)(c.Result(c.reduce(r, loss)))
}

func builtinTripletMarginWithDistanceLoss(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var a, pos, neg *refs.Ref
	var fn eval.Value = eval.None
	margin := 1.0
	swap := false
	reduction := "mean"
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "anchor", &a, "positive", &pos, "negative", &neg,
		"distance_function?", &fn, "margin?", &margin, "swap?", &swap, "reduction?", &reduction); err != nil {
		return nil, err
	}
	r, err := parseReduction(b.Name, reduction)
	if err != nil {
		return nil, err
	}
	_, pairwise := fn.(eval.NoneType)
	if t := fn.Type(); !pairwise && t != "function" && t != "model" {
		return nil, fmt.Errorf("%s: distance_function must be a function or none, not %s", b.Name, eval.Describe(fn))
	}
	c := newChain(th)
	// A script's function fails with its own positioned error, passed on
	// as it is (as map does).
	var callErr error
	dist := func(u, v *refs.Ref) *refs.Ref {
		if c.Err() != nil {
			return nil
		}
		uv := []eval.Value{eval.Tensor{Ref: u}, eval.Tensor{Ref: v}}
		var out eval.Value
		var err error
		if pairwise {
			out, err = pairwiseDistanceBuiltin(th, Universe()["pairwise_distance"], uv, nil)
		} else if out, err = th.Call(fn, uv, nil); err != nil {
			callErr = err
		}
		if err != nil {
			c.Fail(err)
			return nil
		}
		if t, ok := out.(eval.Tensor); ok {
			return c.Keep(t.Ref)
		}
		d, err := th.ToRef(out) // a number: a temporary of the call
		if err != nil {
			eval.Release(th.RT, out)
			c.Fail(fmt.Errorf("%s: distance_function must return a tensor, not %s", b.Name, eval.Describe(out)))
			return nil
		}
		return d
	}
	dPos := dist(a, pos)
	dNeg := dist(a, neg)
	if swap {
		dNeg = c.Op(ops.Minimum, nil, dNeg, dist(pos, neg))
	}
	if callErr != nil {
		return c.Abort(callErr)
	}
	z := c.Op(ops.Sub, nil, dPos, dNeg)
	z = c.Op(ops.Add, nil, z, c.floatScalar(z, margin))
	return named(b.Name)(c.Result(c.reduce(r, c.clampMin0(z))))
}

func builtinBilinear(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x1, x2, w *refs.Ref
	var bias eval.Value = eval.None
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input1", &x1, "input2", &x2, "weight", &w, "bias?", &bias); err != nil {
		return nil, err
	}
	s1, s2, ws := x1.Shape(), x2.Shape(), w.Shape()
	if len(s1) == 0 || len(s2) == 0 {
		return nil, fmt.Errorf("%s: the inputs need a feature dimension, got shapes %v and %v", b.Name, s1, s2)
	}
	if len(s1) != len(s2) {
		return nil, fmt.Errorf("%s: input dimensions do not match: got %d and %d", b.Name, len(s1), len(s2))
	}
	for i := range len(s1) - 1 {
		if s1[i] != s2[i] {
			return nil, fmt.Errorf("%s: input batch dimensions do not match at dim %d: got %d and %d", b.Name, i, s1[i], s2[i])
		}
	}
	in1, in2 := s1[len(s1)-1], s2[len(s2)-1]
	switch {
	case len(ws) != 3:
		return nil, fmt.Errorf("%s: expected a weight of shape [out, in1, in2], got %v", b.Name, ws)
	case in1 != ws[1]:
		return nil, fmt.Errorf("%s: input1 size does not match weight size: got %d but expected %d", b.Name, in1, ws[1])
	case in2 != ws[2]:
		return nil, fmt.Errorf("%s: input2 size does not match weight size: got %d but expected %d", b.Name, in2, ws[2])
	case x1.DType() != x2.DType() || x1.DType() != w.DType():
		return nil, fmt.Errorf("%s: input1, input2 and weight must have one dtype, got %s, %s and %s", b.Name, x1.DType(), x2.DType(), w.DType())
	}
	bs, err := withOptional(th, b.Name, "bias", nil, bias)
	if err != nil {
		return nil, err
	}
	if len(bs) == 1 {
		if s := bs[0].Shape(); len(s) == 0 || s[0] != ws[0] {
			return nil, fmt.Errorf("%s: bias size does not match weight size: got shape %v but expected [%d]", b.Name, s, ws[0])
		}
	}
	batch := s1[:len(s1)-1]
	rows, out := batch.Numel(), ws[0]
	if _, err := tensor.CheckedNumel(tensor.Shape{rows, out, in2}); err != nil {
		return nil, fmt.Errorf("%s: %v", b.Name, err)
	}
	// The products x1·weight, out·in2 values a row, and the permuted weight.
	if err := th.RT.HostPool().Check((int64(rows)*int64(out)*int64(in2) + int64(ws.Numel())) * int64(w.DType().Size())); err != nil {
		return nil, fmt.Errorf("%s: %d rows of %d×%d products: %v", b.Name, rows, out, in2, err)
	}
	// x1 [B, in1] · weight as [in1, out·in2] gives [B, out, in2], whose
	// rows are then multiplied by x2 [B, in2, 1].
	c := newChain(th)
	wp := c.Reshape(c.Op(ops.Permute, ops.PermuteAttrs{Dims: []int{1, 0, 2}}, w), tensor.Shape{in1, out * in2})
	t := c.Reshape(c.Op(ops.Matmul, nil, c.Reshape(x1, tensor.Shape{rows, in1}), wp), tensor.Shape{rows, out, in2})
	y := c.Reshape(c.Op(ops.Matmul, nil, t, c.Reshape(x2, tensor.Shape{rows, in2, 1})), slices.Concat(batch, tensor.Shape{out}))
	if len(bs) == 1 {
		y = c.Op(ops.Add, nil, y, bs[0])
	}
	return named(b.Name)(c.Result(y))
}

func builtinAdaptiveMaxPool3d(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	var size eval.Value
	withIndices := false
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input", &x, "output_size", &size, "return_indices?", &withIndices); err != nil {
		return nil, err
	}
	xs, err := volume(b.Name, x)
	if err != nil {
		return nil, err
	}
	if !x.DType().IsFloat() {
		return nil, fmt.Errorf("%s: the input must be floating point, got %s", b.Name, x.DType())
	}
	out, err := adaptive3dSize(th, b.Name, size, xs)
	if err != nil {
		return nil, err
	}
	// As torch, which checks every dimension but the first.
	if slices.Contains(x.Shape()[1:], 0) {
		return nil, fmt.Errorf("%s: the input %v has an empty non-batch dimension", b.Name, x.Shape())
	}
	outShape := tensor.Shape{xs[0], xs[1], out[0], out[1], out[2]}
	if _, err := tensor.CheckedNumel(outShape); err != nil {
		return nil, fmt.Errorf("%s: %v", b.Name, err)
	}
	// A window is a box, so its maximum is the maximum over its depths
	// of each depth plane's window maximum: each plane pooled to
	// out[1]×out[2], then the depths of each of those columns to out[0].
	// The first maximum in (depth, height, width) order, or the last NaN,
	// is the first (last) depth's own first maximum (last NaN).
	plane := out[1] * out[2]
	c := newChain(th)
	v1, i1 := c.adaptiveMax(c.Reshape(x, xs), [2]int{out[1], out[2]}) // [N, C, D, h·w]
	v2, i2 := c.adaptiveMax(v1, [2]int{out[0], plane})                // [N, C, d·h·w], i2 = depth·h·w + j
	vals := c.unbatched(c.Reshape(v2, outShape), x)
	if !withIndices || c.Err() != nil {
		return named(b.Name)(c.Result(vals))
	}
	// i2 picks depth i2 / (h·w) and, within it, i1's flat position.
	hw := c.Op(ops.Gather, ops.DimAttrs{Dim: 2}, c.Reshape(i1, tensor.Shape{xs[0], xs[1], xs[2] * plane}), i2)
	depth := c.Op(ops.FloorDiv, nil, i2, c.Constant(ops.IntScalar(int64(max(plane, 1)))))
	idx := c.Op(ops.Add, nil, c.Op(ops.Mul, nil, depth, c.Constant(ops.IntScalar(int64(xs[3]*xs[4])))), hw)
	return named(b.Name)(c.Record([]string{"values", "indices"}, vals, c.unbatched(c.Reshape(idx, outShape), x)))
}

// upsampleBuiltin is upsample (mode "": the caller's mode and
// align_corners), upsample_nearest or upsample_bilinear: interpolate under
// the alias's name, so that its errors name the alias.
func upsampleBuiltin(mode string) eval.BuiltinFunc {
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		var x eval.Value
		var size, scale, align eval.Value = eval.None, eval.None, eval.None
		m := "nearest"
		pairs := []any{"input", &x, "size?", &size, "scale_factor?", &scale}
		if mode == "" {
			pairs = append(pairs, "mode?", &m, "align_corners?", &align)
		} else {
			m = mode
		}
		if err := eval.UnpackArgs(th, b.Name, args, kwargs, pairs...); err != nil {
			return nil, err
		}
		if mode == "bilinear" {
			align = eval.Bool(true)
		}
		return interpolateBuiltin(th, b, []eval.Value{x}, []eval.Kwarg{
			{Name: "size", Value: size}, {Name: "scale_factor", Value: scale}, {Name: "mode", Value: eval.String(m)}, {Name: "align_corners", Value: align}})
	}
}
