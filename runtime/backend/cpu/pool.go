package cpu

import (
	"fmt"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Average pooling: avg_pool2d and adaptive_avg_pool2d, planes spread over
// the cores, sums in float64 for float64 data and float32 otherwise (as
// torch's cpu kernels accumulate in the data's type).

func init() {
	Register(ops.AvgPool2d, viaFloat32Inputs(poolKernel("avg_pool2d", ops.AvgPool2dLayout, avgPool[float32], avgPool[float64])))
	Register(ops.AdaptiveAvgPool2d, viaFloat32Inputs(poolKernel("adaptive_avg_pool2d", ops.AdaptiveAvgPool2dLayout, adaptiveAvgPool[float32], adaptiveAvgPool[float64])))
}

// viaFloat32Inputs runs k in float32 when the result is float16 or
// bfloat16: the inputs of half types are converted first and the result
// rounded back, as torch's cpu kernels compute halves.
func viaFloat32Inputs(k Kernel) Kernel {
	return func(out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
		if !isHalf(out.DType) {
			return k(out, ins, attrs)
		}
		wide := make([]*tensor.Dense, len(ins))
		for i, in := range ins {
			wide[i] = in
			if isHalf(in.DType) {
				wide[i] = castTo(in, tensor.Float32)
			}
		}
		return viaFloat32(out, func(tmp *tensor.Dense) error { return k(tmp, wide, attrs) })
	}
}

// forPlanes runs f on every plane p in [0, planes), spread over the cores
// in tasks of about 64K input elements.
func forPlanes(planes, planeSize int, f func(p int)) {
	if planes == 0 {
		return
	}
	per := max(1, (1<<16)/max(1, planeSize))
	tasks := (planes + per - 1) / per
	forTasks(linalgWorkers(), tasks, func() struct{} { return struct{}{} }, func(t int, _ struct{}) {
		for p := t * per; p < min(planes, (t+1)*per); p++ {
			f(p)
		}
	})
}

// poolKernel is the kernel of an averaging pool: layout checks the input
// and lays out the result, run computes it in float32 or float64.
func poolKernel[A any](name string, layout func(x tensor.Shape, a A) (ops.ConvDims, error),
	run32 func(d ops.ConvDims, a A, x, out []float32), run64 func(d ops.ConvDims, a A, x, out []float64)) Kernel {
	return func(out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
		a, err := ops.AttrsAs[A](name, attrs)
		if err != nil {
			return err
		}
		if err := checkInputs(name, ins, 1); err != nil {
			return err
		}
		d, err := layout(ins[0].Shape, a)
		if err != nil {
			return err
		}
		switch out.DType {
		case tensor.Float32:
			run32(d, a, castTo(ins[0], tensor.Float32).F32(), out.F32())
		case tensor.Float64:
			run64(d, a, castTo(ins[0], tensor.Float64).F64(), out.F64())
		default:
			return fmt.Errorf("%s: no kernel for %s", name, out.DType)
		}
		return nil
	}
}

func avgPool[T float32 | float64](d ops.ConvDims, a ops.AvgPool2dAttrs, x, out []T) {
	poolPlanes(d, x, out, func(plane, o []T) {
		for oh := range d.OH {
			h0 := oh*a.Stride[0] - a.Padding[0]
			h1 := min(h0+d.KH, d.H+a.Padding[0])
			for ow := range d.OW {
				w0 := ow*a.Stride[1] - a.Padding[1]
				w1 := min(w0+d.KW, d.W+a.Padding[1])
				size := (h1 - h0) * (w1 - w0)
				hs, ws, he, we := max(h0, 0), max(w0, 0), min(h1, d.H), min(w1, d.W)
				if hs >= he || ws >= we {
					o[oh*d.OW+ow] = 0
					continue
				}
				sum := windowSum(plane, d.W, hs, he, ws, we)
				div := size
				switch {
				case a.DivisorOverride != 0:
					div = a.DivisorOverride
				case !a.CountIncludePad:
					div = (he - hs) * (we - ws)
				}
				o[oh*d.OW+ow] = sum / T(div)
			}
		}
	})
}

func adaptiveAvgPool[T float32 | float64](d ops.ConvDims, _ ops.AdaptivePool2dAttrs, x, out []T) {
	poolPlanes(d, x, out, func(plane, o []T) {
		for oh := range d.OH {
			hs, he := ops.AdaptiveRange(oh, d.OH, d.H)
			for ow := range d.OW {
				ws, we := ops.AdaptiveRange(ow, d.OW, d.W)
				sum := windowSum(plane, d.W, hs, he, ws, we)
				o[oh*d.OW+ow] = sum / T((he-hs)*(we-ws))
			}
		}
	})
}

// poolPlanes runs f on each input plane and its output plane, spread
// over the cores.
func poolPlanes[T float32 | float64](d ops.ConvDims, x, out []T, f func(plane, o []T)) {
	in, on := d.H*d.W, d.OH*d.OW
	if on == 0 {
		return
	}
	forPlanes(d.Batch*d.C, in, func(p int) { f(x[p*in:(p+1)*in], out[p*on:(p+1)*on]) })
}

// windowSum adds rows [hs, he) and columns [ws, we) of a plane w wide.
func windowSum[T float32 | float64](plane []T, w, hs, he, ws, we int) T {
	var sum T
	for ih := hs; ih < he; ih++ {
		for _, v := range plane[ih*w+ws : ih*w+we] {
			sum += v
		}
	}
	return sum
}
