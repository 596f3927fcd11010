package cpu

import (
	"unsafe"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

func init() {
	Register(ops.Reshape, reshapeKernel)
	Register(ops.Permute, permuteKernel)
	Register(ops.Expand, expandKernel)
	Register(ops.Cat, catKernel)
	Register(ops.Stack, stackKernel)
}

// reshapeKernel copies: a reshape of a contiguous tensor keeps its bytes.
// Where the result took a dying input's buffer (ops.Def.KeepsBytes) there
// is nothing to do.
func reshapeKernel(out *tensor.Dense, ins []*tensor.Dense, _ any) error {
	if len(out.Buf) > 0 && unsafe.SliceData(out.Buf) == unsafe.SliceData(ins[0].Buf) {
		return nil
	}
	copy(out.Buf, ins[0].Buf)
	return nil
}

func permuteKernel(out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
	a, err := ops.AttrsAs[ops.PermuteAttrs]("permute", attrs)
	if err != nil {
		return err
	}
	in := ins[0]
	if len(in.Shape) == 0 {
		copy(out.Buf, in.Buf)
		return nil
	}
	p, err := ops.NormPerm(a.Dims, len(in.Shape))
	if err != nil {
		return err
	}
	st := in.Shape.Strides()
	v := stridedView{shape: make([]int, len(p)), strides: make([]int, len(p))}
	for i, d := range p {
		v.shape[i], v.strides[i] = in.Shape[d], st[d]
	}
	stridedGather(out.Buf, in.Buf, in.DType.Size(), v)
	return nil
}

// broadcastView reads in as if it had shape to (NumPy broadcasting: new
// leading dimensions and size-1 dimensions get stride 0).
func broadcastView(in tensor.Shape, to tensor.Shape) stridedView {
	st := in.Strides()
	lead := len(to) - len(in)
	v := stridedView{shape: to.Clone(), strides: make([]int, len(to))}
	for k := lead; k < len(to); k++ {
		if in[k-lead] != 1 {
			v.strides[k] = st[k-lead]
		}
	}
	return v
}

func expandKernel(out *tensor.Dense, ins []*tensor.Dense, _ any) error {
	in := ins[0]
	stridedGather(out.Buf, in.Buf, in.DType.Size(), broadcastView(in.Shape, out.Shape))
	return nil
}

func catKernel(out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
	a, err := ops.AttrsAs[ops.CatAttrs]("cat", attrs)
	if err != nil {
		return err
	}
	if out.Numel() == 0 {
		return nil
	}
	dim, err := tensor.NormDim(a.Dim, len(out.Shape))
	if err != nil {
		return err
	}
	outer := out.Shape[:dim].Numel()
	inner := out.Shape[dim+1:].Numel()
	chunks := make([]int, len(ins))
	for i, in := range ins {
		if !ops.CatSkips(in.Meta) {
			chunks[i] = in.Shape[dim] * inner
		}
	}
	joinChunks(out, ins, outer, chunks)
	return nil
}

func stackKernel(out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
	a, err := ops.AttrsAs[ops.CatAttrs]("stack", attrs)
	if err != nil {
		return err
	}
	dim, err := tensor.NormDim(a.Dim, len(out.Shape))
	if err != nil {
		return err
	}
	base := ins[0].Shape
	chunks := make([]int, len(ins))
	for i := range chunks {
		chunks[i] = base[dim:].Numel()
	}
	joinChunks(out, ins, base[:dim].Numel(), chunks)
	return nil
}

// joinChunks writes, for each of the outer rows, chunks[i] elements of each
// input i in turn: the layout of cat and stack.
func joinChunks(out *tensor.Dense, ins []*tensor.Dense, outer int, chunks []int) {
	es := out.DType.Size()
	row := 0
	for _, c := range chunks {
		row += c * es
	}
	srcs := make([][]byte, len(ins))
	for i, in := range ins {
		srcs[i] = castDense(in, out.DType).Buf
	}
	stridedParallel(outer, row, func(lo, hi int) {
		for o := lo; o < hi; o++ {
			at := o * row
			for i, c := range chunks {
				n := c * es
				copy(out.Buf[at:at+n], srcs[i][o*n:(o+1)*n])
				at += n
			}
		}
	})
}

// castDense returns d converted to dt (d itself when it already is dt).
func castDense(d *tensor.Dense, dt tensor.DType) *tensor.Dense {
	if d.DType == dt {
		return d
	}
	c := tensor.NewDense(tensor.Meta{Shape: d.Shape, DType: dt})
	switch {
	case d.DType == tensor.Int64 && dt == tensor.Float32:
		src, dst := d.I64(), c.F32()
		for i, v := range src {
			dst[i] = float32(v)
		}
	case d.DType == tensor.Float32 && dt == tensor.Float64:
		src, dst := d.F32(), c.F64()
		for i, v := range src {
			dst[i] = float64(v)
		}
	default:
		for i := range d.Numel() {
			c.Set(i, d.At(i))
		}
	}
	return c
}
