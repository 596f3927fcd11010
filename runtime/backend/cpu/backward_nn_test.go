package cpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// refSoftmaxBackward is softmax's (log_softmax's) gradient over dim, in
// float64, one line at a time: o·(g - Σ g·o), or g - exp(o)·Σ g.
func refSoftmaxBackward(o, g *tensor.Dense, dim int, log bool) []float64 {
	s := o.Shape
	out := make([]float64, o.Numel())
	for i := range out {
		idx := unravel(i, s)
		if idx[dim] != 0 {
			continue
		}
		line := make([]int, s[dim])
		sum := 0.0
		for k := range line {
			idx[dim] = k
			line[k] = ravel(idx, s)
			if log {
				sum += g.At(line[k])
			} else {
				sum += g.At(line[k]) * o.At(line[k])
			}
		}
		for _, j := range line {
			if log {
				out[j] = g.At(j) - math.Exp(o.At(j))*sum
			} else {
				out[j] = o.At(j) * (g.At(j) - sum)
			}
		}
	}
	return out
}

// TestSoftmaxBackwardMatchesReference: rows and strided lines, large
// enough to be split over the cores.
func TestSoftmaxBackwardMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	for _, s := range []tensor.Shape{{7}, {4, 3, 6}, {64, 2048}} {
		for dim := range s {
			for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64} {
				for _, log := range []bool{false, true} {
					fwd, op := "softmax", "softmax_backward"
					if log {
						fwd, op = "log_softmax", "log_softmax_backward"
					}
					o := execShapeOp(t, fwd, ops.SoftmaxAttrs{Dim: dim}, randFloats(r, dt, 4, s...))
					g := randFloats(r, dt, 1, s...)
					got := execShapeOp(t, op, ops.SoftmaxAttrs{Dim: dim - len(s)}, o, g)
					rel := 1e-5
					if dt == tensor.Float64 {
						rel = 1e-12
					}
					closeTo(t, op+s.String(), got, refSoftmaxBackward(o, g, dim, log), rel)
				}
			}
		}
	}
}

// refNormBackward is norm_backward and norm_backward_weight in float64:
// r·(ĝ - mean ĝ - x̂·mean(ĝ·x̂)) per row (no mean for RMS), and Σ g·x̂.
func refNormBackward(x, w, g *tensor.Dense, eps float64, rms bool) (gx, gw []float64) {
	d := x.Shape[len(x.Shape)-1]
	gx, gw = make([]float64, x.Numel()), make([]float64, d)
	for row := 0; row < x.Numel()/d; row++ {
		at := func(t *tensor.Dense, i int) float64 { return t.At(row*d + i) }
		mean, sq := 0.0, 0.0
		for i := range d {
			mean += at(x, i) / float64(d)
		}
		if rms {
			mean = 0
		}
		for i := range d {
			sq += (at(x, i) - mean) * (at(x, i) - mean)
		}
		r := 1 / math.Sqrt(sq/float64(d)+eps)
		gh, xh := make([]float64, d), make([]float64, d)
		mg, mgx := 0.0, 0.0
		for i := range d {
			gh[i], xh[i] = at(g, i), (at(x, i)-mean)*r
			if w != nil {
				gh[i] *= w.At(i)
			}
			mg += gh[i] / float64(d)
			mgx += gh[i] * xh[i] / float64(d)
			gw[i] += at(g, i) * xh[i]
		}
		if rms {
			mg = 0
		}
		for i := range d {
			gx[row*d+i] = r * (gh[i] - mg - xh[i]*mgx)
		}
	}
	return gx, gw
}

func TestNormBackwardMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 34))
	for _, s := range []tensor.Shape{{5}, {2, 3, 16}, {600, 128}} {
		d := s[len(s)-1]
		for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64} {
			x, g, w := randFloats(r, dt, 3, s...), randFloats(r, dt, 1, s...), randFloats(r, dt, 1, d)
			for i := range x.Numel() {
				x.Set(i, x.At(i)+2)
			}
			rel := 1e-5
			if dt == tensor.Float64 {
				rel = 1e-11
			}
			for _, rms := range []bool{false, true} {
				a := ops.NormBackwardAttrs{Eps: 1e-5, RMS: rms}
				gx, gw := refNormBackward(x, nil, g, a.Eps, rms)
				closeTo(t, "norm_backward"+s.String(), execShapeOp(t, "norm_backward", a, x, g), gx, rel)
				closeTo(t, "norm_backward_weight"+s.String(), execShapeOp(t, "norm_backward_weight", a, x, g), gw, rel*float64(x.Numel()/d))
				a.HasWeight = true
				gx, _ = refNormBackward(x, w, g, a.Eps, rms)
				closeTo(t, "norm_backward weighted"+s.String(), execShapeOp(t, "norm_backward", a, x, w, g), gx, rel)
			}
		}
	}
}

// TestAttentionWeightsMatchReference: the weights are attention's output
// for values that are the identity (naiveAttention), across query blocks,
// broadcast batches and the causal mask.
func TestAttentionWeightsMatchReference(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 36))
	for _, c := range []struct {
		q, k tensor.Shape
		a    ops.AttentionAttrs
	}{
		{tensor.Shape{3, 5}, tensor.Shape{4, 5}, ops.AttentionAttrs{}},
		{tensor.Shape{2, 3, 130, 16}, tensor.Shape{3, 100, 16}, ops.AttentionAttrs{Causal: true}},
		{tensor.Shape{2, 70, 8}, tensor.Shape{2, 70, 8}, ops.AttentionAttrs{Causal: true, Scale: 0.3, HasScale: true}},
	} {
		for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64} {
			q, k := randFloats(r, dt, 1, c.q...), randFloats(r, dt, 1, c.k...)
			s := c.k[len(c.k)-2]
			eye := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{s, s}, DType: dt})
			for i := range s {
				eye.Set(i*s+i, 1)
			}
			rel := 1e-5
			if dt == tensor.Float64 {
				rel = 1e-12
			}
			closeTo(t, "attention_weights"+c.q.String(), execShapeOp(t, "attention_weights", c.a, q, k), naiveAttention(q, k, eye, c.a), rel)
		}
	}
}
