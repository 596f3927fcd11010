package torch

import (
	"math/rand/v2"
	"testing"

	"github.com/tref-lang/tref/lang/pos"
	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/placement/trace"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// randomProgram is a random op DAG over [n, n] float32 tensors: a few
// inputs, then steps that combine earlier values (reuse), repeated in a
// loop (the same op sites again), with values dropped as they die.
type randomProgram struct {
	n, inputs, steps, loops int
	seed                    uint64
}

var unaryOps = []ops.Op{ops.Relu, ops.Tanh, ops.Sigmoid, ops.Neg, ops.Abs, ops.Exp, ops.Gelu, ops.Silu}
var binaryOps = []ops.Op{ops.Add, ops.Sub, ops.Mul, ops.Maximum, ops.Minimum, ops.Matmul}

// run executes the program on exec and returns the host copies of its
// results, checking that nothing stays alive.
func (p randomProgram) run(t *testing.T, exec refs.Executor, lookahead int) []*tensor.Dense {
	rng := rand.New(rand.NewPCG(p.seed, 7))
	rt := refs.New(exec, refs.Options{Lookahead: lookahead})
	site := func(i int) refs.Site { return refs.Site{Pos: pos.Pos{File: "prog", Line: i + 1, Col: 1}} }
	var live []*refs.Ref
	for i := range p.inputs {
		d := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{p.n, p.n}, DType: tensor.Float32})
		for j := range d.F32() {
			d.F32()[j] = float32(rng.NormFloat64() * 0.5)
		}
		live = append(live, rt.FromHost(site(i), d))
	}
	var results []*tensor.Dense
	for range p.loops {
		for s := range p.steps {
			var out *refs.Ref
			var err error
			a := live[rng.IntN(len(live))]
			switch k := rng.IntN(10); {
			case k < 4:
				out, err = rt.Submit(site(100+s), unaryOps[rng.IntN(len(unaryOps))], nil, a)
			case k < 8:
				b := live[rng.IntN(len(live))]
				out, err = rt.Submit(site(100+s), binaryOps[rng.IntN(len(binaryOps))], nil, a, b)
			case k < 9:
				out, err = rt.Submit(site(100+s), ops.Softmax, ops.SoftmaxAttrs{Dim: -1}, a)
			default:
				// A forced read in the middle of the stream, as print or item do.
				sum, err := rt.Submit(site(100+s), ops.Sum, ops.ReduceAttrs{Dims: []int{0}, Keepdim: true}, a)
				if err != nil {
					t.Fatal(err)
				}
				d, err := rt.Read(sum)
				if err != nil {
					t.Fatal(err)
				}
				results = append(results, d.Clone())
				rt.Release(sum)
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			// Keep values bounded so exp and matmul chains stay finite.
			bounded, err := rt.Submit(site(200+s), ops.Tanh, nil, out)
			rt.Release(out)
			if err != nil {
				t.Fatal(err)
			}
			// Replace a random value: the old one dies now (or when its
			// pending readers run).
			i := rng.IntN(len(live))
			rt.Release(live[i])
			live[i] = bounded
		}
	}
	for _, r := range live {
		d, err := rt.Read(r)
		if err != nil {
			t.Fatal(err)
		}
		results = append(results, d.Clone())
		rt.Release(r)
	}
	if err := rt.Flush(); err != nil {
		t.Fatal(err)
	}
	if n := rt.LiveRefs(); n != 0 {
		t.Fatalf("%d refs alive at the end", n)
	}
	for _, st := range exec.Stats() {
		if st.LiveBytes != 0 || st.LiveRefs != 0 {
			t.Fatalf("%s still holds %d refs, %d bytes", st.Device, st.LiveRefs, st.LiveBytes)
		}
	}
	return results
}

// TestDifferentialRandomPrograms runs random programs on cpu and on
// torch:cpu with random window sizes and compares every result.
func TestDifferentialRandomPrograms(t *testing.T) {
	plugin(t)
	count := 200
	if testing.Short() {
		count = 40
	}
	for i := range count {
		p := randomProgram{n: 3 + i%5, inputs: 2 + i%3, steps: 5 + i%7, loops: 1 + i%3, seed: uint64(i)}
		lookahead := []int{0, 1, 4, 64}[i%4]
		want := p.run(t, &cpu.Device{}, lookahead)
		dev, stats := onTorch(t, 0, "", nil)
		got := p.run(t, dev, lookahead)
		if len(got) != len(want) {
			t.Fatalf("program %d: %d results on torch, %d on cpu", i, len(got), len(want))
		}
		for j := range want {
			if msg := agree(got[j], want[j]); msg != "" {
				t.Fatalf("program %d (%+v, lookahead %d), result %d: %s", i, p, lookahead, j, msg)
			}
		}
		if n := stats.Count[trace.Fallback]; n != 0 {
			t.Fatalf("program %d: %d ops fell back to the host", i, n)
		}
	}
}
