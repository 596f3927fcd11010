package cpu

import (
	"fmt"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Kernels of gather, scatter, scatter_add, index_select and one_hot
// (runtime/ops/gather.go). Elements are moved by width (1, 2, 4 or 8
// bytes), so one generic loop serves every dtype; only scatter_add does
// arithmetic. Indices are checked as they are read.

func init() {
	Register(ops.Gather, gatherKernel)
	Register(ops.Scatter, scatterKernel("scatter"))
	Register(ops.ScatterAdd, scatterKernel("scatter_add"))
	Register(ops.IndexSelect, indexSelectKernel)
	Register(ops.OneHot, oneHotKernel)
}

// axisWalk walks the positions of an index tensor of shape idx along dim,
// giving each position's offset in a tensor of shape target (the input or
// src) without dim's term: position p = (o*n + k)*inner + j lies at
// outerOff(o) + innerOff[j] there, plus the index along dim times
// dimStride.
type axisWalk struct {
	outer, n, inner int
	innerOff        []int
	outerShape      []int
	outerStride     []int
	dimStride       int
}

// asRank1 reads a 0-d shape as [1] (gather and scatter treat 0-d tensors
// as 1-d).
func asRank1(s tensor.Shape) tensor.Shape {
	if len(s) == 0 {
		return tensor.Shape{1}
	}
	return s
}

func newAxisWalk(idx, target tensor.Shape, dim int) *axisWalk {
	idx, target = asRank1(idx), asRank1(target)
	st := target.Strides()
	w := &axisWalk{outer: idx[:dim].Numel(), n: idx[dim], inner: idx[dim+1:].Numel(),
		outerShape: idx[:dim], outerStride: st[:dim], dimStride: st[dim]}
	w.innerOff = make([]int, w.inner)
	in, ist := idx[dim+1:], st[dim+1:]
	for j := range w.innerOff {
		off, r := 0, j
		for d := len(in) - 1; d >= 0; d-- {
			off += r % in[d] * ist[d]
			r /= in[d]
		}
		w.innerOff[j] = off
	}
	return w
}

func (w *axisWalk) outerOff(o int) int {
	off := 0
	for d := len(w.outerShape) - 1; d >= 0; d-- {
		off += o % w.outerShape[d] * w.outerStride[d]
		o /= w.outerShape[d]
	}
	return off
}

func indexError(v int64, dim, size int) error {
	return fmt.Errorf("index %d is out of bounds for dimension %d with size %d", v, dim, size)
}

// byWidth calls f with out's and ins' buffers viewed as elements of their
// width: 1, 2, 4 or 8 bytes.
func byWidth(dt tensor.DType, f8 func() error, f16 func() error, f32 func() error, f64 func() error) error {
	switch dt.Size() {
	case 1:
		return f8()
	case 2:
		return f16()
	case 4:
		return f32()
	case 8:
		return f64()
	}
	return fmt.Errorf("no cpu kernel for %v", dt)
}

func gatherKernel(out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
	if err := checkInputs("gather", ins, 2); err != nil {
		return err
	}
	x, idx := ins[0], ins[1]
	a, err := ops.AttrsAs[ops.DimAttrs]("gather", attrs)
	if err != nil {
		return err
	}
	dim, err := tensor.NormDim(a.Dim, max(len(x.Shape), 1))
	if err != nil {
		return err
	}
	if out.Numel() == 0 {
		return nil
	}
	w := newAxisWalk(idx.Shape, x.Shape, dim)
	size := asRank1(x.Shape)[dim]
	return byWidth(x.DType,
		func() error { return gatherT(out.U8(), x.U8(), idx.I64(), w, dim, size) },
		func() error { return gatherT(out.U16(), x.U16(), idx.I64(), w, dim, size) },
		func() error { return gatherT(out.F32(), x.F32(), idx.I64(), w, dim, size) },
		func() error { return gatherT(out.I64(), x.I64(), idx.I64(), w, dim, size) })
}

func gatherT[T any](o, x []T, idx []int64, w *axisWalk, dim, size int) error {
	return parallelFor(w.outer*w.n*w.inner, func(lo, hi int) error {
		for row := lo / w.inner; row*w.inner < hi; row++ {
			base := w.outerOff(row / w.n)
			p := row * w.inner
			for j, ioff := range w.innerOff {
				if p+j < lo || p+j >= hi {
					continue
				}
				v := idx[p+j]
				if v < 0 || v >= int64(size) {
					return indexError(v, dim, size)
				}
				o[p+j] = x[base+int(v)*w.dimStride+ioff]
			}
		}
		return nil
	})
}

func scatterKernel(name string) Kernel {
	return func(out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
		if err := checkInputs(name, ins, 3); err != nil {
			return err
		}
		x, idx, src := ins[0], ins[1], ins[2]
		a, err := ops.AttrsAs[ops.DimAttrs](name, attrs)
		if err != nil {
			return err
		}
		dim, w, err := beginScatter(out, x, idx, a.Dim)
		if w == nil {
			return err
		}
		var sw *axisWalk // nil: a 0-d src is one value
		if len(src.Shape) > 0 {
			sw = newAxisWalk(idx.Shape, src.Shape, dim)
		}
		size := asRank1(out.Shape)[dim]
		if name == "scatter" {
			return byWidth(out.DType,
				func() error { return scatterT(out.U8(), src.U8(), idx.I64(), w, sw, dim, size, set[uint8]) },
				func() error { return scatterT(out.U16(), src.U16(), idx.I64(), w, sw, dim, size, set[uint16]) },
				func() error { return scatterT(out.F32(), src.F32(), idx.I64(), w, sw, dim, size, set[float32]) },
				func() error { return scatterT(out.I64(), src.I64(), idx.I64(), w, sw, dim, size, set[int64]) })
		}
		switch out.DType {
		case tensor.Float32:
			return scatterT(out.F32(), src.F32(), idx.I64(), w, sw, dim, size, add[float32])
		case tensor.Float64:
			return scatterT(out.F64(), src.F64(), idx.I64(), w, sw, dim, size, add[float64])
		case tensor.Int64:
			return scatterT(out.I64(), src.I64(), idx.I64(), w, sw, dim, size, add[int64])
		case tensor.Uint8:
			return scatterT(out.U8(), src.U8(), idx.I64(), w, sw, dim, size, add[uint8])
		case tensor.Float16, tensor.BFloat16:
			return viaFloat32(out, func(tmp *tensor.Dense) error {
				castInto(tmp, out)
				s := castTo(src, tensor.Float32)
				return scatterT(tmp.F32(), s.F32(), idx.I64(), w, sw, dim, size, add[float32])
			})
		}
		return fmt.Errorf("%s has no cpu kernel for %v", name, out.DType)
	}
}

// beginScatter copies x into out and walks out along dim (d normalised)
// at index's positions; the walk is nil when there is nothing to scatter
// or err is set.
func beginScatter(out, x, idx *tensor.Dense, d int) (int, *axisWalk, error) {
	dim, err := tensor.NormDim(d, max(len(x.Shape), 1))
	if err != nil {
		return 0, nil, err
	}
	copyInto(out, x)
	if idx.Numel() == 0 {
		return dim, nil, nil
	}
	return dim, newAxisWalk(idx.Shape, out.Shape, dim), nil
}

func set[T any](dst *T, v T)    { *dst = v }
func add[T number](dst *T, v T) { *dst += v }

// scatterT writes (or adds) src's elements at the positions idx names, in
// order, so the last of repeated indices wins.
func scatterT[T any](o, src []T, idx []int64, w, sw *axisWalk, dim, size int, put func(*T, T)) error {
	for row := range w.outer * w.n {
		o1, k := row/w.n, row%w.n
		base := w.outerOff(o1)
		sbase := 0
		if sw != nil {
			sbase = sw.outerOff(o1) + k*sw.dimStride
		}
		p := row * w.inner
		for j, ioff := range w.innerOff {
			v := idx[p+j]
			if v < 0 || v >= int64(size) {
				return indexError(v, dim, size)
			}
			s := 0
			if sw != nil {
				s = sbase + sw.innerOff[j]
			}
			put(&o[base+int(v)*w.dimStride+ioff], src[s])
		}
	}
	return nil
}

func indexSelectKernel(out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
	if err := checkInputs("index_select", ins, 2); err != nil {
		return err
	}
	x, idx := ins[0], ins[1]
	a, err := ops.AttrsAs[ops.DimAttrs]("index_select", attrs)
	if err != nil {
		return err
	}
	xs := asRank1(x.Shape)
	dim, err := tensor.NormDim(a.Dim, len(xs))
	if err != nil {
		return err
	}
	ids := idx.I64()
	for _, v := range ids {
		if v < 0 || v >= int64(xs[dim]) {
			return indexError(v, dim, xs[dim])
		}
	}
	if out.Numel() == 0 {
		return nil
	}
	esz := x.DType.Size()
	block := xs[dim+1:].Numel() * esz
	outer := xs[:dim].Numel()
	k := len(ids)
	// Selecting single 4- or 8-byte elements (along the last dimension,
	// as Resize's nearest upsampling does) moves them one by one rather
	// than a copy call each; parallelFor's chunks split at multiples of 64
	// bytes, so at whole elements.
	switch block {
	case 4:
		return parallelFor(outer*k*block, func(lo, hi int) error {
			selectElems(out.U32(), x.U32(), ids, xs[dim], lo/4, hi/4)
			return nil
		})
	case 8:
		return parallelFor(outer*k*block, func(lo, hi int) error {
			selectElems(out.U64(), x.U64(), ids, xs[dim], lo/8, hi/8)
			return nil
		})
	}
	return parallelFor(outer*k*block, func(lo, hi int) error {
		for r := lo / block; r*block < hi; r++ {
			o, j := r/k, r%k
			from := (o*xs[dim] + int(ids[j])) * block
			dst := out.Buf[r*block : (r+1)*block]
			src := x.Buf[from : from+block]
			// Clip the row to [lo, hi) so chunks write disjoint bytes.
			a, b := max(lo-r*block, 0), min(hi-r*block, block)
			copy(dst[a:b], src[a:b])
		}
		return nil
	})
}

// selectElems sets dst[o·k + j] = src[o·n + ids[j]] for the elements
// [lo, hi) of dst (k = len(ids)).
func selectElems[T uint32 | uint64](dst, src []T, ids []int64, n, lo, hi int) {
	k := len(ids)
	for r := lo; r < hi; {
		o, j := r/k, r%k
		row := src[o*n : (o+1)*n]
		end := min(hi, (o+1)*k)
		for _, v := range ids[j : j+end-r] {
			dst[r] = row[v]
			r++
		}
	}
}

func oneHotKernel(out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
	if err := checkInputs("one_hot", ins, 1); err != nil {
		return err
	}
	a, err := ops.AttrsAs[ops.OneHotAttrs]("one_hot", attrs)
	if err != nil {
		return err
	}
	o := out.I64()
	clear(o)
	c := a.NumClasses
	for i, v := range ins[0].I64() {
		switch {
		case v < 0:
			return fmt.Errorf("one_hot: class values must be non-negative, got %d", v)
		case v >= int64(c):
			return fmt.Errorf("one_hot: class values must be smaller than num_classes (%d), got %d", c, v)
		}
		o[i*c+int(v)] = 1
	}
	return nil
}
