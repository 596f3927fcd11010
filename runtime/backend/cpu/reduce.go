package cpu

import (
	"bytes"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Reductions. Every reduction is brought to the form (outer, r, inner):
// out[o, j] reduces x[o, k, j] over k < r. Size-1 dimensions are dropped
// and neighbouring dimensions merged; when the reduced dimensions are not
// one contiguous block the input is first copied with the kept dimensions
// in front. Float sums accumulate in float64, so float32 results are
// correctly rounded for all practical sizes. Large inputs are split over
// goroutines along outer when it is large enough, else along r with
// per-goroutine partial results merged in order (so argmax still finds the
// first maximum).

func init() {
	for _, op := range ops.Reductions {
		Register(op, reduceKernel(op.Name()))
	}
}

// plan is a reduction in (outer, r, inner) form.
type plan struct{ outer, r, inner int }

// family is one kind of reduction over elements T with accumulator A.
type family[T number, A any] struct {
	// init is the accumulator's starting value.
	init A
	// partial accumulates x[o, k0:k1, j] into acc[o*inner+j] for
	// o0 <= o < o1.
	partial func(acc []A, x []T, p plan, o0, o1, k0, k1 int)
	// merge folds src (covering later k) into dst.
	merge func(dst, src []A)
}

func reduceKernel(name string) Kernel {
	var kernel Kernel
	kernel = func(out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
		if err := checkInputs(name, ins, 1); err != nil {
			return err
		}
		a, ok := attrs.(ops.ReduceAttrs)
		if !ok {
			return fmt.Errorf("%s: attributes must be ReduceAttrs, got %T", name, attrs)
		}
		if isHalf(out.DType) {
			return viaFloat32(out, func(tmp *tensor.Dense) error { return kernel(tmp, ins, attrs) })
		}
		x := ins[0]
		if isHalf(x.DType) {
			x = castTo(x, tensor.Float32)
		}
		var p plan
		if (name == "argmax" || name == "argmin") && len(a.Dims) == 0 {
			p = plan{outer: 1, r: x.Numel(), inner: 1}
		} else {
			dims, err := ops.ReduceDims(a.Dims, len(x.Shape))
			if err != nil {
				return err
			}
			var perm []int
			p, perm = reducePlan(x.Shape, dims)
			if perm != nil {
				x = permuteCopy(x, perm)
			}
		}
		if p.outer*p.inner != out.Numel() {
			return fmt.Errorf("%s: output %v does not fit the reduction of %v", name, out.Meta, x.Meta)
		}
		switch x.DType {
		case tensor.Float32:
			return reduceTyped(name, out, x.F32(), p, a)
		case tensor.Float64:
			return reduceTyped(name, out, x.F64(), p, a)
		case tensor.Int64:
			return reduceTyped(name, out, x.I64(), p, a)
		case tensor.Uint8, tensor.Bool:
			return reduceTyped(name, out, x.U8(), p, a)
		}
		return fmt.Errorf("%s has no cpu kernel for %v", name, x.DType)
	}
	return kernel
}

// reducePlan brings the reduction of dims (sorted, normalised) of shape
// to (outer, r, inner) form. perm is nil, or the permutation that puts the
// kept dimensions first when the reduced ones are not contiguous.
func reducePlan(shape tensor.Shape, dims []int) (plan, []int) {
	type run struct {
		size    int
		reduced bool
	}
	var runs []run
	reduced := make([]bool, len(shape))
	for _, d := range dims {
		reduced[d] = true
	}
	numel := 1
	for i, n := range shape {
		numel *= n
		if n == 1 {
			continue
		}
		if k := len(runs) - 1; k >= 0 && runs[k].reduced == reduced[i] {
			runs[k].size *= n
			continue
		}
		runs = append(runs, run{n, reduced[i]})
	}
	nred := 0
	for _, r := range runs {
		if r.reduced {
			nred++
		}
	}
	if numel == 0 || nred > 1 {
		p := plan{outer: 1, r: 1, inner: 1}
		var perm []int
		for i, n := range shape {
			if !reduced[i] {
				p.outer *= n
				perm = append(perm, i)
			}
		}
		for i, n := range shape {
			if reduced[i] {
				p.r *= n
				perm = append(perm, i)
			}
		}
		if numel == 0 {
			return p, nil
		}
		return p, perm
	}
	p := plan{outer: 1, r: 1, inner: 1}
	seen := false
	for _, r := range runs {
		switch {
		case r.reduced:
			p.r, seen = r.size, true
		case seen:
			p.inner *= r.size
		default:
			p.outer *= r.size
		}
	}
	return p, nil
}

// permuteCopy returns x with its dimensions reordered by perm, contiguous.
func permuteCopy(x *tensor.Dense, perm []int) *tensor.Dense {
	st := x.Shape.Strides()
	shape := make(tensor.Shape, len(perm))
	strides := make([]int, len(perm))
	for i, p := range perm {
		shape[i], strides[i] = x.Shape[p], st[p]
	}
	d := tensor.NewDense(tensor.Meta{Shape: shape, DType: x.DType})
	switch x.DType.Size() {
	case 1:
		gather(d.U8(), x.U8(), shape, strides)
	case 2:
		gather(d.U16(), x.U16(), shape, strides)
	case 4:
		gather(d.F32(), x.F32(), shape, strides)
	case 8:
		gather(d.I64(), x.I64(), shape, strides)
	}
	return d
}

// gather copies the strided view (shape, strides) of src into dst in
// row-major order.
func gather[T any](dst, src []T, shape []int, strides []int) {
	if len(dst) == 0 {
		return
	}
	rank := len(shape)
	if rank == 0 {
		dst[0] = src[0]
		return
	}
	idx := make([]int, rank)
	last := rank - 1
	n, s := shape[last], strides[last]
	off := 0
	for pos := 0; pos < len(dst); pos += n {
		row := dst[pos : pos+n]
		for i := range row {
			row[i] = src[off+i*s]
		}
		for d := last - 1; d >= 0; d-- {
			idx[d]++
			off += strides[d]
			if idx[d] < shape[d] {
				break
			}
			off -= idx[d] * strides[d]
			idx[d] = 0
		}
	}
}

// runReduce computes the accumulators of every output element.
func runReduce[T number, A any](x []T, p plan, f family[T, A]) []A {
	acc := make([]A, p.outer*p.inner)
	for i := range acc {
		acc[i] = f.init
	}
	if p.r == 0 || len(acc) == 0 {
		return acc
	}
	workers := runtime.GOMAXPROCS(0)
	if len(x) < parallelMin || workers < 2 {
		f.partial(acc, x, p, 0, p.outer, 0, p.r)
		return acc
	}
	if p.outer >= workers {
		splitRange(p.outer, workers, func(_, lo, hi int) {
			f.partial(acc, x, p, lo, hi, 0, p.r)
		})
		return acc
	}
	parts := make([][]A, workers)
	splitRange(p.r, workers, func(w, lo, hi int) {
		part := acc
		if w > 0 {
			part = make([]A, len(acc))
			for i := range part {
				part[i] = f.init
			}
			parts[w] = part
		}
		f.partial(part, x, p, 0, p.outer, lo, hi)
	})
	for _, part := range parts[1:] {
		if part != nil {
			f.merge(acc, part)
		}
	}
	return acc
}

// splitRange calls fn(w, lo, hi) on up to parts goroutines covering [0, n).
func splitRange(n, parts int, fn func(w, lo, hi int)) {
	parts = max(1, min(parts, n))
	var wg sync.WaitGroup
	for w := 1; w < parts; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(w, w*n/parts, (w+1)*n/parts)
		}()
	}
	fn(0, 0, n/parts)
	wg.Wait()
}

func reduceTyped[T number](name string, out *tensor.Dense, x []T, p plan, a ops.ReduceAttrs) error {
	switch name {
	case "sum", "mean":
		if isFloat[T]() {
			acc := runReduce(x, p, sumFamily[T, float64]())
			if name == "mean" {
				for i := range acc {
					acc[i] /= float64(p.r)
				}
			}
			storeFloat(out, acc)
			return nil
		}
		copy(out.I64(), runReduce(x, p, sumFamily[T, int64]()))
		return nil
	case "prod":
		if isFloat[T]() {
			storeFloat(out, runReduce(x, p, prodFamily[T, float64]()))
			return nil
		}
		copy(out.I64(), runReduce(x, p, prodFamily[T, int64]()))
		return nil
	case "var", "std":
		storeFloat(out, variance(x, p, a.Correction, name == "std"))
		return nil
	case "max":
		copy(typedView[T](out), runReduce(x, p, maxFamily[T]()))
		return nil
	case "min":
		copy(typedView[T](out), runReduce(x, p, minFamily[T]()))
		return nil
	case "argmax", "argmin":
		acc := runReduce(x, p, argFamily[T](name == "argmax"))
		o := out.I64()
		for i, e := range acc {
			o[i] = e.i
		}
		return nil
	case "any", "all":
		copy(out.U8(), runReduce(x, p, logicalFamily[T](name == "all")))
		return nil
	}
	return fmt.Errorf("cpu: unknown reduction %q", name)
}

// typedView views out's buffer as T (out has the input's dtype).
func typedView[T number](out *tensor.Dense) []T {
	var z T
	switch any(z).(type) {
	case float32:
		return any(out.F32()).([]T)
	case float64:
		return any(out.F64()).([]T)
	case int64:
		return any(out.I64()).([]T)
	}
	return any(out.U8()).([]T)
}

// storeFloat rounds float64 accumulators into a float32 or float64 out.
func storeFloat(out *tensor.Dense, acc []float64) {
	if out.DType == tensor.Float64 {
		copy(out.F64(), acc)
		return
	}
	o := out.F32()
	for i, v := range acc {
		o[i] = float32(v)
	}
}

// eachBlock calls row for every o in [o0, o1) with the contiguous run
// x[o, k0:k1] when inner is 1, or else col for every k with the row
// x[o, k, :] and o's accumulators.
func eachBlock[T number, A any](acc []A, x []T, p plan, o0, o1, k0, k1 int,
	row func(o int, xs []T), col func(o, k int, xs []T, accs []A)) {
	for o := o0; o < o1; o++ {
		base := o * p.r * p.inner
		if p.inner == 1 {
			row(o, x[base+k0:base+k1])
			continue
		}
		accs := acc[o*p.inner : (o+1)*p.inner]
		for k := k0; k < k1; k++ {
			col(o, k, x[base+k*p.inner:base+(k+1)*p.inner], accs)
		}
	}
}

func sumFamily[T number, A float64 | int64]() family[T, A] {
	var rows func(acc []A, x []T, p plan, o0, o1, k0, k1 int)
	cols := func(accs []A, xs []T, stride, rows int) {
		for k := range rows {
			r := xs[k*stride : k*stride+len(accs)]
			for j, v := range r {
				accs[j] += A(v)
			}
		}
	}
	// float32 into float64: vectorised where the CPU allows.
	if f, ok := any(sumRowsF32).(func([]A, []T, plan, int, int, int, int)); ok {
		rows = f
	}
	if f, ok := any(colSumF32).(func([]A, []T, int, int)); ok {
		cols = f
	}
	return family[T, A]{
		partial: func(acc []A, x []T, p plan, o0, o1, k0, k1 int) {
			if p.inner == 1 && rows != nil {
				rows(acc, x, p, o0, o1, k0, k1)
				return
			}
			for o := o0; o < o1; o++ {
				base := o * p.r * p.inner
				if p.inner == 1 {
					acc[o] += sumRow[T, A](x[base+k0 : base+k1])
					continue
				}
				accs := acc[o*p.inner : (o+1)*p.inner]
				for k := k0; k < k1; k += colRows {
					cols(accs, x[base+k*p.inner:], p.inner, min(colRows, k1-k))
				}
			}
		},
		merge: func(dst, src []A) {
			for i, v := range src {
				dst[i] += v
			}
		},
	}
}

// colRows is how many rows a column sum adds into registers before it
// updates the accumulator row: each update then reads and writes the
// accumulators once for colRows rows of input.
const colRows = 8

// sumRow adds a contiguous row with eight independent accumulators, which
// keeps the adder pipeline full.
func sumRow[T number, A float64 | int64](x []T) A {
	var s0, s1, s2, s3, s4, s5, s6, s7 A
	i := 0
	for ; i+8 <= len(x); i += 8 {
		v := x[i : i+8 : i+8]
		s0 += A(v[0])
		s1 += A(v[1])
		s2 += A(v[2])
		s3 += A(v[3])
		s4 += A(v[4])
		s5 += A(v[5])
		s6 += A(v[6])
		s7 += A(v[7])
	}
	for ; i < len(x); i++ {
		s0 += A(x[i])
	}
	return ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
}

func prodFamily[T number, A float64 | int64]() family[T, A] {
	return family[T, A]{
		init: 1,
		partial: func(acc []A, x []T, p plan, o0, o1, k0, k1 int) {
			eachBlock(acc, x, p, o0, o1, k0, k1,
				func(o int, xs []T) {
					s := acc[o]
					for _, v := range xs {
						s *= A(v)
					}
					acc[o] = s
				},
				func(_, _ int, xs []T, accs []A) {
					accs = accs[:len(xs)]
					for j, v := range xs {
						accs[j] *= A(v)
					}
				})
		},
		merge: func(dst, src []A) {
			for i, v := range src {
				dst[i] *= v
			}
		},
	}
}

// variance is var (or std) with the given correction: the sum of squared
// deviations from the mean divided by max(0, r - correction) as torch does
// (so one element gives NaN). Contiguous rows are read once: blocks small
// enough to stay in cache are done in two passes (their mean, then their
// squared deviations) and merged with Chan's formula, which keeps the
// accuracy of two passes over the whole row. Strided rows (inner > 1) take
// two passes over the input.
func variance[T number](x []T, p plan, correction int, std bool) []float64 {
	var dev []float64
	if p.inner == 1 {
		acc := runReduce(x, p, momentFamily[T]())
		dev = make([]float64, len(acc))
		for i, m := range acc {
			dev[i] = m.m2
		}
	} else {
		dev = squaredDeviations(x, p)
	}
	div := float64(max(0, p.r-correction))
	for i := range dev {
		dev[i] /= div
		if std {
			dev[i] = math.Sqrt(dev[i])
		}
	}
	return dev
}

// moments are a count, a mean and the sum of squared deviations from it.
type moments struct{ n, mean, m2 float64 }

// merge combines the moments of two disjoint sets (Chan et al.).
func (a moments) merge(b moments) moments {
	switch {
	case b.n == 0:
		return a
	case a.n == 0:
		return b
	}
	n := a.n + b.n
	d := b.mean - a.mean
	return moments{n, a.mean + d*b.n/n, a.m2 + b.m2 + d*d*a.n*b.n/n}
}

// momentBlock is the block of a row done in two passes: 8 KB of float32,
// in the L1 cache for the second pass.
const momentBlock = 2048

// momentFamily computes the moments of contiguous rows (inner = 1).
func momentFamily[T number]() family[T, moments] {
	f := family[T, moments]{
		partial: func(acc []moments, x []T, p plan, o0, o1, k0, k1 int) {
			for o := o0; o < o1; o++ {
				row := x[o*p.r+k0 : o*p.r+k1]
				m := acc[o]
				for lo := 0; lo < len(row); lo += momentBlock {
					b := row[lo:min(lo+momentBlock, len(row))]
					nb := float64(len(b))
					mean := sumRow[T, float64](b) / nb
					m = m.merge(moments{nb, mean, sqDevRow(b, mean)})
				}
				acc[o] = m
			}
		},
		merge: func(dst, src []moments) {
			for i, m := range src {
				dst[i] = dst[i].merge(m)
			}
		},
	}
	if rows, ok := any(momentRowsF32).(func([]moments, []T, plan, int, int, int, int)); ok {
		f.partial = rows
	}
	return f
}

// sqDevRow is the float64 sum of (x[i] - mean)².
func sqDevRow[T number](x []T, mean float64) float64 {
	var s0, s1 float64
	i := 0
	for ; i+2 <= len(x); i += 2 {
		d0, d1 := float64(x[i])-mean, float64(x[i+1])-mean
		s0 += d0 * d0
		s1 += d1 * d1
	}
	if i < len(x) {
		d := float64(x[i]) - mean
		s0 += d * d
	}
	return s0 + s1
}

// squaredDeviations is, for every output element, the sum of squared
// deviations from the mean, in two passes: the means, then the sums.
func squaredDeviations[T number](x []T, p plan) []float64 {
	mean := runReduce(x, p, sumFamily[T, float64]())
	for i := range mean {
		mean[i] /= float64(p.r)
	}
	return runReduce(x, p, family[T, float64]{
		partial: func(acc []float64, x []T, p plan, o0, o1, k0, k1 int) {
			eachBlock(acc, x, p, o0, o1, k0, k1,
				func(o int, xs []T) { acc[o] += sqDevRow(xs, mean[o]) },
				func(o, _ int, xs []T, accs []float64) {
					ms := mean[o*p.inner : (o+1)*p.inner]
					accs = accs[:len(xs)]
					for j, v := range xs {
						d := float64(v) - ms[j]
						accs[j] += d * d
					}
				})
		},
		merge: func(dst, src []float64) {
			for i, v := range src {
				dst[i] += v
			}
		},
	})
}

// maxFamily and minFamily use Go's max and min, which propagate NaN as
// torch does (once NaN, the result stays NaN) and compile without
// branches.
func maxFamily[T number]() family[T, T] {
	f := family[T, T]{
		init: minValue[T](),
		partial: func(acc []T, x []T, p plan, o0, o1, k0, k1 int) {
			eachBlock(acc, x, p, o0, o1, k0, k1,
				func(o int, xs []T) { acc[o] = max(acc[o], maxRow(xs)) },
				func(_, _ int, xs []T, accs []T) {
					accs = accs[:len(xs)]
					for j, v := range xs {
						accs[j] = max(accs[j], v)
					}
				})
		},
		merge: func(dst, src []T) {
			for i, v := range src {
				dst[i] = max(dst[i], v)
			}
		},
	}
	return withRows(f, any(extRowsF32(true)))
}

// withRows makes f take rows, when it is a kernel for T (the float32
// kernels over several rows at once), for reductions over the last
// dimension (inner == 1).
func withRows[T number](f family[T, T], rows any) family[T, T] {
	r, ok := rows.(func([]T, []T, plan, int, int, int, int))
	if !ok {
		return f
	}
	partial := f.partial
	f.partial = func(acc []T, x []T, p plan, o0, o1, k0, k1 int) {
		if p.inner == 1 {
			r(acc, x, p, o0, o1, k0, k1)
			return
		}
		partial(acc, x, p, o0, o1, k0, k1)
	}
	return f
}

// maxRow is the largest element of xs (the identity when empty), with four
// running maxima so that max's latency does not chain from one element to
// the next.
func maxRow[T number](xs []T) T {
	m0 := minValue[T]()
	m1, m2, m3 := m0, m0, m0
	i := 0
	for ; i+4 <= len(xs); i += 4 {
		v := xs[i : i+4 : i+4]
		m0, m1, m2, m3 = max(m0, v[0]), max(m1, v[1]), max(m2, v[2]), max(m3, v[3])
	}
	for ; i < len(xs); i++ {
		m0 = max(m0, xs[i])
	}
	return max(max(m0, m1), max(m2, m3))
}

// minRow is the smallest element of xs, as maxRow.
func minRow[T number](xs []T) T {
	m0 := maxValue[T]()
	m1, m2, m3 := m0, m0, m0
	i := 0
	for ; i+4 <= len(xs); i += 4 {
		v := xs[i : i+4 : i+4]
		m0, m1, m2, m3 = min(m0, v[0]), min(m1, v[1]), min(m2, v[2]), min(m3, v[3])
	}
	for ; i < len(xs); i++ {
		m0 = min(m0, xs[i])
	}
	return min(min(m0, m1), min(m2, m3))
}

func minFamily[T number]() family[T, T] {
	f := family[T, T]{
		init: maxValue[T](),
		partial: func(acc []T, x []T, p plan, o0, o1, k0, k1 int) {
			eachBlock(acc, x, p, o0, o1, k0, k1,
				func(o int, xs []T) { acc[o] = min(acc[o], minRow(xs)) },
				func(_, _ int, xs []T, accs []T) {
					accs = accs[:len(xs)]
					for j, v := range xs {
						accs[j] = min(accs[j], v)
					}
				})
		},
		merge: func(dst, src []T) {
			for i, v := range src {
				dst[i] = min(dst[i], v)
			}
		},
	}
	return withRows(f, any(extRowsF32(false)))
}

// minValue is the identity of max: -inf, or the type's smallest integer.
func minValue[T number]() T {
	var z T
	switch any(z).(type) {
	case float32, float64:
		return T(math.Inf(-1))
	case int64:
		return any(int64(math.MinInt64)).(T)
	}
	return 0
}

// maxValue is the identity of min.
func maxValue[T number]() T {
	var z T
	switch any(z).(type) {
	case float32, float64:
		return T(math.Inf(1))
	case int64:
		return any(int64(math.MaxInt64)).(T)
	}
	return any(uint8(math.MaxUint8)).(T)
}

// argAcc is an arg reduction's best value so far and its index along r
// (-1 before the first element).
type argAcc[T number] struct {
	v T
	i int64
}

// argBetter reports whether v at a later index replaces cur: strictly
// better, or the first NaN (torch treats NaN as the extreme).
func argBetter[T number](v T, cur argAcc[T], isMax bool) bool {
	switch {
	case cur.i < 0:
		return true
	case v != v:
		return cur.v == cur.v
	case isMax:
		return v > cur.v
	}
	return v < cur.v
}

func argFamily[T number](isMax bool) family[T, argAcc[T]] {
	f := family[T, argAcc[T]]{
		init: argAcc[T]{i: -1},
		partial: func(acc []argAcc[T], x []T, p plan, o0, o1, k0, k1 int) {
			eachBlock(acc, x, p, o0, o1, k0, k1,
				func(o int, xs []T) {
					if len(xs) == 0 {
						return
					}
					best, bi := argScan(xs, isMax)
					if e := (argAcc[T]{best, int64(k0 + bi)}); argBetter(e.v, acc[o], isMax) {
						acc[o] = e
					}
				},
				func(_, k int, xs []T, accs []argAcc[T]) {
					accs = accs[:len(xs)]
					for j, v := range xs {
						if argBetter(v, accs[j], isMax) {
							accs[j] = argAcc[T]{v, int64(k)}
						}
					}
				})
		},
		merge: func(dst, src []argAcc[T]) {
			for i, e := range src {
				if e.i >= 0 && argBetter(e.v, dst[i], isMax) {
					dst[i] = e
				}
			}
		},
	}
	if rows, ok := any(argRowsF32(isMax)).(func([]argAcc[T], []T, plan, int, int, int, int)); ok {
		partial := f.partial
		f.partial = func(acc []argAcc[T], x []T, p plan, o0, o1, k0, k1 int) {
			if p.inner == 1 {
				rows(acc, x, p, o0, o1, k0, k1)
				return
			}
			partial(acc, x, p, o0, o1, k0, k1)
		}
	}
	return f
}

// argScan is the value and index of the first largest (isMax) or smallest
// element of a nonempty row, or of its first NaN.
func argScan[T number](xs []T, isMax bool) (T, int) {
	best, bi := xs[0], 0
	if best != best {
		return best, 0
	}
	for i, v := range xs {
		if v != v {
			return v, i
		}
		if isMax && v > best || !isMax && v < best {
			best, bi = v, i
		}
	}
	return best, bi
}

// logicalFamily is any (or all): whether some (every) element is nonzero.
// NaN counts as nonzero. A row stops at the first deciding element.
func logicalFamily[T number](isAll bool) family[T, uint8] {
	hasZero := func(xs []T) bool { return slices.Contains(xs, 0) }
	hasNonzero := func(xs []T) bool { return slices.IndexFunc(xs, func(v T) bool { return v != 0 }) >= 0 }
	// float32 and byte rows: vectorised where the CPU allows.
	if f, ok := any(hasZeroF32).(func([]T) bool); ok {
		hasZero = f
	}
	if f, ok := any(hasNonzeroF32).(func([]T) bool); ok {
		hasNonzero = f
	}
	if f, ok := any(hasNonzeroU8).(func([]T) bool); ok {
		hasNonzero = f
	}
	if f, ok := any(func(xs []uint8) bool { return bytes.IndexByte(xs, 0) >= 0 }).(func([]T) bool); ok {
		hasZero = f
	}
	f := family[T, uint8]{
		partial: func(acc []uint8, x []T, p plan, o0, o1, k0, k1 int) {
			eachBlock(acc, x, p, o0, o1, k0, k1,
				func(o int, xs []T) {
					switch {
					case isAll && acc[o] == 1:
						if hasZero(xs) {
							acc[o] = 0
						}
					case !isAll && acc[o] == 0:
						if hasNonzero(xs) {
							acc[o] = 1
						}
					}
				},
				func(_, _ int, xs []T, accs []uint8) {
					accs = accs[:len(xs)]
					if isAll {
						for j, v := range xs {
							accs[j] &= b2u(v != 0)
						}
						return
					}
					for j, v := range xs {
						accs[j] |= b2u(v != 0)
					}
				})
		},
		merge: func(dst, src []uint8) {
			for i, v := range src {
				if isAll {
					dst[i] &= v
				} else {
					dst[i] |= v
				}
			}
		},
	}
	if isAll {
		f.init = 1
	}
	return f
}
