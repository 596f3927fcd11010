package placement

import (
	"testing"

	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/refs"
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
	for _, name := range []string{"blocks", "stress"} {
		for _, st := range []string{"cpu", "lru", "flow"} {
			b.Run(name+"/"+st, func(b *testing.B) { benchPlanning(b, name, st) })
		}
	}
}

// benchPlanning runs b.N ops of stream name on device st (the plain cpu
// device, or the sim under strategy st).
func benchPlanning(b *testing.B, name, st string) {
	var ex refs.Executor = &cpu.Device{}
	if st != "cpu" {
		var err error
		ex, err = NewExecutor(Config{Device: "sim", Mem: planStreamMem[name], Strategy: st, Cost: testParams})
		if err != nil {
			b.Fatal(err)
		}
	}
	rt := refs.New(ex, refs.Options{Lookahead: 64})
	s := newPlanStream(b, rt, name)
	b.ReportAllocs()
	b.ResetTimer()
	s.run(b.N, nil)
	if err := rt.Flush(); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	s.release()
}
