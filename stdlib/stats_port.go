package stdlib

import (
	"fmt"
	"math"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// torch's histogram, gradient and special.multigammaln composed of
// tref's ops with torch 1.13's formulas, and torch's other names of
// lgamma, digamma and outer.

func init() {
	registerAlias("gammaln", "lgamma", "torch.special.gammaln")
	registerAlias("psi", "digamma", "torch.special.psi")
	registerAlias("ger", "outer", "torch.ger")
	register("multigammaln", "multigammaln(input, p): the multivariate log-gamma function of dimension p elementwise, p(p-1)/4·ln(π) + the sum over j < p of lgamma(input - j/2) (integers give float32; p at least 1; elements at or below (p-1)/2 are outside its domain, where torch 1.13 computes the formula anyway, log|Γ|, and so does tref), as torch.special.multigammaln (torch.mvlgamma)", multigammalnBuiltin)
	register("histogram", "histogram(input, bins=100, range=none, weight=none, density=false): {hist, bin_edges}, the histogram of input's elements (float32 or float64) in bins equal bins over range [min, max] (input's own range when none, [0, 1] for an empty input; an empty range widened by 0.5 each side), or with bins a 1-d tensor of the edges, non-decreasing, in input's dtype (no range then); an element counts in the last bin whose left edge is at or below it, the last bin closed, elements outside and NaN not counted (torch 1.13 counts a NaN: in the last bin with bin edges, in an undefined one with int bins; later torch does not); weight (input's shape and dtype) sums weights instead of counting; density divides by the total and the bin widths; bin_edges in input's dtype; no gradient, as torch's, as torch.histogram", histogramBuiltin)
	register("gradient", "gradient(input, spacing=1, dim=none, edge_order=1): a list of input's derivatives estimated along each dimension in dim (an int or a list of ints; every dimension when none), by central differences inside and one-sided ones of edge_order 1 or 2 at the two ends; spacing is the distance between samples: a number, a list of numbers (one per dimension; one number for all when dim is none, where torch 1.13 reads past the list), or a list of 1-d coordinate tensors (one per dimension, each as long as it); each dimension needs edge_order + 1 samples; integers give float32, coordinates promote; differentiable, as torch.gradient", gradientBuiltin)
}

func multigammalnBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	var p int
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, "p", &p); err != nil {
		return nil, err
	}
	if x.DType() == tensor.Bool {
		return nil, fmt.Errorf("%s: the input must not be bool", b.Name)
	}
	if p < 1 {
		return nil, fmt.Errorf("%s: p must be at least 1, got %d", b.Name, p)
	}
	c := newChain(th)
	xf := c.floatOrF32(x)
	dt := xf.DType()
	// torch: lgamma(input + arange(-(p-1)/2, 1/2, 1/2)) summed over the
	// last dimension, plus the constant.
	offsets, err := newHost(th, b.Name, tensor.Shape{p}, dt)
	if err != nil {
		return c.Abort(err)
	}
	for j := range p {
		offsets.Set(j, float64(j-(p-1))/2)
	}
	s := x.Shape()
	shifted := c.Op(ops.Add, nil, c.Reshape(xf, append(s.Clone(), 1)), c.Host(offsets))
	sum := c.Op(ops.Sum, ops.ReduceAttrs{Dims: []int{-1}}, c.Op(ops.Lgamma, nil, shifted))
	constant := float64(p) * float64(p-1) * math.Log(math.Pi) / 4
	return named(b.Name)(c.Result(c.Op(ops.Add, nil, sum, c.scalar(constant, dt))))
}

func histogramBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	binsV, rangeV, weightV := eval.Value(eval.Int(100)), eval.Value(eval.None), eval.Value(eval.None)
	density := false
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, "bins?", &binsV, "range?", &rangeV, "weight?", &weightV, "density?", &density); err != nil {
		return nil, err
	}
	dt := x.DType()
	if dt != tensor.Float32 && dt != tensor.Float64 {
		return nil, fmt.Errorf("%s: the input must be float32 or float64, got %s", b.Name, dt)
	}
	var w *refs.Ref
	switch v := weightV.(type) {
	case eval.NoneType:
	case eval.Tensor:
		w = v.Ref
		if w.DType() != dt {
			return nil, fmt.Errorf("%s: weight is %s but the input %s: they must have one dtype", b.Name, w.DType(), dt)
		}
		if !w.Shape().Equal(x.Shape()) {
			return nil, fmt.Errorf("%s: weight of shape %v must have the input's shape %v", b.Name, w.Shape(), x.Shape())
		}
	default:
		return nil, fmt.Errorf("%s: weight must be a tensor or none, not %s", b.Name, eval.Describe(weightV))
	}
	_, noRange := rangeV.(eval.NoneType)
	c := newChain(th)
	var edges *refs.Ref
	bins := 0
	if t, ok := binsV.(eval.Tensor); ok {
		edges = t.Ref
		es := edges.Shape()
		switch {
		case !noRange:
			return c.Abort(fmt.Errorf("%s: range goes with an int bins, not with a tensor of bin edges", b.Name))
		case len(es) != 1:
			return c.Abort(fmt.Errorf("%s: a tensor of bin edges must be 1-d, got shape %v", b.Name, es))
		case es[0] < 2:
			return c.Abort(fmt.Errorf("%s: a tensor of bin edges needs at least 2 edges (one bin), got %d", b.Name, es[0]))
		case edges.DType() != dt:
			return c.Abort(fmt.Errorf("%s: the bin edges are %s but the input %s: they must have one dtype", b.Name, edges.DType(), dt))
		}
		bins = es[0] - 1
	} else {
		n, ok := th.AsInt(binsV)
		if !ok {
			return c.Abort(fmt.Errorf("%s: bins must be an int or a 1-d tensor of bin edges, not %s", b.Name, eval.Describe(binsV)))
		}
		if n <= 0 {
			return c.Abort(fmt.Errorf("%s: bins must be positive, got %d", b.Name, n))
		}
		if n > maxHistBins {
			return c.Abort(fmt.Errorf("%s: %d bins is more than the %d allowed", b.Name, n, maxHistBins))
		}
		d, err := histogramEdges(th, b.Name, x, rangeV, n)
		if err != nil {
			return c.Abort(err)
		}
		edges, bins = c.Host(d), n
	}
	flat := c.Reshape(x, tensor.Shape{x.Shape().Numel()})
	// torch's bin: the last one whose left edge is at or below the element
	// (upper_bound - 1), the last bin closed.
	at := func(i int) *refs.Ref { return c.Op(ops.Index, &ops.IndexAttrs{Items: ops.AtAlong(0, i)}, edges) }
	inside := c.Op(ops.BitwiseAnd, nil, c.Op(ops.Ge, nil, flat, at(0)), c.Op(ops.Le, nil, flat, at(bins)))
	above := c.Op(ops.Searchsorted, ops.SearchsortedAttrs{Right: true}, edges, flat)
	idx := c.Op(ops.Minimum, nil, c.Op(ops.Sub, nil, above, c.Constant(ops.IntScalar(1))), c.Constant(ops.IntScalar(int64(bins-1))))
	if w != nil {
		w = c.Reshape(w, flat.Shape())
	}
	hist := c.binCounts(inside, idx, w, bins, dt)
	if density {
		hist = c.detached(func() *refs.Ref {
			widths := c.Op(ops.Sub, nil, c.Op(ops.Index, &ops.IndexAttrs{Items: ops.SliceAlong(0, 1, bins+1)}, edges),
				c.Op(ops.Index, &ops.IndexAttrs{Items: ops.SliceAlong(0, 0, bins)}, edges))
			total := c.Op(ops.Sum, ops.ReduceAttrs{}, hist)
			return c.Op(ops.Div, nil, c.Op(ops.Div, nil, hist, total), widths)
		})
	}
	return named(b.Name)(c.Record([]string{"hist", "bin_edges"}, hist, edges))
}

// histogramEdges are histogram's bins + 1 edges over range (a list [min,
// max], or none: x's own range, [0, 1] when x is empty), in x's dtype,
// by torch's linspace; an empty range is widened by 0.5 each side.
func histogramEdges(th *eval.Thread, fname string, x *refs.Ref, rangeV eval.Value, bins int) (*tensor.Dense, error) {
	lo, hi := 0.0, 1.0
	switch v := rangeV.(type) {
	case eval.NoneType:
		if x.Shape().Numel() > 0 {
			var err error
			if lo, hi, err = hostRange(th, x); err != nil {
				return nil, err
			}
		}
	case *eval.List:
		if len(v.Elems) != 2 {
			return nil, fmt.Errorf("%s: range must be a list of two numbers [min, max], got %d elements", fname, len(v.Elems))
		}
		var ok0, ok1 bool
		lo, ok0 = th.AsFloat(v.Elems[0])
		hi, ok1 = th.AsFloat(v.Elems[1])
		if !ok0 || !ok1 {
			return nil, fmt.Errorf("%s: range must be a list of two numbers [min, max]", fname)
		}
	default:
		return nil, fmt.Errorf("%s: range must be a list of two numbers [min, max] or none, not %s", fname, eval.Describe(rangeV))
	}
	if err := checkHistRange(fname, lo, hi); err != nil {
		return nil, err
	}
	if lo == hi {
		lo, hi = lo-0.5, hi+0.5
	}
	d, err := newHost(th, fname, tensor.Shape{bins + 1}, x.DType())
	if err != nil {
		return nil, err
	}
	linspaceInto(d, lo, hi)
	return d, nil
}

func gradientBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	spacing, dimV := eval.Value(eval.None), eval.Value(eval.None)
	edge := 1
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, "spacing?", &spacing, "dim?", &dimV, "edge_order?", &edge); err != nil {
		return nil, err
	}
	switch x.DType() {
	case tensor.Bool:
		return nil, fmt.Errorf("%s: bool input is not supported (torch subtracts its elements)", b.Name)
	case tensor.Uint8:
		return nil, fmt.Errorf("%s: uint8 input is not supported, as torch's", b.Name)
	}
	if edge != 1 && edge != 2 {
		return nil, fmt.Errorf("%s: edge_order must be 1 or 2, got %d", b.Name, edge)
	}
	s := x.Shape()
	dims, allDims, err := gradientDims(th, b.Name, dimV, s)
	if err != nil {
		return nil, err
	}
	for _, d := range dims {
		if s[d] < edge+1 {
			return nil, fmt.Errorf("%s: dimension %d has %d samples; edge_order %d needs at least %d", b.Name, d, s[d], edge, edge+1)
		}
	}
	hs, coords, err := gradientSpacing(th, b.Name, spacing, dims, allDims, s)
	if err != nil {
		return nil, err
	}
	c := newChain(th)
	out := make([]*refs.Ref, len(dims))
	for i, d := range dims {
		if coords != nil {
			out[i] = c.gradientAt(x, coords[i], d, edge)
		} else {
			out[i] = c.gradientSpaced(x, hs[i], d, edge)
		}
	}
	return named(b.Name)(c.list(out))
}

// gradientDims reads gradient's dim: every dimension of s (allDims) when
// none, else an int or a list of ints, wrapped, each once.
func gradientDims(th *eval.Thread, fname string, dimV eval.Value, s tensor.Shape) (dims []int, allDims bool, err error) {
	if _, none := dimV.(eval.NoneType); none {
		dims = make([]int, len(s))
		for i := range dims {
			dims[i] = i
		}
		return dims, true, nil
	}
	given, err := dimsArg(th, fname, dimV, true)
	if err != nil {
		return nil, false, err
	}
	seen := make([]bool, len(s))
	for _, g := range given {
		d, err := dimOf(fname, g, s)
		if err != nil {
			return nil, false, err
		}
		if seen[d] {
			return nil, false, fmt.Errorf("%s: dim %d appears more than once in dim %v", fname, d, tensor.Shape(given))
		}
		seen[d] = true
		dims = append(dims, d)
	}
	return dims, false, nil
}

// gradientSpacing reads gradient's spacing for dims (of a tensor of shape
// s): one distance per dimension, or one 1-d coordinate tensor per
// dimension, as long as it.
func gradientSpacing(th *eval.Thread, fname string, spacing eval.Value, dims []int, allDims bool, s tensor.Shape) (hs []float64, coords []*refs.Ref, err error) {
	hs = make([]float64, len(dims))
	switch v := spacing.(type) {
	case eval.NoneType:
		for i := range hs {
			hs[i] = 1
		}
		return hs, nil, nil
	case *eval.List:
		n := len(v.Elems)
		tensors := n > 0
		for _, e := range v.Elems {
			t, ok := e.(eval.Tensor)
			tensors = tensors && ok && len(t.Ref.Shape()) > 0
		}
		one := allDims && n == 1 && !tensors // one distance for every dimension
		if n != len(dims) && !one {
			want := fmt.Sprintf("%d (one per dimension in dim)", len(dims))
			if allDims {
				want = fmt.Sprintf("%d (one per dimension of the input)", len(dims))
			}
			return nil, nil, fmt.Errorf("%s: spacing must be a number or a list of %s numbers or coordinate tensors, got a list of %d", fname, want, n)
		}
		if tensors {
			coords = make([]*refs.Ref, n)
			for i, e := range v.Elems {
				r := e.(eval.Tensor).Ref
				if len(r.Shape()) != 1 || r.Shape()[0] != s[dims[i]] {
					return nil, nil, fmt.Errorf("%s: spacing's coordinate tensor %d must be 1-d with the %d samples of dimension %d, got shape %v", fname, i, s[dims[i]], dims[i], r.Shape())
				}
				coords[i] = r
			}
			return nil, coords, nil
		}
		for i := range hs {
			e := v.Elems[min(i, n-1)]
			h, ok := th.AsFloat(e)
			if !ok {
				return nil, nil, fmt.Errorf("%s: spacing must be a list of numbers or a list of 1-d coordinate tensors, not a list holding %s", fname, eval.Describe(e))
			}
			hs[i] = h
		}
		return hs, nil, nil
	}
	h, ok := th.AsFloat(spacing)
	if !ok {
		return nil, nil, fmt.Errorf("%s: spacing must be a number, a list of numbers or a list of 1-d coordinate tensors, not %s", fname, eval.Describe(spacing))
	}
	for i := range hs {
		hs[i] = h
	}
	return hs, nil, nil
}

// gradientSpaced is torch's gradient of x along d at the distance h:
// (x[i+1] - x[i-1]) / h / 2 inside, one-sided differences of order edge
// at the ends (in x's dtype; integers give float32).
func (c *chain) gradientSpaced(x *refs.Ref, h float64, d, edge int) *refs.Ref {
	n := x.Shape()[d]
	at := func(i, j int) *refs.Ref { return c.Op(ops.Index, &ops.IndexAttrs{Items: ops.SliceAlong(d, i, j)}, x) }
	rd := x.DType()
	if !rd.IsFloat() {
		rd = tensor.Float32
	}
	step := c.scalar(h, rd)
	num := func(v float64) *refs.Ref { return c.scalar(v, tensor.Float32) } // torch's double constants
	center := c.Op(ops.Div, nil, c.Op(ops.Div, nil, c.Op(ops.Sub, nil, at(2, n), at(0, n-2)), step), c.scalar(2, rd))
	var first, last *refs.Ref
	if edge == 1 {
		first = c.Op(ops.Sub, nil, at(1, 2), at(0, 1))
		last = c.Op(ops.Sub, nil, at(n-1, n), at(n-2, n-1))
	} else {
		// torch's: x0·-1.5 + x1·2 - x2·0.5 and x[-3]·0.5 + x[-2]·-2 +
		// x[-1]·1.5, the 2s integers (an integer input keeps them so).
		two := c.Constant(ops.IntScalar(2))
		if x.DType().IsFloat() {
			two = c.scalar(2, x.DType())
		}
		first = c.Op(ops.Sub, nil, c.Op(ops.Add, nil, c.Op(ops.Mul, nil, at(0, 1), num(-1.5)), c.Op(ops.Mul, nil, at(1, 2), two)), c.Op(ops.Mul, nil, at(2, 3), num(0.5)))
		last = c.Op(ops.Add, nil, c.Op(ops.Add, nil, c.Op(ops.Mul, nil, at(n-3, n-2), num(0.5)), c.Op(ops.Mul, nil, at(n-2, n-1), c.Op(ops.Neg, nil, two))), c.Op(ops.Mul, nil, at(n-1, n), num(1.5)))
	}
	first, last = c.Op(ops.Div, nil, first, step), c.Op(ops.Div, nil, last, step)
	return c.Op(ops.Cat, ops.CatAttrs{Dim: d}, first, center, last)
}

// gradientAt is torch's gradient of x along d at the sample coordinates
// t (1-d): second-order differences for uneven spacing inside, one-sided
// ones of order edge at the ends, the parts promoted as torch's cat does.
func (c *chain) gradientAt(x, t *refs.Ref, d, edge int) *refs.Ref {
	n := x.Shape()[d]
	at := func(i, j int) *refs.Ref { return c.Op(ops.Index, &ops.IndexAttrs{Items: ops.SliceAlong(d, i, j)}, x) }
	span := func(i, j int) *refs.Ref { return c.Op(ops.Index, &ops.IndexAttrs{Items: ops.SliceAlong(0, i, j)}, t) }
	mul := func(a, b *refs.Ref) *refs.Ref { return c.Op(ops.Mul, nil, a, b) }
	add := func(a, b *refs.Ref) *refs.Ref { return c.Op(ops.Add, nil, a, b) }
	div := func(a, b *refs.Ref) *refs.Ref { return c.Op(ops.Div, nil, a, b) }
	neg := func(a *refs.Ref) *refs.Ref { return c.Op(ops.Neg, nil, a) }
	dx := c.Op(ops.Sub, nil, span(1, n), span(0, n-1))
	if c.Err() != nil {
		return nil
	}
	step := func(i int) *refs.Ref { return c.Op(ops.Index, &ops.IndexAttrs{Items: ops.AtAlong(0, i)}, dx) }
	view := make(tensor.Shape, len(x.Shape()))
	for i := range view {
		view[i] = 1
	}
	view[d] = n - 2
	dx1 := c.Op(ops.Index, &ops.IndexAttrs{Items: ops.SliceAlong(0, 0, n-2)}, dx)
	dx2 := c.Op(ops.Index, &ops.IndexAttrs{Items: ops.SliceAlong(0, 1, n-1)}, dx)
	sum := add(dx1, dx2)
	a := c.Reshape(div(neg(dx2), mul(dx1, sum)), view)
	b := c.Reshape(div(c.Op(ops.Sub, nil, dx2, dx1), mul(dx1, dx2)), view)
	e := c.Reshape(div(dx1, mul(dx2, sum)), view)
	center := add(add(mul(a, at(0, n-2)), mul(b, at(1, n-1))), mul(e, at(2, n)))
	var first, last *refs.Ref
	h0, hn := step(0), step(n-2)
	if edge == 1 {
		first = div(c.Op(ops.Sub, nil, at(1, 2), at(0, 1)), h0)
		last = div(c.Op(ops.Sub, nil, at(n-1, n), at(n-2, n-1)), hn)
	} else {
		h1, hm := step(1), step(n-3)
		s0, sn := add(h0, h1), add(hn, hm)
		first = add(add(mul(div(neg(add(add(h0, h0), h1)), mul(h0, s0)), at(0, 1)), mul(div(s0, mul(h0, h1)), at(1, 2))), mul(div(neg(h0), mul(h1, s0)), at(2, 3)))
		last = add(add(mul(div(hn, mul(hm, sn)), at(n-3, n-2)), mul(div(neg(sn), mul(hn, hm)), at(n-2, n-1))), mul(div(add(add(hn, hn), hm), mul(hn, sn)), at(n-1, n)))
	}
	if c.Err() != nil {
		return nil
	}
	rd := tensor.ResultType(first.Meta(), center.Meta())
	rd = tensor.ResultType(tensor.Meta{Shape: tensor.Shape{1}, DType: rd}, last.Meta())
	return c.Op(ops.Cat, ops.CatAttrs{Dim: d}, c.Cast(first, rd), c.Cast(center, rd), c.Cast(last, rd))
}
