package stdlib

import (
	"fmt"
	"math"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Numerical helpers of torch composed of tref's ops: dist, vector_norm,
// trapezoid, cumulative_trapezoid and histc, with torch 1.13's formulas.

func init() {
	register("dist", "dist(input, other, p=2): the p-norm of input - other over all elements (broadcasting; p a number, inf or -inf), as torch.dist", distBuiltin)
	register("vector_norm", "vector_norm(x, ord=2, dim=none, keepdim=false, dtype=none): the ord-norm of x over dim (every dimension when none): ord a number, inf or -inf, 0 the count of nonzeros; x converted to dtype first when given, as torch.linalg.vector_norm", vectorNormBuiltin)
	register("trapezoid", "trapezoid(y, x=none, dx=none, dim=-1): the integral of y along dim by the trapezoidal rule, at spacing dx (1 by default) or at the sample points x (1-d, or of y's shape), as torch.trapezoid", trapezoidBuiltin(false))
	register("cumulative_trapezoid", "cumulative_trapezoid(y, x=none, dx=none, dim=-1): the running trapezoidal integrals of y along dim (one element fewer), as torch.cumulative_trapezoid", trapezoidBuiltin(true))
	register("histc", "histc(input, bins=100, min=0, max=0): the counts of input's elements in bins equal bins over [min, max] (input's own range when min = max; the last bin closed; elements outside and NaN not counted, where torch 1.13 counts a NaN in the first bin), in input's floating-point dtype, as torch.histc", histcBuiltin)
}

func distBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x, y *refs.Ref
	p := 2.0
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, "other", &y, "p?", &p); err != nil {
		return nil, err
	}
	c := newChain(th)
	if !c.floatInput(b.Name, x) || !c.floatInput(b.Name, y) {
		return c.Result(nil)
	}
	return c.Result(c.Op(ops.Norm, ops.VectorNormAttrs{P: p}, c.Op(ops.Sub, nil, x, y)))
}

func vectorNormBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	ord := 2.0
	dim, dtv := eval.Value(eval.None), eval.Value(eval.None)
	keepdim := false
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "x|input", &x, "ord?", &ord, "dim?", &dim, "keepdim?", &keepdim, "dtype?", &dtv); err != nil {
		return nil, err
	}
	dims, err := dimsArg(th, b.Name, dim, true)
	if err != nil {
		return nil, err
	}
	dt, has, err := optDType(b.Name, dtv)
	if err != nil {
		return nil, err
	}
	c := newChain(th)
	if has {
		if !dt.IsFloat() {
			return c.Abort(fmt.Errorf("%s: dtype must be a floating-point dtype, got %v", b.Name, dt))
		}
		x = c.Cast(x, dt)
	}
	if !c.floatInput(b.Name, x) {
		return c.Result(nil)
	}
	return c.Result(c.Op(ops.Norm, ops.VectorNormAttrs{P: ord, Dims: dims, Keepdim: keepdim}, x))
}

// trapezoidBuiltin is trapezoid, or (cumulative) cumulative_trapezoid.
func trapezoidBuiltin(cumulative bool) eval.BuiltinFunc {
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		var y *refs.Ref
		xv, dxv := eval.Value(eval.None), eval.Value(eval.None)
		dim := -1
		if err := eval.UnpackArgs(th, b.Name, args, kwargs, "y|input", &y, "x?", &xv, "dx?", &dxv, "dim?", &dim); err != nil {
			return nil, err
		}
		s := y.Shape()
		d, err := dimOf(b.Name, dim, s)
		if err != nil {
			return nil, err
		}
		_, noX := xv.(eval.NoneType)
		_, noDx := dxv.(eval.NoneType)
		if !noX && !noDx {
			return nil, fmt.Errorf("%s: pass x or dx, not both", b.Name)
		}
		c := newChain(th)
		dt := y.DType()
		if !dt.IsFloat() {
			dt = tensor.Float32
		}
		yf := c.Cast(y, dt)
		n := s[d]
		if n == 0 && !cumulative {
			// torch: zeros of the reduced shape.
			out := append(s[:d:d], s[d+1:]...)
			return c.Result(c.Expand(c.scalar(0, dt), out))
		}
		left := c.Op(ops.Index, &ops.IndexAttrs{Items: ops.SliceAlong(d, 0, max(n-1, 0))}, yf)
		right := c.Op(ops.Index, &ops.IndexAttrs{Items: ops.SliceAlong(d, min(1, n), n)}, yf)
		if noX {
			dx := 1.0
			if !noDx {
				f, ok := th.AsFloat(dxv)
				if !ok {
					return c.Abort(fmt.Errorf("%s: dx must be a number, got %s", b.Name, eval.Describe(dxv)))
				}
				dx = f
			}
			if cumulative {
				// (dx/2 · (left + right)).cumsum(dim)
				sum := c.Op(ops.Add, nil, left, right)
				return c.Result(c.Op(ops.Cumsum, ops.ScanAttrs{Dim: d}, c.Op(ops.Mul, nil, c.scalar(dx/2, dt), sum)))
			}
			// (y.sum(dim) - (y[0] + y[-1]) · 0.5) · dx
			total := c.Op(ops.Sum, ops.ReduceAttrs{Dims: []int{d}}, yf)
			ends := c.Op(ops.Add, nil, c.Op(ops.Index, &ops.IndexAttrs{Items: ops.AtAlong(d, 0)}, yf), c.Op(ops.Index, &ops.IndexAttrs{Items: ops.AtAlong(d, n-1)}, yf))
			inner := c.Op(ops.Sub, nil, total, c.Op(ops.Mul, nil, ends, c.scalar(0.5, dt)))
			return c.Result(c.Op(ops.Mul, nil, inner, c.scalar(dx, dt)))
		}
		xt, ok := xv.(eval.Tensor)
		if !ok {
			return c.Abort(fmt.Errorf("%s: x must be a tensor, got %s", b.Name, eval.Describe(xv)))
		}
		x := xt.Ref
		xs := x.Shape()
		var spacing *refs.Ref
		switch {
		case len(xs) == 1:
			if xs[0] != n {
				return c.Abort(fmt.Errorf("%s: x has %d points but y has %d along dim %d", b.Name, xs[0], n, d))
			}
			// x's differences along dim, 1 in every other dimension.
			view := make(tensor.Shape, len(s))
			for i := range view {
				view[i] = 1
			}
			view[d] = n
			xr := c.Reshape(x, view)
			spacing = c.Op(ops.Sub, nil, c.Op(ops.Index, &ops.IndexAttrs{Items: ops.SliceAlong(d, min(1, n), n)}, xr),
				c.Op(ops.Index, &ops.IndexAttrs{Items: ops.SliceAlong(d, 0, max(n-1, 0))}, xr))
		case len(xs) == len(s):
			xd, err := dimOf(b.Name, dim, xs)
			if err != nil || xs[xd] != n {
				return c.Abort(fmt.Errorf("%s: x of shape %v does not go with y of shape %v along dim %d", b.Name, xs, s, d))
			}
			spacing = c.Op(ops.Sub, nil, c.Op(ops.Index, &ops.IndexAttrs{Items: ops.SliceAlong(d, min(1, n), n)}, x),
				c.Op(ops.Index, &ops.IndexAttrs{Items: ops.SliceAlong(d, 0, max(n-1, 0))}, x))
		default:
			return c.Abort(fmt.Errorf("%s: x must be 1-d or have y's number of dimensions, got shapes %v and %v", b.Name, xs, s))
		}
		prod := c.Op(ops.Mul, nil, c.Op(ops.Add, nil, left, right), spacing)
		if cumulative {
			prod = c.Op(ops.Cumsum, ops.ScanAttrs{Dim: d}, prod)
		} else {
			prod = c.Op(ops.Sum, ops.ReduceAttrs{Dims: []int{d}}, prod)
		}
		return c.Result(c.Op(ops.Div, nil, prod, c.scalar(2, prod.DType())))
	}
}

func histcBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	bins := 100
	lo, hi := 0.0, 0.0
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, "bins?", &bins, "min?", &lo, "max?", &hi); err != nil {
		return nil, err
	}
	dt := x.DType()
	if !dt.IsFloat() {
		return nil, fmt.Errorf("%s: the input must be floating point, got %s", b.Name, dt)
	}
	if bins <= 0 {
		return nil, fmt.Errorf("%s: bins must be positive, got %d", b.Name, bins)
	}
	if bins > maxHistBins {
		return nil, fmt.Errorf("%s: %d bins is more than the %d allowed", b.Name, bins, maxHistBins)
	}
	if lo == hi && x.Shape().Numel() > 0 {
		var err error
		if lo, hi, err = hostRange(th, x); err != nil {
			return nil, err
		}
	}
	if lo == hi {
		lo, hi = lo-1, hi+1
	}
	if err := checkHistRange(b.Name, lo, hi); err != nil {
		return nil, err
	}
	c := newChain(th)
	flat := c.Reshape(x, tensor.Shape{x.Shape().Numel()})
	// torch's bin: (x - min)·bins / (max - min), truncated, in x's dtype,
	// the last bin closed; elements outside [min, max] and NaN are not
	// counted.
	pos := c.Op(ops.Div, nil, c.Op(ops.Mul, nil, c.Op(ops.Sub, nil, flat, c.scalar(lo, dt)), c.scalar(float64(bins), dt)), c.scalar(hi-lo, dt))
	idx := c.Op(ops.Minimum, nil, c.Cast(c.Op(ops.Trunc, nil, pos), tensor.Int64), c.Constant(ops.IntScalar(int64(bins-1))))
	inside := c.Op(ops.BitwiseAnd, nil, c.Op(ops.Ge, nil, flat, c.scalar(lo, dt)), c.Op(ops.Le, nil, flat, c.scalar(hi, dt)))
	return c.Result(c.binCounts(inside, idx, nil, bins, dt))
}

// hostRange reads x on the host (as torch does) and returns its smallest
// and largest elements, NaN if it holds one.
func hostRange(th *eval.Thread, x *refs.Ref) (lo, hi float64, err error) {
	d, err := th.RT.Read(x)
	if err != nil {
		return 0, 0, err
	}
	lo, hi = math.Inf(1), math.Inf(-1)
	for i := range d.Numel() {
		v := d.At(i)
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	return lo, hi, nil
}

// checkHistRange checks a histogram's range [lo, hi]: finite, lo <= hi.
func checkHistRange(fname string, lo, hi float64) error {
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) || math.IsNaN(lo) || math.IsNaN(hi) {
		return fmt.Errorf("%s: the range [%v, %v] is not finite", fname, lo, hi)
	}
	if lo > hi {
		return fmt.Errorf("%s: max (%v) must be larger than min (%v)", fname, hi, lo)
	}
	return nil
}

// binCounts is the histogram [bins] in dt of the 1-d idx (int64 bin
// indices, counted where inside is true): the sum of the weights w (1-d,
// of idx's length; ones when nil) that fall in each bin, without a
// gradient (torch's histograms have none).
func (c *chain) binCounts(inside, idx, w *refs.Ref, bins int, dt tensor.DType) *refs.Ref {
	// Elements outside go to an extra bin that is dropped.
	idx = c.Op(ops.Where, nil, inside, idx, c.Constant(ops.IntScalar(int64(bins))))
	counts := c.detached(func() *refs.Ref {
		zeros := c.Expand(c.scalar(0, dt), tensor.Shape{bins + 1})
		if w == nil {
			w = c.Expand(c.scalar(1, dt), idx.Shape())
		}
		return c.Op(ops.ScatterAdd, ops.DimAttrs{Dim: 0}, zeros, idx, w)
	})
	return c.Op(ops.Index, &ops.IndexAttrs{Items: ops.SliceAlong(0, 0, bins)}, counts)
}

// maxHistBins bounds histc's bins, checked before the counts are made.
const maxHistBins = 1 << 28
