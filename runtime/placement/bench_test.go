package placement

import (
	"testing"

	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// BenchmarkPlanning measures the engine's cost per op on the host: a
// stream of matmuls on tiny tensors (so kernels cost next to nothing)
// cycling through 256 weights, window 64, a budget of 40 weights, so that
// every op looks at the window, evicts and prefetches. The cpu
// sub-benchmark is the runtime without the engine: the difference is the
// planning overhead.
func BenchmarkPlanning(b *testing.B) {
	for _, st := range []string{"cpu", "lru", "flow"} {
		b.Run(st, func(b *testing.B) {
			var ex refs.Executor = &cpu.Device{}
			if st != "cpu" {
				var err error
				ex, err = NewExecutor(Config{Device: "sim", Mem: 40*64 + 4*16, Strategy: st, Sim: testParams})
				if err != nil {
					b.Fatal(err)
				}
			}
			rt := refs.New(ex, refs.Options{Lookahead: 64})
			mk := func(shape ...int) *refs.Ref {
				return rt.FromHost(refs.Site{Pos: "b.tr:1:1"}, tensor.NewDense(tensor.Meta{Shape: shape, DType: tensor.Float32}))
			}
			ws := make([]*refs.Ref, 256)
			for i := range ws {
				ws[i] = mk(4, 4)
			}
			x := mk(1, 4)
			site := refs.Site{Pos: "b.tr:2:1"}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				y, err := rt.Submit(site, "ptest_matmul", nil, x, ws[i%len(ws)])
				if err != nil {
					b.Fatal(err)
				}
				rt.Release(x)
				x = y
			}
			if err := rt.Flush(); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			rt.Release(x)
			for _, w := range ws {
				rt.Release(w)
			}
		})
	}
}
