package gemm

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkSgemm measures square products; b.ReportMetric gives GFLOP/s.
func BenchmarkSgemm(b *testing.B) {
	for _, n := range []int{256, 1024, 2048} {
		for _, tB := range []bool{false, true} {
			name := fmt.Sprintf("%d", n)
			if tB {
				name += "/transB"
			}
			b.Run(name, func(b *testing.B) {
				r := rand.New(rand.NewPCG(1, 2))
				x, y, z := randSlice(r, n*n), randSlice(r, n*n), make([]float32, n*n)
				b.ResetTimer()
				for b.Loop() {
					Sgemm(false, tB, n, n, n, 1, x, n, y, n, 0, z, n)
				}
				b.ReportMetric(2*float64(n)*float64(n)*float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

// BenchmarkKernel times the micro-kernel alone on L1-resident panels.
func BenchmarkKernel(b *testing.B) {
	for _, mach := range machines() {
		b.Run(mach.name, func(b *testing.B) {
			const k = kcBlock
			r := rand.New(rand.NewPCG(1, 2))
			ap, bp, c := randSlice(r, k*mr), randSlice(r, k*nr), make([]float32, mr*nr)
			for b.Loop() {
				mach.kern(k, ap, bp, c, nr, true)
			}
			b.ReportMetric(2*mr*nr*k*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

// BenchmarkPackB times packing one KC×NC panel of B, plain and transposed.
func BenchmarkPackB(b *testing.B) {
	const n = 2048
	r := rand.New(rand.NewPCG(1, 2))
	src := randSlice(r, n*n)
	dst := make([]float32, kcBlock*n)
	for _, mach := range machines() {
		for _, tB := range []bool{false, true} {
			name := mach.name + "/N"
			if tB {
				name = mach.name + "/T"
			}
			b.Run(name, func(b *testing.B) {
				p := &problem{transB: tB, b: src, ldb: n, mach: mach}
				for b.Loop() {
					p.packB(dst, 0, kcBlock, 0, n, 0, n/nr)
				}
				b.ReportMetric(float64(kcBlock*n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gelem/s")
			})
		}
	}
}
