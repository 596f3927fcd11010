package cpu

import (
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

func init() {
	Register(ops.Index, indexKernel)
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
