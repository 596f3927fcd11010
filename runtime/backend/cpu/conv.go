package cpu

import (
	"fmt"
	"math"

	"github.com/tref-lang/tref/runtime/backend/cpu/gemm"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

func init() {
	conv := convKernel("conv2d", ops.Conv2dLayout, convForward[float32], convForward[float64])
	Register(ops.Conv2d, viaFloat32Inputs(plainKernel(conv)))
	weightKernels[ops.Conv2d] = packedKernel(conv)
	Register(ops.MaxPool2d, maxPool2dKernel)
}

// colBudget bounds the im2col scratch of one goroutine (elements) unless a
// single kernel tap count needs more: the output positions of an image are
// lowered a chunk of at least colMin at a time, so the lowered block stays
// in cache while the GEMM reads it.
const (
	colBudget = 1 << 17
	colMin    = 256
)

// convKernel is the kernel of a convolution-like op over x, a weight and
// an optional bias: layout checks the shapes and lays out the result, run
// computes it in float32 or float64 with the matching GEMM, and in
// float32 with the weight's packed matrices kept (packedMM) when the
// weight is a constant (w.id nonzero).
func convKernel[A any](name string, layout func(x, w tensor.Shape, bias *tensor.Shape, a A) (ops.ConvDims, error),
	run32 func(d ops.ConvDims, a A, x, w, bias, out []float32, mm mmFunc[float32], pm packedMM[float32]),
	run64 func(d ops.ConvDims, a A, x, w, bias, out []float64, mm mmFunc[float64], pm packedMM[float64])) func(out *tensor.Dense, ins []*tensor.Dense, attrs any, w weight) error {
	return func(out *tensor.Dense, ins []*tensor.Dense, attrs any, w weight) error {
		a, err := ops.AttrsAs[A](name, attrs)
		if err != nil {
			return err
		}
		if len(ins) != 2 && len(ins) != 3 {
			return fmt.Errorf("%s takes x, a weight and an optional bias, got %d tensors", name, len(ins))
		}
		var bias *tensor.Shape
		if len(ins) == 3 {
			bias = &ins[2].Shape
		}
		d, err := layout(ins[0].Shape, ins[1].Shape, bias, a)
		if err != nil {
			return err
		}
		switch out.DType {
		case tensor.Float32:
			var b []float32
			if len(ins) == 3 {
				b = matF32(ins[2])
			}
			run32(d, a, matF32(ins[0]), matF32(ins[1]), b, out.F32(), sgemmMM, packedFor(w))
		case tensor.Float64:
			var b []float64
			if len(ins) == 3 {
				b = matF64(ins[2])
			}
			run64(d, a, matF64(ins[0]), matF64(ins[1]), b, out.F64(), gemm.GemmWorkers[float64], nil)
		default:
			return fmt.Errorf("%s: no kernel for %s", name, out.DType)
		}
		return nil
	}
}

// plainKernel is a convKernel without a constant weight.
func plainKernel(k func(out *tensor.Dense, ins []*tensor.Dense, attrs any, w weight) error) Kernel {
	return func(out *tensor.Dense, ins []*tensor.Dense, attrs any) error { return k(out, ins, attrs, weight{}) }
}

// packedKernel is a convKernel as a WeightKernel: float32 results only
// (the registered kernel runs the others).
func packedKernel(k func(out *tensor.Dense, ins []*tensor.Dense, attrs any, w weight) error) WeightKernel {
	return func(out *tensor.Dense, ins []*tensor.Dense, attrs any, w weight) (bool, error) {
		if out.DType != tensor.Float32 {
			return false, nil
		}
		return true, k(out, ins, attrs, w)
	}
}

// convForward lowers each image (a chunk of output positions at a time)
// with im2col and multiplies by the weight matrix of each group, writing
// straight into the NCHW result. Images and chunks are spread over the
// cores; a 1×1, stride 1, unpadded convolution reads x in place.
func convForward[T float32 | float64](d ops.ConvDims, a ops.Conv2dAttrs, x, w, bias, out []T, mm mmFunc[T], pm packedMM[T]) {
	g := a.Groups
	cg, og := d.C/g, d.OutC/g
	kdim := cg * d.KH * d.KW
	npos := d.OH * d.OW
	if d.Batch == 0 || d.OutC == 0 || npos == 0 {
		return
	}
	if isDepthwise(d, a) {
		convDepthwise(d, a, x, w, bias, out)
		return
	}
	if useShifted(d, a) {
		convShifted(d, a, x, w, bias, out, mm, pm)
		return
	}
	pointwise := d.KH == 1 && d.KW == 1 && a.Stride == [2]int{1, 1} && a.PadLo == [2]int{} && a.PadHi == [2]int{}
	chunk := npos
	if !pointwise && kdim*npos > colBudget {
		// At least colMin positions, so that packing the weights for each
		// chunk stays small next to the product.
		chunk = min(npos, max(colMin, colBudget/kdim/16*16))
	}
	chunks := (npos + chunk - 1) / chunk
	tasks := d.Batch * chunks
	workers := linalgWorkers()
	inner := 1
	if tasks < workers {
		inner, workers = workers, 1
	}
	colSize := kdim * chunk
	if pointwise {
		colSize = 0
	}
	newCol, release := workerScratch[T](min(workers, tasks), colSize)
	defer release()
	forTasks(workers, tasks, newCol, func(t int, col []T) {
		n, j0 := t/chunks, (t%chunks)*chunk
		cols := min(chunk, npos-j0)
		img := x[n*d.C*d.H*d.W : (n+1)*d.C*d.H*d.W]
		for gi := range g {
			dst := out[(n*d.OutC+gi*og)*npos+j0:]
			accumulate := bias != nil
			if accumulate {
				for o := range og {
					fill(dst[o*npos:o*npos+cols], bias[gi*og+o])
				}
			}
			wg := w[gi*og*kdim : (gi+1)*og*kdim]
			b, ldb := col, cols
			if pointwise {
				b, ldb = img[gi*cg*npos+j0:], npos
			} else {
				im2col(col[:kdim*cols], img[gi*cg*d.H*d.W:(gi+1)*cg*d.H*d.W], d, a, cg, j0, cols)
			}
			if pm == nil || !pm(inner, groupPart(gi), og, cols, kdim, wg, kdim, nil, b, ldb, accumulate, dst, npos) {
				mm(inner, false, false, og, cols, kdim, wg, kdim, b, ldb, accumulate, dst, npos)
			}
		}
	})
}

// im2col writes the [cg·kh·kw, cols] lowering of output positions
// [j0, j0+cols) of one group's channels (img, cg planes of H×W): row
// (c, ki, kj) holds, for each position, the input pixel that kernel tap
// multiplies, or 0 in the padding.
func im2col[T float32 | float64](col, img []T, d ops.ConvDims, a ops.Conv2dAttrs, cg, j0, cols int) {
	sh, sw := a.Stride[0], a.Stride[1]
	ph, pw := a.PadLo[0], a.PadLo[1]
	dh, dw := a.Dilation[0], a.Dilation[1]
	r := 0
	for c := range cg {
		plane := img[c*d.H*d.W : (c+1)*d.H*d.W]
		for ki := range d.KH {
			for kj := range d.KW {
				dst := col[r*cols : (r+1)*cols]
				r++
				for j := 0; j < cols; {
					oh, ow0 := (j0+j)/d.OW, (j0+j)%d.OW
					n := min(d.OW-ow0, cols-j)
					seg := dst[j : j+n]
					j += n
					ih := oh*sh - ph + ki*dh
					if ih < 0 || ih >= d.H {
						clear(seg)
						continue
					}
					row := plane[ih*d.W : (ih+1)*d.W]
					iw0 := ow0*sw - pw + kj*dw
					if sw == 1 {
						// A contiguous run of the input row, zero outside it.
						// With padding wider than the input a whole run
						// can fall outside the row (lo == hi).
						lo := min(n, max(0, -iw0))
						hi := max(lo, min(n, d.W-iw0))
						clear(seg[:lo])
						if hi > lo {
							copy(seg[lo:hi], row[iw0+lo:iw0+hi])
						}
						clear(seg[hi:])
						continue
					}
					// Strided: the columns q with 0 <= iw0 + q·sw < W,
					// zero outside them.
					lo := 0
					if iw0 < 0 {
						lo = min(n, (-iw0+sw-1)/sw)
					}
					hi := max(lo, min(n, (d.W-iw0+sw-1)/sw))
					clear(seg[:lo])
					for q, iw := lo, iw0+lo*sw; q < hi; q, iw = q+1, iw+sw {
						seg[q] = row[iw]
					}
					clear(seg[hi:])
				}
			}
		}
	}
}

func maxPool2dKernel(out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
	a, err := ops.AttrsAs[ops.Pool2dAttrs]("max_pool2d", attrs)
	if err != nil {
		return err
	}
	if len(ins) != 1 {
		return fmt.Errorf("max_pool2d takes 1 tensor, got %d", len(ins))
	}
	d, err := ops.MaxPool2dLayout(ins[0].Shape, a)
	if err != nil {
		return err
	}
	switch out.DType {
	case tensor.Float32:
		maxPool(d, a, ins[0].F32(), out.F32())
	case tensor.Float64:
		maxPool(d, a, ins[0].F64(), out.F64())
	case tensor.Int64:
		maxPool(d, a, ins[0].I64(), out.I64())
	case tensor.Uint8:
		maxPool(d, a, ins[0].U8(), out.U8())
	default:
		return fmt.Errorf("max_pool2d: no kernel for %s", out.DType)
	}
	return nil
}

// maxPool takes the maximum of each window, planes spread over the cores.
// NaN wins, as in PyTorch; padding counts as -inf.
func maxPool[T float32 | float64 | int64 | uint8](d ops.ConvDims, a ops.Pool2dAttrs, x, out []T) {
	planes := d.Batch * d.C
	in, on := d.H*d.W, d.OH*d.OW
	if planes == 0 || on == 0 {
		return
	}
	per := max(1, (1<<16)/max(1, in))
	tasks := (planes + per - 1) / per
	forTasks(linalgWorkers(), tasks, func() struct{} { return struct{}{} }, func(t int, _ struct{}) {
		for p := t * per; p < min(planes, (t+1)*per); p++ {
			maxPoolPlane(d, a, x[p*in:(p+1)*in], out[p*on:(p+1)*on])
		}
	})
}

// maxPoolPlane takes the window maxima of one plane a tap at a time: each
// output row starts at -inf and, for every tap inside the input, takes
// the maximum with the run of input pixels the tap covers (the output
// columns where the tap falls inside the row, computed once per tap).
func maxPoolPlane[T float32 | float64 | int64 | uint8](d ops.ConvDims, a ops.Pool2dAttrs, x, out []T) {
	low := lowest[T]()
	sw, pw, dw := a.Stride[1], a.Padding[1], a.Dilation[1]
	for oh := range d.OH {
		m := out[oh*d.OW : (oh+1)*d.OW]
		for j := range m {
			m[j] = low
		}
		h0 := oh*a.Stride[0] - a.Padding[0]
		for ki := range d.KH {
			ih := h0 + ki*a.Dilation[0]
			if ih < 0 || ih >= d.H {
				continue
			}
			row := x[ih*d.W : (ih+1)*d.W]
			for kj := range d.KW {
				// Columns ow with 0 <= ow·sw - pw + kj·dw < W.
				off := kj*dw - pw
				lo := 0
				if off < 0 {
					lo = (-off + sw - 1) / sw
				}
				hi := min(d.OW, (d.W-off+sw-1)/sw)
				// The builtin max is NaN when either is, as PyTorch's pool.
				for ow := lo; ow < hi; ow++ {
					m[ow] = max(m[ow], row[ow*sw+off])
				}
			}
		}
	}
}

// lowest is the identity of max: -inf for floats, the minimum for integers.
func lowest[T float32 | float64 | int64 | uint8]() T {
	var z T
	switch p := any(&z).(type) {
	case *float32:
		*p = float32(math.Inf(-1))
	case *float64:
		*p = math.Inf(-1)
	case *int64:
		*p = math.MinInt64
	}
	return z
}
