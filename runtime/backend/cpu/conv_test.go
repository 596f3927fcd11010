package cpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/tref-lang/tref/internal/cputime"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// naiveConv2d is the direct definition of a grouped, strided, dilated and
// padded convolution, in float64.
func naiveConv2d(x, w, bias *tensor.Dense, a ops.Conv2dAttrs) []float64 {
	var bs *tensor.Shape
	if bias != nil {
		bs = &bias.Shape
	}
	d, err := ops.Conv2dLayout(x.Shape, w.Shape, bs, a)
	if err != nil {
		panic(err)
	}
	cg, og := d.C/a.Groups, d.OutC/a.Groups
	out := make([]float64, d.Batch*d.OutC*d.OH*d.OW)
	for n := range d.Batch {
		for o := range d.OutC {
			g := o / og
			for oh := range d.OH {
				for ow := range d.OW {
					var s float64
					if bias != nil {
						s = bias.At(o)
					}
					for c := range cg {
						for ki := range d.KH {
							for kj := range d.KW {
								ih := oh*a.Stride[0] - a.PadLo[0] + ki*a.Dilation[0]
								iw := ow*a.Stride[1] - a.PadLo[1] + kj*a.Dilation[1]
								if ih < 0 || ih >= d.H || iw < 0 || iw >= d.W {
									continue
								}
								xv := x.At(((n*d.C+g*cg+c)*d.H+ih)*d.W + iw)
								s += xv * w.At(((o*cg+c)*d.KH+ki)*d.KW+kj)
							}
						}
					}
					out[((n*d.OutC+o)*d.OH+oh)*d.OW+ow] = s
				}
			}
		}
	}
	return out
}

func TestConv2dAgainstDirectDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	one := [2]int{1, 1}
	for _, tc := range []struct {
		name string
		x, w []int
		bias bool
		a    ops.Conv2dAttrs
	}{
		// 16·9 rows × 1600 positions exceeds colBudget: lowered in chunks.
		{"chunked", []int{2, 16, 40, 40}, []int{8, 16, 3, 3}, true, ops.Conv2dAttrs{Stride: one, PadLo: one, PadHi: one, Dilation: one, Groups: 1}},
		{"batch1-parallel-gemm", []int{1, 8, 30, 30}, []int{20, 8, 3, 3}, false, ops.Conv2dAttrs{Stride: one, Dilation: one, Groups: 1}},
		{"asymmetric-pad", []int{2, 3, 9, 8}, []int{5, 3, 4, 2}, true, ops.Conv2dAttrs{Stride: one, PadLo: [2]int{1, 0}, PadHi: [2]int{2, 1}, Dilation: one, Groups: 1}},
		{"strided-dilated", []int{3, 4, 17, 19}, []int{6, 2, 3, 3}, true, ops.Conv2dAttrs{Stride: [2]int{2, 3}, PadLo: [2]int{2, 1}, PadHi: [2]int{2, 1}, Dilation: [2]int{2, 1}, Groups: 2}},
		{"pointwise", []int{3, 8, 7, 9}, []int{12, 8, 1, 1}, true, ops.Conv2dAttrs{Stride: one, Dilation: one, Groups: 1}},
		{"pointwise-groups", []int{3, 8, 7, 9}, []int{12, 2, 1, 1}, false, ops.Conv2dAttrs{Stride: one, Dilation: one, Groups: 4}},
		{"pad-wider-than-input", []int{1, 4, 1, 1}, []int{4, 4, 1, 5}, true, ops.Conv2dAttrs{Stride: one, PadLo: [2]int{0, 2}, PadHi: [2]int{0, 2}, Dilation: one, Groups: 1}},
		// Unit stride with 16 or more channels per group runs as shifted
		// products (convShifted).
		{"shifted-groups-dilated", []int{2, 32, 9, 11}, []int{6, 16, 3, 2}, true, ops.Conv2dAttrs{Stride: one, PadLo: [2]int{2, 1}, PadHi: [2]int{1, 0}, Dilation: [2]int{2, 1}, Groups: 2}},
		{"shifted-unpadded", []int{1, 20, 7, 8}, []int{5, 20, 3, 3}, false, ops.Conv2dAttrs{Stride: one, Dilation: one, Groups: 1}},
		{"shifted-wide-pad", []int{1, 16, 4, 3}, []int{3, 16, 2, 2}, true, ops.Conv2dAttrs{Stride: one, PadLo: [2]int{3, 3}, PadHi: [2]int{0, 4}, Dilation: one, Groups: 1}},
		// Depthwise (one input channel per group) runs the direct kernel:
		// rows of 45 columns take the 32- and 8-wide blocks and a tail.
		{"depthwise", []int{2, 6, 11, 45}, []int{6, 1, 5, 5}, true, ops.Conv2dAttrs{Stride: one, PadLo: [2]int{2, 2}, PadHi: [2]int{2, 2}, Dilation: one, Groups: 6}},
		{"depthwise-multiplier", []int{2, 3, 9, 20}, []int{6, 1, 3, 3}, true, ops.Conv2dAttrs{Stride: one, PadLo: one, PadHi: one, Dilation: one, Groups: 3}},
		{"depthwise-strided", []int{1, 5, 13, 17}, []int{5, 1, 3, 3}, false, ops.Conv2dAttrs{Stride: [2]int{2, 2}, PadLo: one, PadHi: one, Dilation: one, Groups: 5}},
		{"depthwise-dilated-asymmetric", []int{2, 4, 12, 40}, []int{4, 1, 3, 2}, true, ops.Conv2dAttrs{Stride: [2]int{1, 1}, PadLo: [2]int{2, 0}, PadHi: [2]int{0, 3}, Dilation: [2]int{2, 3}, Groups: 4}},
		{"depthwise-stride-row", []int{1, 3, 12, 80}, []int{3, 1, 3, 3}, true, ops.Conv2dAttrs{Stride: [2]int{1, 2}, PadLo: one, PadHi: one, Dilation: one, Groups: 3}},
		{"depthwise-strided-dilated", []int{2, 3, 10, 29}, []int{6, 1, 2, 5}, true, ops.Conv2dAttrs{Stride: [2]int{2, 3}, PadLo: [2]int{1, 2}, PadHi: [2]int{0, 3}, Dilation: [2]int{1, 2}, Groups: 3}},
		{"depthwise-stride-dilation-coprime", []int{1, 2, 7, 31}, []int{2, 1, 3, 4}, false, ops.Conv2dAttrs{Stride: [2]int{1, 2}, PadLo: one, PadHi: one, Dilation: [2]int{2, 3}, Groups: 2}},
		{"depthwise-stride-dilation-common-factor", []int{1, 2, 6, 26}, []int{2, 1, 2, 3}, true, ops.Conv2dAttrs{Stride: [2]int{1, 2}, PadLo: one, PadHi: one, Dilation: [2]int{1, 2}, Groups: 2}},
		{"depthwise-pad-wider-than-input", []int{1, 2, 1, 2}, []int{2, 1, 1, 3}, true, ops.Conv2dAttrs{Stride: one, PadLo: [2]int{0, 4}, PadHi: [2]int{0, 4}, Dilation: one, Groups: 2}},
		{"unbatched", []int{3, 6, 6}, []int{2, 3, 3, 3}, true, ops.Conv2dAttrs{Stride: one, PadLo: one, PadHi: one, Dilation: one, Groups: 1}},
	} {
		for _, dt := range []tensor.DType{tensor.Float32, tensor.Float64} {
			x, w := randDense(r, dt, tc.x...), randDense(r, dt, tc.w...)
			ins := []*tensor.Dense{x, w}
			var b *tensor.Dense
			if tc.bias {
				b = randDense(r, dt, tc.w[0])
				ins = append(ins, b)
			}
			got := execShapeOp(t, "conv2d", tc.a, ins...)
			tol := map[tensor.DType]float64{tensor.Float32: 1e-4, tensor.Float64: 1e-12}[dt]
			assertClose(t, tc.name+"/"+dt.String(), got, naiveConv2d(x, w, b, tc.a), tol, tol)
		}
	}
}

func TestMaxPool2dIntegerAndPadding(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	a := ops.Pool2dAttrs{Kernel: [2]int{3, 3}, Stride: [2]int{2, 2}, Padding: [2]int{1, 1}, Dilation: [2]int{1, 1}, CeilMode: true}
	for _, dt := range []tensor.DType{tensor.Int64, tensor.Uint8, tensor.Float32} {
		x := randDense(r, dt, 2, 3, 8, 9)
		if dt == tensor.Uint8 {
			for i := range x.Buf {
				x.Buf[i] = uint8(r.IntN(256))
			}
		}
		got := execShapeOp(t, "max_pool2d", a, x)
		d, _ := ops.MaxPool2dLayout(x.Shape, a)
		want := make([]float64, got.Numel())
		for p := range d.Batch * d.C {
			for oh := range d.OH {
				for ow := range d.OW {
					m := math.Inf(-1)
					for ki := range 3 {
						for kj := range 3 {
							ih, iw := oh*2-1+ki, ow*2-1+kj
							if ih >= 0 && ih < d.H && iw >= 0 && iw < d.W {
								m = max(m, x.At((p*d.H+ih)*d.W+iw))
							}
						}
					}
					want[(p*d.OH+oh)*d.OW+ow] = m
				}
			}
		}
		assertClose(t, "max_pool2d "+dt.String(), got, want, 0, 0)
	}
}

// BenchmarkConv2d is the workload: [32, 64, 56, 56] by a 3×3×64×64
// kernel, padding 1.
func BenchmarkConv2d(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	x := randDense(r, tensor.Float32, 32, 64, 56, 56)
	w := randDense(r, tensor.Float32, 64, 64, 3, 3)
	one := [2]int{1, 1}
	a := ops.Conv2dAttrs{Stride: one, PadLo: one, PadHi: one, Dilation: one, Groups: 1}
	out := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{32, 64, 56, 56}, DType: tensor.Float32})
	for b.Loop() {
		if err := Run(ops.Conv2d, out, []*tensor.Dense{x, w}, a); err != nil {
			b.Fatal(err)
		}
	}
	flops := 2.0 * 32 * 64 * 56 * 56 * 64 * 9
	b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// BenchmarkConv2dDepthwise times the depthwise convolutions of the OCR
// models (one image, one thread): cpu-ns/op is the process's CPU time.
func BenchmarkConv2dDepthwise(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, bc := range []struct {
		name       string
		c, h, w, k int
		stride     [2]int
	}{
		{"cls-200x2x96-k5", 200, 2, 96, 5, [2]int{1, 1}},
		{"rec-240x12x40-k5", 240, 12, 40, 5, [2]int{1, 1}},
		{"det-192x6x10-k5", 192, 6, 10, 5, [2]int{1, 1}},
		{"det-96x12x20-k3-s2", 96, 12, 20, 3, [2]int{2, 2}},
		{"rec-128x12x80-k3-s1x2", 128, 12, 80, 3, [2]int{1, 2}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			x := randDense(r, tensor.Float32, 1, bc.c, bc.h, bc.w)
			w := randDense(r, tensor.Float32, bc.c, 1, bc.k, bc.k)
			p := bc.k / 2
			a := ops.Conv2dAttrs{Stride: bc.stride, PadLo: [2]int{p, p}, PadHi: [2]int{p, p}, Dilation: [2]int{1, 1}, Groups: bc.c}
			d, err := ops.Conv2dLayout(x.Shape, w.Shape, nil, a)
			if err != nil {
				b.Fatal(err)
			}
			out := tensor.NewDense(tensor.Meta{Shape: d.Shape, DType: tensor.Float32})
			cpu0 := cputime.Process()
			for b.Loop() {
				if err := Run(ops.Conv2d, out, []*tensor.Dense{x, w}, a); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cputime.Process()-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}

// BenchmarkConv2dSmall times the dense convolutions of the OCR detector
// (one image, one thread).
func BenchmarkConv2dSmall(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	one := [2]int{1, 1}
	for _, bc := range []struct {
		name string
		x, w []int
		a    ops.Conv2dAttrs
	}{
		{"det-96x24x40-to-24-k3", []int{1, 96, 24, 40}, []int{24, 96, 3, 3}, ops.Conv2dAttrs{Stride: one, PadLo: one, PadHi: one, Dilation: one, Groups: 1}},
		{"det-3x96x160-to-16-k3-s2", []int{1, 3, 96, 160}, []int{16, 3, 3, 3}, ops.Conv2dAttrs{Stride: [2]int{2, 2}, PadLo: one, PadHi: one, Dilation: one, Groups: 1}},
		{"det-384x3x5-to-384-1x1", []int{1, 384, 3, 5}, []int{384, 384, 1, 1}, ops.Conv2dAttrs{Stride: one, Dilation: one, Groups: 1}},
		{"rec-240x12x40-to-240-1x1", []int{1, 240, 12, 40}, []int{240, 240, 1, 1}, ops.Conv2dAttrs{Stride: one, Dilation: one, Groups: 1}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			x, w := randDense(r, tensor.Float32, bc.x...), randDense(r, tensor.Float32, bc.w...)
			d, err := ops.Conv2dLayout(x.Shape, w.Shape, nil, bc.a)
			if err != nil {
				b.Fatal(err)
			}
			out := tensor.NewDense(tensor.Meta{Shape: d.Shape, DType: tensor.Float32})
			cpu0 := cputime.Process()
			for b.Loop() {
				if err := Run(ops.Conv2d, out, []*tensor.Dense{x, w}, bc.a); err != nil {
					b.Fatal(err)
				}
			}
			cpu := float64(cputime.Process()-cpu0) / float64(b.N)
			b.ReportMetric(cpu, "cpu-ns/op")
			flops := 2.0 * float64(d.OutC*d.OH*d.OW*d.C/bc.a.Groups*d.KH*d.KW)
			b.ReportMetric(flops/cpu, "GFLOP/cpu-s")
		})
	}
}

// BenchmarkMaxPool2d times 3×3 stride 2 and 2×2 stride 2 pools of a
// [1, 16, 48, 80] image (one thread).
func BenchmarkMaxPool2d(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	x := randDense(r, tensor.Float32, 1, 16, 48, 80)
	for _, bc := range []struct {
		name string
		a    ops.Pool2dAttrs
	}{
		{"k3-s2-p1", ops.Pool2dAttrs{Kernel: [2]int{3, 3}, Stride: [2]int{2, 2}, Padding: [2]int{1, 1}, Dilation: [2]int{1, 1}}},
		{"k2-s2", ops.Pool2dAttrs{Kernel: [2]int{2, 2}, Stride: [2]int{2, 2}, Dilation: [2]int{1, 1}}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			d, err := ops.MaxPool2dLayout(x.Shape, bc.a)
			if err != nil {
				b.Fatal(err)
			}
			out := tensor.NewDense(tensor.Meta{Shape: d.Shape, DType: tensor.Float32})
			cpu0 := cputime.Process()
			for b.Loop() {
				if err := Run(ops.MaxPool2d, out, []*tensor.Dense{x}, bc.a); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cputime.Process()-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}
