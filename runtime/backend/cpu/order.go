package cpu

import (
	"cmp"
	"fmt"
	"math"
	"runtime"
	"slices"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Kernels of cumsum, cumprod, logsumexp, norm and argsort
// (runtime/ops/order.go). Each works on lines: x in (outer, r, inner)
// form, a line being the r elements o*r*inner + k*inner + j for one (o,
// j). Floats are accumulated in float64.

func init() {
	Register(ops.Cumsum, scanKernel("cumsum"))
	Register(ops.Cumprod, scanKernel("cumprod"))
	Register(ops.Logcumsumexp, scanKernel("logcumsumexp"))
	Register(ops.Logsumexp, lineReduceKernel("logsumexp"))
	Register(ops.Norm, lineReduceKernel("norm"))
	Register(ops.Argsort, argsortKernel)
	Register(ops.CummaxIndices, cumExtremeKernel("cummax_indices", false))
	Register(ops.CumminIndices, cumExtremeKernel("cummin_indices", true))
}

// axisPlan is shape's (outer, r, inner) form around dim (0-d as [1]).
func axisPlan(s tensor.Shape, dim int) plan {
	s = asRank1(s)
	return plan{outer: s[:dim].Numel(), r: s[dim], inner: s[dim+1:].Numel()}
}

// overLines runs fn over blocks of p's lines, o in [o0, o1) and j in [j0,
// j1), split over goroutines for large tensors: by outer when it has a
// row per worker, else by inner.
func overLines(p plan, fn func(o0, o1, j0, j1 int)) {
	workers := runtime.GOMAXPROCS(0)
	if p.outer*p.r*p.inner < parallelMin || workers < 2 {
		fn(0, p.outer, 0, p.inner)
		return
	}
	if p.outer >= workers {
		splitRange(p.outer, workers, func(_, lo, hi int) { fn(lo, hi, 0, p.inner) })
		return
	}
	splitRange(p.inner, workers, func(_, lo, hi int) { fn(0, p.outer, lo, hi) })
}

func scanKernel(name string) Kernel {
	kind := map[string]scanKind{"cumsum": scanSum, "cumprod": scanProd, "logcumsumexp": scanLogSumExp}[name]
	var kernel Kernel
	kernel = func(out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
		if err := checkInputs(name, ins, 1); err != nil {
			return err
		}
		a, err := ops.AttrsAs[ops.ScanAttrs](name, attrs)
		if err != nil {
			return err
		}
		if isHalf(out.DType) {
			return viaFloat32(out, func(tmp *tensor.Dense) error { return kernel(tmp, ins, attrs) })
		}
		x := ins[0]
		dim, err := tensor.NormDim(a.Dim, max(len(x.Shape), 1))
		if err != nil {
			return err
		}
		p := axisPlan(x.Shape, dim)
		switch out.DType {
		case tensor.Float32:
			scanLines(out.F32(), castTo(x, tensor.Float64).F64(), p, kind, func(v float64) float32 { return float32(v) })
		case tensor.Float64:
			scanLines(out.F64(), castTo(x, tensor.Float64).F64(), p, kind, func(v float64) float64 { return v })
		case tensor.Int64:
			scanLines(out.I64(), castTo(x, tensor.Int64).I64(), p, kind, func(v int64) int64 { return v })
		default:
			return fmt.Errorf("%s has no cpu kernel for %v", name, out.DType)
		}
		return nil
	}
	return kernel
}

// scanKind is what a scan accumulates.
type scanKind uint8

const (
	scanSum scanKind = iota
	scanProd
	// scanLogSumExp: log(exp(acc) + exp(v)), floats only.
	scanLogSumExp
)

// scanLines writes the running sums (products, log-sum-exps) of x's lines
// into o, the accumulator A rounded by store.
func scanLines[O any, A float64 | int64](o []O, x []A, p plan, kind scanKind, store func(A) O) {
	var init A
	switch kind {
	case scanProd:
		init = 1
	case scanLogSumExp:
		init = A(math.Inf(-1))
	}
	overLines(p, func(o0, o1, j0, j1 int) {
		acc := make([]A, j1-j0)
		for oi := o0; oi < o1; oi++ {
			for j := range acc {
				acc[j] = init
			}
			for k := range p.r {
				base := (oi*p.r+k)*p.inner + j0
				xs, os := x[base:base+len(acc)], o[base:base+len(acc)]
				for j, v := range xs {
					switch kind {
					case scanSum:
						acc[j] += v
					case scanProd:
						acc[j] *= v
					default:
						acc[j] = A(logAddExp(float64(acc[j]), float64(v)))
					}
					os[j] = store(acc[j])
				}
			}
		}
	})
}

// logAddExp is torch's _log_add_exp_helper: log(exp(x) + exp(y)) as
// max + log1p(exp(min - max)), NaN winning, and x where both are the same
// infinity.
func logAddExp(x, y float64) float64 {
	lo, hi := math.Min(x, y), math.Max(x, y)
	switch {
	case math.IsNaN(y):
		lo, hi = y, y
	case math.IsNaN(x):
		lo, hi = x, x
	}
	if lo != hi || !math.IsInf(lo, 0) && !math.IsNaN(lo) {
		return math.Log1p(math.Exp(lo-hi)) + hi
	}
	return x
}

// lineReduceKernel is logsumexp or norm: a float64 function of each line
// of x around the reduced dims.
func lineReduceKernel(name string) Kernel {
	var kernel Kernel
	kernel = func(out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
		if err := checkInputs(name, ins, 1); err != nil {
			return err
		}
		if isHalf(out.DType) {
			return viaFloat32(out, func(tmp *tensor.Dense) error { return kernel(tmp, ins, attrs) })
		}
		var dims []int
		var line func(x []float64, n, stride int) float64
		switch name {
		case "logsumexp":
			a, err := ops.AttrsAs[ops.ReduceAttrs](name, attrs)
			if err != nil {
				return err
			}
			dims, line = a.Dims, logsumexpLine
		default:
			a, err := ops.AttrsAs[ops.VectorNormAttrs](name, attrs)
			if err != nil {
				return err
			}
			dims, line = a.Dims, normLine(a.P)
		}
		x := ins[0]
		dims, err := ops.ReduceDims(dims, len(x.Shape))
		if err != nil {
			return err
		}
		p, perm := reducePlan(x.Shape, dims)
		if perm != nil {
			x = permuteCopy(x, perm)
		}
		if p.outer*p.inner != out.Numel() {
			return fmt.Errorf("%s: output %v does not fit the reduction of %v", name, out.Meta, x.Meta)
		}
		xf := castTo(x, tensor.Float64).F64()
		res := make([]float64, out.Numel())
		overLines(p, func(o0, o1, j0, j1 int) {
			for o := o0; o < o1; o++ {
				for j := j0; j < j1; j++ {
					res[o*p.inner+j] = line(xf[o*p.r*p.inner+j:], p.r, p.inner)
				}
			}
		})
		storeFloat(out, res)
		return nil
	}
	return kernel
}

// logsumexpLine is torch's logsumexp of x[0], x[stride], ... (n of them):
// m + log(sum(exp(x - m))) with m the largest element, or 0 when that is
// infinite.
func logsumexpLine(x []float64, n, stride int) float64 {
	m := math.Inf(-1)
	for k := range n {
		if v := x[k*stride]; v > m || v != v {
			m = v
			if v != v {
				return v
			}
		}
	}
	if math.IsInf(m, 0) {
		m = 0
	}
	s := 0.0
	for k := range n {
		s += math.Exp(x[k*stride] - m)
	}
	return math.Log(s) + m
}

// normLine is the p-norm of a line (see ops.VectorNormAttrs).
func normLine(p float64) func(x []float64, n, stride int) float64 {
	switch {
	case math.IsInf(p, 1), math.IsInf(p, -1):
		isMax := p > 0
		return func(x []float64, n, stride int) float64 {
			m := math.Abs(x[0])
			for k := 1; k < n; k++ {
				v := math.Abs(x[k*stride])
				if v != v {
					return v
				}
				if isMax && v > m || !isMax && v < m {
					m = v
				}
			}
			return m
		}
	case p == 0:
		return func(x []float64, n, stride int) float64 {
			c := 0.0
			for k := range n {
				if x[k*stride] != 0 {
					c++
				}
			}
			return c
		}
	case p == 1:
		return func(x []float64, n, stride int) float64 {
			s := 0.0
			for k := range n {
				s += math.Abs(x[k*stride])
			}
			return s
		}
	case p == 2:
		return func(x []float64, n, stride int) float64 {
			s := 0.0
			for k := range n {
				v := x[k*stride]
				s += v * v
			}
			return math.Sqrt(s)
		}
	}
	return func(x []float64, n, stride int) float64 {
		s := 0.0
		for k := range n {
			s += math.Pow(math.Abs(x[k*stride]), p)
		}
		return math.Pow(s, 1/p)
	}
}

func argsortKernel(out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
	if err := checkInputs("argsort", ins, 1); err != nil {
		return err
	}
	a, err := ops.AttrsAs[ops.SortAttrs]("argsort", attrs)
	if err != nil {
		return err
	}
	desc := a.Descending
	return indexLines("argsort", out, ins[0], a.Dim, lineIndexer{
		f32: func(o []int64, x []float32, p plan) { argsortLines(o, x, p, desc) },
		f64: func(o []int64, x []float64, p plan) { argsortLines(o, x, p, desc) },
		i64: func(o []int64, x []int64, p plan) { argsortLines(o, x, p, desc) },
		u8:  func(o []int64, x []uint8, p plan) { argsortLines(o, x, p, desc) },
	})
}

// lineIndexer writes int64 indices for the lines of an input of each
// dtype a kernel computes in (one generic function's instances).
type lineIndexer struct {
	f32 func(o []int64, x []float32, p plan)
	f64 func(o []int64, x []float64, p plan)
	i64 func(o []int64, x []int64, p plan)
	u8  func(o []int64, x []uint8, p plan)
}

// indexLines runs the instance of run for x's dtype over x's lines along
// dim, halves widened to float32 and the narrow integers (but uint64) to
// int64, which keeps every order.
func indexLines(name string, out, x *tensor.Dense, dim int, run lineIndexer) error {
	switch {
	case isHalf(x.DType):
		x = castTo(x, tensor.Float32)
	case x.DType.IsNarrowInt() && x.DType != tensor.Uint64:
		x = castTo(x, tensor.Int64)
	}
	d, err := tensor.NormDim(dim, max(len(x.Shape), 1))
	if err != nil {
		return err
	}
	p, o := axisPlan(x.Shape, d), out.I64()
	switch x.DType {
	case tensor.Float32:
		run.f32(o, x.F32(), p)
	case tensor.Float64:
		run.f64(o, x.F64(), p)
	case tensor.Int64:
		run.i64(o, x.I64(), p)
	case tensor.Uint8, tensor.Bool:
		run.u8(o, x.U8(), p)
	default:
		return fmt.Errorf("%s has no cpu kernel for %v", name, x.DType)
	}
	return nil
}

// argsortLines writes the stable sorting permutation of each line of x
// into o; NaN is above every number. Each line is sorted as (value,
// position) pairs, ties broken by position: stable, pdqsort's O(n log n),
// and no indirect reads of x while sorting.
func argsortLines[T number](o []int64, x []T, p plan, desc bool) {
	type pair struct {
		v T
		i int64
	}
	compare := func(a, b pair) int {
		an, bn := a.v != a.v, b.v != b.v
		c := 0
		switch {
		case an || bn:
			if an != bn {
				c = -1
				if an {
					c = 1
				}
			}
		case a.v < b.v:
			c = -1
		case a.v > b.v:
			c = 1
		}
		if desc {
			c = -c
		}
		if c == 0 {
			return cmp.Compare(a.i, b.i)
		}
		return c
	}
	overLines(p, func(o0, o1, j0, j1 int) {
		line := make([]pair, p.r)
		for oi := o0; oi < o1; oi++ {
			for j := j0; j < j1; j++ {
				base := oi*p.r*p.inner + j
				for k := range line {
					line[k] = pair{x[base+k*p.inner], int64(k)}
				}
				slices.SortFunc(line, compare)
				for k, e := range line {
					o[base+k*p.inner] = e.i
				}
			}
		}
	})
}

// cumExtremeKernel writes the index of the running maximum (or minimum,
// least) along dim, as torch's cummax_cummin_helper: an element takes
// over when it is NaN, or when it is >= (<=) the extreme so far and that
// is not NaN.
func cumExtremeKernel(name string, least bool) Kernel {
	return func(out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
		if err := checkInputs(name, ins, 1); err != nil {
			return err
		}
		a, err := ops.AttrsAs[ops.ScanAttrs](name, attrs)
		if err != nil {
			return err
		}
		return indexLines(name, out, ins[0], a.Dim, lineIndexer{
			f32: func(o []int64, x []float32, p plan) { cumExtremeLines(o, x, p, least) },
			f64: func(o []int64, x []float64, p plan) { cumExtremeLines(o, x, p, least) },
			i64: func(o []int64, x []int64, p plan) { cumExtremeLines(o, x, p, least) },
			u8:  func(o []int64, x []uint8, p plan) { cumExtremeLines(o, x, p, least) },
		})
	}
}

func cumExtremeLines[T number](o []int64, x []T, p plan, least bool) {
	if p.r == 0 {
		return
	}
	overLines(p, func(o0, o1, j0, j1 int) {
		for oi := o0; oi < o1; oi++ {
			for j := j0; j < j1; j++ {
				base := oi*p.r*p.inner + j
				best, at := x[base], int64(0)
				for k := range p.r {
					v := x[base+k*p.inner]
					takes := v >= best
					if least {
						takes = v <= best
					}
					if v != v || best == best && takes {
						best, at = v, int64(k)
					}
					o[base+k*p.inner] = at
				}
			}
		}
	})
}
