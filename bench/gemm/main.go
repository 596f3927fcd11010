// Command gemm measures tref's float32 GEMM and conv2d cpu kernels, one
// line per workload for bench/gemm/run.sh to set beside libtorch's:
//
//	tref gemm 1024 <best GFLOP/s> <median GFLOP/s>
//	tref conv2d 32x64x56x56 <best GFLOP/s> <median GFLOP/s>
//
// Each workload runs once to warm up, then repeatedly for about -time.
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/backend/cpu/gemm"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

func main() {
	sizes := flag.String("sizes", "256,1024,2048", "comma-separated square GEMM sizes")
	conv := flag.Bool("conv", true, "also measure conv2d on [32,64,56,56] * [64,64,3,3], padding 1")
	budget := flag.Duration("time", 2*time.Second, "time spent on each workload")
	flag.Parse()
	fmt.Fprintf(os.Stderr, "tref: micro-kernel %s\n", gemm.Kernel())
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n <= 0 {
			fmt.Fprintf(os.Stderr, "gemm: bad size %q\n", s)
			os.Exit(2)
		}
		a, b, c := randF32(n*n), randF32(n*n), make([]float32, n*n)
		report("gemm", strconv.Itoa(n), 2*float64(n)*float64(n)*float64(n), *budget, func() {
			gemm.Sgemm(false, false, n, n, n, 1, a, n, b, n, 0, c, n)
		})
	}
	if *conv {
		if err := measureConv(*budget); err != nil {
			fmt.Fprintln(os.Stderr, "conv2d:", err)
			os.Exit(1)
		}
	}
}

func measureConv(budget time.Duration) error {
	x := denseOf(tensor.Shape{32, 64, 56, 56})
	w := denseOf(tensor.Shape{64, 64, 3, 3})
	one := [2]int{1, 1}
	attrs := ops.Conv2dAttrs{Stride: one, PadLo: one, PadHi: one, Dilation: one, Groups: 1}
	out := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{32, 64, 56, 56}, DType: tensor.Float32})
	var err error
	report("conv2d", "32x64x56x56", 2.0*32*64*56*56*64*9, budget, func() {
		if e := cpu.Run(ops.Conv2d, out, []*tensor.Dense{x, w}, attrs); e != nil {
			err = e
		}
	})
	return err
}

// report runs fn once to warm up, then for about budget (at least three
// times), and prints the best and median rates.
func report(kind, size string, flops float64, budget time.Duration, fn func()) {
	fn()
	var rates []float64
	start := time.Now()
	for len(rates) < 3 || time.Since(start) < budget {
		t := time.Now()
		fn()
		rates = append(rates, flops/time.Since(t).Seconds()/1e9)
	}
	slices.Sort(rates)
	fmt.Printf("tref %s %s %.1f %.1f\n", kind, size, rates[len(rates)-1], rates[len(rates)/2])
}

var rng = rand.New(rand.NewPCG(1, 2))

func randF32(n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = float32(rng.NormFloat64())
	}
	return s
}

func denseOf(s tensor.Shape) *tensor.Dense {
	d := tensor.NewDense(tensor.Meta{Shape: s, DType: tensor.Float32})
	copy(d.F32(), randF32(d.Numel()))
	return d
}
