package cpu

import (
	"math/rand/v2"
	"testing"

	"github.com/tref-lang/tref/internal/cputime"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// naiveConvTranspose2d is the direct definition of a transposed
// convolution in float64: each input pixel scatters its products with the
// kernel into the output.
func naiveConvTranspose2d(x, w, bias *tensor.Dense, a ops.ConvTranspose2dAttrs) []float64 {
	var bs *tensor.Shape
	if bias != nil {
		bs = &bias.Shape
	}
	d, err := ops.ConvTranspose2dLayout(x.Shape, w.Shape, bs, a)
	if err != nil {
		panic(err)
	}
	cg, og := d.C/a.Groups, d.OutC/a.Groups
	out := make([]float64, d.Batch*d.OutC*d.OH*d.OW)
	for n := range d.Batch {
		for o := range d.OutC {
			if bias != nil {
				for p := range d.OH * d.OW {
					out[(n*d.OutC+o)*d.OH*d.OW+p] = bias.At(o)
				}
			}
		}
		for c := range d.C {
			g := c / cg
			for oo := range og {
				o := g*og + oo
				for ih := range d.H {
					for iw := range d.W {
						xv := x.At(((n*d.C+c)*d.H+ih)*d.W + iw)
						for ki := range d.KH {
							for kj := range d.KW {
								oh := ih*a.Stride[0] - a.Padding[0] + ki*a.Dilation[0]
								ow := iw*a.Stride[1] - a.Padding[1] + kj*a.Dilation[1]
								if oh < 0 || oh >= d.OH || ow < 0 || ow >= d.OW {
									continue
								}
								out[((n*d.OutC+o)*d.OH+oh)*d.OW+ow] += xv * w.At(((c*og+oo)*d.KH+ki)*d.KW+kj)
							}
						}
					}
				}
			}
		}
	}
	return out
}

func TestConvTranspose2dAgainstDirectDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 6))
	one := [2]int{1, 1}
	for _, tc := range []struct {
		name string
		x, w []int
		bias bool
		a    ops.ConvTranspose2dAttrs
	}{
		{"upsample-k2-s2", []int{1, 6, 5, 7}, []int{6, 4, 2, 2}, true, ops.ConvTranspose2dAttrs{Stride: [2]int{2, 2}, Dilation: one, Groups: 1}},
		{"padded-strided", []int{2, 3, 6, 5}, []int{3, 2, 3, 3}, false, ops.ConvTranspose2dAttrs{Stride: [2]int{2, 3}, Padding: [2]int{1, 2}, OutputPadding: [2]int{1, 0}, Dilation: one, Groups: 1}},
		{"dilated-groups", []int{1, 4, 4, 6}, []int{4, 3, 2, 3}, true, ops.ConvTranspose2dAttrs{Stride: one, Padding: [2]int{0, 1}, Dilation: [2]int{2, 2}, Groups: 2}},
		// 90 rows × 1600 positions exceeds colBudget: lowered in chunks
		// that start inside an input row.
		{"chunked", []int{1, 4, 40, 40}, []int{4, 10, 3, 3}, true, ops.ConvTranspose2dAttrs{Stride: [2]int{2, 2}, Padding: one, Dilation: one, Groups: 1}},
	} {
		for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64} {
			x, w := randDense(r, dt, tc.x...), randDense(r, dt, tc.w...)
			ins := []*tensor.Dense{x, w}
			var b *tensor.Dense
			if tc.bias {
				b = randDense(r, dt, tc.w[1]*tc.a.Groups)
				ins = append(ins, b)
			}
			got := execShapeOp(t, "conv_transpose2d", tc.a, ins...)
			tol := map[tensor.DType]float64{tensor.Float32: 1e-4, tensor.Float64: 1e-12}[dt]
			assertClose(t, tc.name+"/"+dt.String(), got, naiveConvTranspose2d(x, w, b, tc.a), tol, tol)
		}
	}
}

// BenchmarkConvTranspose2d times a 2x upsampling transposed convolution
// (kernel 2, stride 2) of a [1, 24, 24, 40] image and a 3x3 stride 2 one
// (one thread).
func BenchmarkConvTranspose2d(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, bc := range []struct {
		name string
		k    int
		a    ops.ConvTranspose2dAttrs
	}{
		{"k2-s2", 2, ops.ConvTranspose2dAttrs{Stride: [2]int{2, 2}, Dilation: [2]int{1, 1}, Groups: 1}},
		{"k3-s2-p1", 3, ops.ConvTranspose2dAttrs{Stride: [2]int{2, 2}, Padding: [2]int{1, 1}, OutputPadding: [2]int{1, 1}, Dilation: [2]int{1, 1}, Groups: 1}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			x := randDense(r, tensor.Float32, 1, 24, 24, 40)
			w := randDense(r, tensor.Float32, 24, 24, bc.k, bc.k)
			d, err := ops.ConvTranspose2dLayout(x.Shape, w.Shape, nil, bc.a)
			if err != nil {
				b.Fatal(err)
			}
			out := tensor.NewDense(tensor.Meta{Shape: d.Shape, DType: tensor.Float32})
			cpu0 := cputime.Process()
			for b.Loop() {
				if err := Run(ops.ConvTranspose2d, out, []*tensor.Dense{x, w}, bc.a); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cputime.Process()-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}
