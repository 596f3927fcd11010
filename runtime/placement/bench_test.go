package placement

import (
	"fmt"
	"testing"

	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// BenchmarkPlanning measures the engine's cost per op on the host, with
// tiny tensors so that kernels cost next to nothing; the cpu sub-benchmarks
// are the runtime without the engine, and the difference is the planning
// overhead. "stress" cycles matmuls through 256 weights with a window of
// 64 and room for 40, so that every op evicts, prefetches and fails one
// more prefetch. "blocks" has the shape of the offload example (d): blocks
// of six weights read by about 16 ops each (elementwise ops on the
// activations between the matmuls), passes over 8 blocks, room for a third
// of the weights.
func BenchmarkPlanning(b *testing.B) {
	for _, st := range []string{"cpu", "lru", "flow"} {
		b.Run("blocks/"+st, func(b *testing.B) { benchBlocks(b, st) })
	}
	for _, st := range []string{"cpu", "lru", "flow"} {
		b.Run("stress/"+st, func(b *testing.B) {
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

func benchBlocks(b *testing.B, st string) {
	var ex refs.Executor = &cpu.Device{}
	if st != "cpu" {
		var err error
		// 48 weights of 64 bytes, room for 16 and the activations.
		ex, err = NewExecutor(Config{Device: "sim", Mem: 16*64 + 8*16, Strategy: st, Sim: testParams})
		if err != nil {
			b.Fatal(err)
		}
	}
	rt := refs.New(ex, refs.Options{Lookahead: 64})
	mk := func(shape ...int) *refs.Ref {
		return rt.FromHost(refs.Site{Pos: "b.tr:1:1"}, tensor.NewDense(tensor.Meta{Shape: shape, DType: tensor.Float32}))
	}
	ws := make([]*refs.Ref, 48)
	for i := range ws {
		ws[i] = mk(4, 4)
	}
	x := mk(1, 4)
	sites := make([]refs.Site, 16)
	for i := range sites {
		sites[i] = refs.Site{Pos: fmt.Sprintf("blocks.tr:%d:1", i+1)}
	}
	submit := func(i int, name string, ins ...*refs.Ref) *refs.Ref {
		y, err := rt.Submit(sites[i], name, nil, ins...)
		if err != nil {
			b.Fatal(err)
		}
		return y
	}
	// One block: per weight a matmul and an elementwise op, then four
	// more elementwise ops: 16 ops.
	block := func(w []*refs.Ref) {
		for i, wi := range w {
			y := submit(2*i, "ptest_matmul", x, wi)
			rt.Release(x)
			x = submit(2*i+1, "ptest_relu", y)
			rt.Release(y)
		}
		for i := 12; i < 16; i++ {
			y := submit(i, "ptest_add", x, x)
			rt.Release(x)
			x = y
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for n := 0; n < b.N; n += 16 {
		blk := (n / 16) % 8
		block(ws[6*blk : 6*blk+6])
	}
	if err := rt.Flush(); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	rt.Release(x)
	for _, w := range ws {
		rt.Release(w)
	}
}
