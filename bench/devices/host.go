package main

import (
	"time"

	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// hostRates times tref's own cpu kernels, the fastest of reps runs each:
// a 1024 x 1024 matmul for the host's FLOP/s and a 16M-element add for
// its memory bandwidth. The cost model's host rates otherwise default to
// a large server's (1 TFLOP/s), and the engine, which runs an op on the
// host when the model says that is cheaper than moving its operands,
// would then keep every op of a slower device (torch:cpu on a few cores)
// on the host.
func hostRates(reps int) (flops, memBandwidth float64) {
	rt := refs.New(&cpu.Device{}, refs.Options{})
	fastest := func(op ops.Op, m tensor.Meta) int64 {
		a := rt.FromHost(refs.Site{}, tensor.NewDense(m))
		b := rt.FromHost(refs.Site{}, tensor.NewDense(m))
		best := int64(-1)
		for range reps + 1 { // the first warms up
			t0 := time.Now()
			r, err := rt.Submit(refs.Site{}, op, nil, a, b)
			check(err)
			_, err = rt.Read(r)
			check(err)
			ns := time.Since(t0).Nanoseconds()
			rt.Release(r)
			if best < 0 || ns < best {
				best = ns
			}
		}
		rt.Release(a)
		rt.Release(b)
		return max(best, 1)
	}
	const n, add = 1024, 16 << 20
	mm := fastest(ops.Matmul, tensor.Meta{Shape: tensor.Shape{n, n}, DType: tensor.Float32})
	ad := fastest(ops.Add, tensor.Meta{Shape: tensor.Shape{add}, DType: tensor.Float32})
	return 2 * n * n * n / float64(mm) * 1e9, 3 * 4 * add / float64(ad) * 1e9
}
