package cpu

import (
	"fmt"
	"math"

	"github.com/tref-lang/tref/runtime/backend/cpu/gemm"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Kernels of the backward-only ops (runtime/ops/backward.go and
// conv_grad.go), which gradient rules submit.

func init() {
	Register(ops.GeluBackward, geluBackwardKernel)
	Register(ops.IndexBackward, indexBackwardKernel)
	Register(ops.Conv2dBackwardInput, conv2dBackwardInputKernel)
	Register(ops.Conv2dBackwardWeight, conv2dBackwardWeightKernel)
	Register(ops.MaxPool2dBackward, maxPool2dBackwardKernel)
	Register(ops.AvgPool2dBackward, poolSpreadKernel)
	Register(ops.AdaptiveAvgPool2dBackward, poolSpreadKernel)
	Register(ops.CrossEntropyBackward, crossEntropyBackwardKernel)
}

// geluBackwardKernel is g·(Φ(x) + x·φ(x)), in float64 for every dtype.
func geluBackwardKernel(out *tensor.Dense, ins []*tensor.Dense, _ any) error {
	x, g := ins[0], ins[1]
	inv := 1 / math.Sqrt(2*math.Pi)
	for i := range out.Numel() {
		v := x.At(i)
		cdf := 0.5 * math.Erfc(-v/math.Sqrt2)
		out.Set(i, g.At(i)*(cdf+v*inv*math.Exp(-0.5*v*v)))
	}
	return nil
}

// indexBackwardKernel writes g into zeros at the positions the index read.
func indexBackwardKernel(out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
	a, err := ops.AttrsAs[ops.IndexBackwardAttrs]("index_backward", attrs)
	if err != nil {
		return err
	}
	rs, err := ops.ResolveIndex(out.Shape, a.Items)
	if err != nil {
		return err
	}
	clear(out.Buf)
	g := ins[0]
	n, es := g.Numel(), g.DType.Size()
	if n == 0 {
		return nil
	}
	v := indexView(out.Shape, rs)
	it := newOdometer(v.shape, v.strides, v.off, 0)
	for i := range n {
		copy(out.Buf[it.pos*es:(it.pos+1)*es], g.Buf[i*es:(i+1)*es])
		it.next()
	}
	return nil
}

// conv2dBackwardInputKernel computes the input's cotangent from g and w.
func conv2dBackwardInputKernel(out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
	return convBackward("conv2d_backward_input", false, out, ins, attrs)
}

// conv2dBackwardWeightKernel computes the weight's cotangent from x and g.
func conv2dBackwardWeightKernel(out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
	return convBackward("conv2d_backward_weight", true, out, ins, attrs)
}

// convBackward runs a conv2d backward kernel: the weight's cotangent
// (ins x and g) or the input's (ins g and w); the attributes give the
// result's shape.
func convBackward(op string, weight bool, out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
	a, err := ops.AttrsAs[ops.Conv2dBackwardAttrs](op, attrs)
	if err != nil {
		return err
	}
	x, w := a.Shape, ins[1].Shape
	if weight {
		x, w = ins[0].Shape, a.Shape
	}
	d, err := ops.Conv2dLayout(x, w, nil, a.Conv)
	if err != nil {
		return err
	}
	switch out.DType {
	case tensor.Float32:
		convBack(weight, d, a.Conv, ins[0].F32(), ins[1].F32(), out.F32(), sgemmMM)
	case tensor.Float64:
		convBack(weight, d, a.Conv, ins[0].F64(), ins[1].F64(), out.F64(), gemm.GemmWorkers[float64])
	default:
		return fmt.Errorf("%s: no kernel for %s", op, out.DType)
	}
	return nil
}

// convBack works image by image and group by group over the im2col
// lowering col of the input: the weight's cotangent (p = x, q = g) sums
// g·colᵀ; the input's (p = g, q = w) is col2im(wᵀ·g).
func convBack[T float32 | float64](weight bool, d ops.ConvDims, a ops.Conv2dAttrs, p, q, out []T, mm mmFunc[T]) {
	clear(out)
	groups := a.Groups
	cg, og := d.C/groups, d.OutC/groups
	kdim, npos := cg*d.KH*d.KW, d.OH*d.OW
	if d.Batch == 0 || npos == 0 || kdim == 0 {
		return
	}
	col := make([]T, kdim*npos)
	plane := d.H * d.W
	for n := range d.Batch {
		for gi := range groups {
			img := (n*d.C + gi*cg) * plane
			if weight {
				g := q[(n*d.OutC+gi*og)*npos:]
				im2col(col, p[img:img+cg*plane], d, a, cg, 0, npos)
				mm(linalgWorkers(), false, true, og, kdim, npos, g, npos, col, npos, true, out[gi*og*kdim:], kdim)
				continue
			}
			g, w := p[(n*d.OutC+gi*og)*npos:], q[gi*og*kdim:(gi+1)*og*kdim]
			mm(linalgWorkers(), true, false, kdim, npos, og, w, kdim, g, npos, false, col, npos)
			im2colAdjoint(col, out[img:img+cg*plane], d, a, cg)
		}
	}
}

// im2colAdjoint is im2col's adjoint over all output positions: it adds each
// lowered value onto the input pixel it came from.
func im2colAdjoint[T float32 | float64](col, img []T, d ops.ConvDims, a ops.Conv2dAttrs, cg int) {
	npos := d.OH * d.OW
	r := 0
	for c := range cg {
		plane := img[c*d.H*d.W : (c+1)*d.H*d.W]
		for ki := range d.KH {
			for kj := range d.KW {
				src := col[r*npos : (r+1)*npos]
				r++
				for oh := range d.OH {
					ih := oh*a.Stride[0] - a.PadLo[0] + ki*a.Dilation[0]
					if ih < 0 || ih >= d.H {
						continue
					}
					row := plane[ih*d.W : (ih+1)*d.W]
					for ow := range d.OW {
						iw := ow*a.Stride[1] - a.PadLo[1] + kj*a.Dilation[1]
						if iw >= 0 && iw < d.W {
							row[iw] += src[oh*d.OW+ow]
						}
					}
				}
			}
		}
	}
}

// maxPool2dBackwardKernel adds each window's cotangent at the window's
// maximum, found as the forward finds it (the first one; NaN wins).
func maxPool2dBackwardKernel(out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
	a, err := ops.AttrsAs[ops.Pool2dAttrs]("max_pool2d_backward", attrs)
	if err != nil {
		return err
	}
	d, err := ops.MaxPool2dLayout(ins[0].Shape, a)
	if err != nil {
		return err
	}
	switch out.DType {
	case tensor.Float32:
		poolBack(d, a, ins[0].F32(), ins[1].F32(), out.F32())
	case tensor.Float64:
		poolBack(d, a, ins[0].F64(), ins[1].F64(), out.F64())
	default:
		return fmt.Errorf("max_pool2d_backward: no kernel for %s", out.DType)
	}
	return nil
}

func poolBack[T float32 | float64](d ops.ConvDims, a ops.Pool2dAttrs, x, g, gx []T) {
	clear(gx)
	in, on := d.H*d.W, d.OH*d.OW
	for p := range d.Batch * d.C {
		xp, gp, op := x[p*in:(p+1)*in], g[p*on:(p+1)*on], gx[p*in:(p+1)*in]
		for oh := range d.OH {
			h0 := oh*a.Stride[0] - a.Padding[0]
			for ow := range d.OW {
				w0 := ow*a.Stride[1] - a.Padding[1]
				best := -1
				var m T
				for ki := range d.KH {
					ih := h0 + ki*a.Dilation[0]
					if ih < 0 || ih >= d.H {
						continue
					}
					for kj := range d.KW {
						iw := w0 + kj*a.Dilation[1]
						if iw < 0 || iw >= d.W {
							continue
						}
						v := xp[ih*d.W+iw]
						if best < 0 || v > m || v != v {
							m, best = v, ih*d.W+iw
						}
					}
				}
				if best >= 0 {
					op[best] += gp[oh*d.OW+ow]
				}
			}
		}
	}
}

// poolSpreadKernel is the averaging pools' backward: each window's
// cotangent divided by the forward's divisor, added over the window.
func poolSpreadKernel(out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
	a, err := ops.AttrsAs[ops.PoolBackwardAttrs]("pool backward", attrs)
	if err != nil {
		return err
	}
	d, err := ops.PoolSpreadLayout("pool backward", a)
	if err != nil {
		return err
	}
	switch out.DType {
	case tensor.Float32:
		poolSpread(d, a.Pool, ins[0].F32(), out.F32())
	case tensor.Float64:
		poolSpread(d, a.Pool, ins[0].F64(), out.F64())
	default:
		return fmt.Errorf("pool backward: no kernel for %s", out.DType)
	}
	return nil
}

func poolSpread[T float32 | float64](d ops.ConvDims, pool any, g, gx []T) {
	clear(gx)
	in, on := d.H*d.W, d.OH*d.OW
	for p := range d.Batch * d.C {
		gp, xp := g[p*on:(p+1)*on], gx[p*in:(p+1)*in]
		for oh := range d.OH {
			for ow := range d.OW {
				hs, he, ws, we, div := poolWindow(d, pool, oh, ow)
				if hs >= he || ws >= we {
					continue
				}
				v := gp[oh*d.OW+ow] / T(div)
				for ih := hs; ih < he; ih++ {
					row := xp[ih*d.W+ws : ih*d.W+we]
					for i := range row {
						row[i] += v
					}
				}
			}
		}
	}
}

// poolWindow is the input window of output (oh, ow), clipped to the input,
// and the divisor, as the forward kernels (pool.go) compute them.
func poolWindow(d ops.ConvDims, pool any, oh, ow int) (hs, he, ws, we, div int) {
	if _, ok := pool.(ops.AdaptivePool2dAttrs); ok {
		hs, he = ops.AdaptiveRange(oh, d.OH, d.H)
		ws, we = ops.AdaptiveRange(ow, d.OW, d.W)
		return hs, he, ws, we, (he - hs) * (we - ws)
	}
	a := pool.(ops.AvgPool2dAttrs)
	h0 := oh*a.Stride[0] - a.Padding[0]
	h1 := min(h0+d.KH, d.H+a.Padding[0])
	w0 := ow*a.Stride[1] - a.Padding[1]
	w1 := min(w0+d.KW, d.W+a.Padding[1])
	hs, ws, he, we = max(h0, 0), max(w0, 0), min(h1, d.H), min(w1, d.W)
	div = (h1 - h0) * (w1 - w0)
	switch {
	case a.DivisorOverride != 0:
		div = a.DivisorOverride
	case !a.CountIncludePad:
		div = (he - hs) * (we - ws)
	}
	return hs, he, ws, we, div
}

// crossEntropyBackwardKernel is (softmax(logits) - onehot(t))·g/count
// along the class dimension, zero at ignored targets; it computes in
// float64.
func crossEntropyBackwardKernel(out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
	a, err := ops.AttrsAs[ops.CrossEntropyAttrs]("cross_entropy_backward", attrs)
	if err != nil {
		return err
	}
	x := castDense(ins[0], tensor.Float64).F64()
	targets := nnIDs(ins[1])
	outer, classes, inner, _ := ops.CrossEntropyLayout(ins[0].Shape)
	count := 0
	err = eachTarget(targets, ins[1].Shape, outer, classes, inner, a.IgnoreIndex, func(int, int, int64) { count++ })
	if err != nil {
		return err
	}
	scale := ins[2].At(0) / float64(count) // no counted target: NaN, as the loss
	res := make([]float64, len(x))
	_ = eachTarget(targets, ins[1].Shape, outer, classes, inner, a.IgnoreIndex, func(o, j int, t int64) {
		plane, dst := x[o*classes*inner:], res[o*classes*inner:]
		m := math.Inf(-1)
		for c := range classes {
			m = max(m, plane[c*inner+j])
		}
		sum := 0.0
		for c := range classes {
			e := math.Exp(plane[c*inner+j] - m)
			dst[c*inner+j] = e
			sum += e
		}
		for c := range classes {
			dst[c*inner+j] /= sum
		}
		dst[int(t)*inner+j]--
		for c := range classes {
			dst[c*inner+j] *= scale
		}
	})
	for i, v := range res {
		out.Set(i, v)
	}
	return nil
}
