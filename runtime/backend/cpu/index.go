package cpu

import (
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

func init() {
	Register(ops.Index, indexKernel)
	Register(ops.IndexAssign, indexAssignKernel)
}

// indexKernel copies x[...] (basic indexing and slicing) as one strided
// gather: an integer index moves the start, a slice scales the stride by
// its step.
func indexKernel(out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
	a, err := ops.AttrsAs[ops.IndexAttrs]("index", attrs)
	if err != nil {
		return err
	}
	in := ins[0]
	rs, err := ops.ResolveIndex(in.Shape, a.Items)
	if err != nil {
		return err
	}
	stridedGather(out.Buf, in.Buf, in.DType.Size(), indexView(in.Shape, rs))
	return nil
}

// indexAssignKernel writes v (broadcast) over the elements of x that the
// index reads, into out: a copy of x unless out is x's buffer (x died at
// the op), so that only the assigned elements are written then.
func indexAssignKernel(out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
	a, err := ops.AttrsAs[ops.IndexAttrs]("index_assign", attrs)
	if err != nil {
		return err
	}
	x, v := ins[0], ins[1]
	if len(out.Buf) == 0 {
		return nil
	}
	if &out.Buf[0] != &x.Buf[0] {
		copy(out.Buf, x.Buf)
	}
	rs, err := ops.ResolveIndex(out.Shape, a.Items)
	if err != nil {
		return err
	}
	view := indexView(out.Shape, rs)
	n := tensor.Shape(view.shape).Numel()
	if n == 0 {
		return nil
	}
	es := out.DType.Size()
	// v's strides over the view's shape: 0 along broadcast dimensions.
	vst := make([]int, len(view.shape))
	vs := v.Shape.Strides()
	for k, j := len(view.shape)-1, len(v.Shape)-1; k >= 0 && j >= 0; k, j = k-1, j-1 {
		if v.Shape[j] != 1 {
			vst[k] = vs[j]
		}
	}
	r := len(view.shape)
	if r > 0 && view.strides[r-1] == 1 && vst[r-1] == 1 {
		// Contiguous rows on both sides: one copy per row.
		run := view.shape[r-1] * es
		dst := newOdometer(view.shape[:r-1], view.strides[:r-1], view.off, 0)
		src := newOdometer(view.shape[:r-1], vst[:r-1], 0, 0)
		for range n / view.shape[r-1] {
			copy(out.Buf[dst.pos*es:dst.pos*es+run], v.Buf[src.pos*es:src.pos*es+run])
			dst.next()
			src.next()
		}
		return nil
	}
	dst := newOdometer(view.shape, view.strides, view.off, 0)
	src := newOdometer(view.shape, vst, 0, 0)
	for range n {
		copy(out.Buf[dst.pos*es:(dst.pos+1)*es], v.Buf[src.pos*es:(src.pos+1)*es])
		dst.next()
		src.next()
	}
	return nil
}

// indexView is the strided view of a tensor of shape s that the resolved
// index rs reads.
func indexView(s tensor.Shape, rs []ops.IndexRange) stridedView {
	st := s.Strides()
	var v stridedView
	for k, r := range rs {
		v.off += r.Start * st[k]
		if r.Keep {
			v.shape = append(v.shape, r.Len)
			v.strides = append(v.strides, r.Step*st[k])
		}
	}
	return v
}
