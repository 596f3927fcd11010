package onnx

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

func encAttrFloat(name string, v float32) []byte {
	b := fVarint(fString(nil, 1, name), 20, int64(AttrFloat))
	b = protowire.AppendTag(b, 2, protowire.Fixed32Type)
	return protowire.AppendFixed32(b, math.Float32bits(v))
}

// wave is n deterministic values in about [-1, 1] (seed picks the phase).
func wave(n int, seed float64) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = float32(math.Sin(float64(i)*0.7+seed) * math.Cos(float64(i)*0.13+2*seed))
	}
	return out
}

// positive is wave moved into [0.5, 1.5] (variances, scales).
func positive(n int, seed float64) []float32 {
	out := wave(n, seed)
	for i := range out {
		out[i] = 1 + out[i]/2
	}
	return out
}

// foldModel has every chain foldAffine folds and some it must leave:
//   - a grouped Conv (4 -> 6 channels, 2 groups) with a bias, then
//     BatchNormalization, Mul by a scalar, Add of a [1, 6, 1, 1] constant
//     and Div by a [6, 1, 1] one, then Relu (not affine);
//   - a ConvTranspose (6 -> 4, 2 groups) without a bias, then Add of a
//     [1, 4, 1, 1] bias and BatchNormalization;
//   - a Conv whose output is also a graph output (two readers: not
//     folded), then Mul;
//   - a Conv followed by Sub with the constant first (c - y: not folded)
//     and by Add of a per-position constant (not per channel).
func foldModel() []byte {
	bn := func(p string, m int64, seed float64) [][]byte {
		return [][]byte{
			encTensorF32(p+"g", []int64{m}, positive(int(m), seed)),
			encTensorF32(p+"b", []int64{m}, wave(int(m), seed+1)),
			encTensorF32(p+"m", []int64{m}, wave(int(m), seed+2)),
			encTensorF32(p+"v", []int64{m}, positive(int(m), seed+3)),
		}
	}
	inits := [][]byte{
		encTensorF32("W1", []int64{6, 2, 3, 3}, wave(6*2*9, 1)),
		encTensorF32("B1", []int64{6}, wave(6, 2)),
		encTensorF32("s", []int64{1}, []float32{1.5}),
		encTensorF32("a", []int64{1, 6, 1, 1}, wave(6, 3)),
		encTensorF32("d", []int64{6, 1, 1}, positive(6, 4)),
		encTensorF32("WT", []int64{6, 2, 3, 3}, wave(6*2*9, 5)),
		encTensorF32("BT", []int64{1, 4, 1, 1}, wave(4, 6)),
		encTensorF32("W3", []int64{4, 4, 1, 1}, wave(16, 7)),
		encTensorF32("W4", []int64{4, 4, 1, 1}, wave(16, 8)),
		encTensorF32("P", []int64{1, 1, 5, 5}, wave(25, 9)),
	}
	inits = append(inits, bn("bn1", 6, 10)...)
	inits = append(inits, bn("bn2", 4, 20)...)
	eps := encAttrFloat("epsilon", 1e-3)
	nodes := [][]byte{
		encNode("Conv", []string{"x", "W1", "B1"}, []string{"c1"}, encAttrInt("group", 2), encAttrInts("pads", 1, 1, 1, 1)),
		encNode("BatchNormalization", []string{"c1", "bn1g", "bn1b", "bn1m", "bn1v"}, []string{"n1"}, eps),
		encNode("Mul", []string{"s", "n1"}, []string{"m1"}),
		encNode("Add", []string{"m1", "a"}, []string{"a1"}),
		encNode("Div", []string{"a1", "d"}, []string{"d1"}),
		encNode("Relu", []string{"d1"}, []string{"r1"}),
		encNode("ConvTranspose", []string{"r1", "WT"}, []string{"t1"}, encAttrInt("group", 2), encAttrInts("strides", 1, 1), encAttrInts("pads", 1, 1, 1, 1)),
		encNode("Add", []string{"t1", "BT"}, []string{"t2"}),
		encNode("BatchNormalization", []string{"t2", "bn2g", "bn2b", "bn2m", "bn2v"}, []string{"t3"}),
		encNode("Conv", []string{"t3", "W3"}, []string{"c3"}),
		encNode("Mul", []string{"c3", "s"}, []string{"m3"}),
		encNode("Conv", []string{"m3", "W4"}, []string{"c4"}),
		encNode("Sub", []string{"s", "c4"}, []string{"u4"}),
		encNode("Add", []string{"u4", "P"}, []string{"y"}),
	}
	ins := [][]byte{encValue("x", Float, 1, 4, 5, 5)}
	outs := [][]byte{encValue("y", Float, 1, 4, 5, 5), encValue("c3", Float, 1, 4, 5, 5)}
	return encModel(13, encGraph(nodes, inits, ins, outs))
}

// compileRun compiles model (folding or not) and runs it on x: the
// outputs, and the op types of the compiled graph's nodes.
func compileRun(t *testing.T, path string, fold bool, x *tensor.Dense) ([]*tensor.Dense, []string) {
	t.Helper()
	f, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rt := refs.New(&cpu.Device{}, refs.Options{Lookahead: 16, TrackRefs: true})
	p, err := compile(rt, refs.Site{}, f, fold)
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, n := range p.graph.Nodes {
		types = append(types, n.OpType)
	}
	in := rt.FromHost(refs.Site{}, x.Clone())
	outs, err := p.Run(rt, refs.Site{}, []*refs.Ref{in})
	if err != nil {
		t.Fatal(err)
	}
	var res []*tensor.Dense
	for _, o := range outs {
		d, err := rt.Read(o)
		if err != nil {
			t.Fatal(err)
		}
		res = append(res, d.Clone())
		rt.Release(o)
	}
	rt.Release(in)
	p.Release(rt)
	if n := rt.LiveRefs(); n != 0 {
		t.Errorf("%d refs leaked", n)
	}
	return res, types
}

// TestFoldAffine checks that the folded program computes what the graph
// as written does, and folds exactly the chains it may.
func TestFoldAffine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fold.onnx")
	if err := os.WriteFile(path, foldModel(), 0o644); err != nil {
		t.Fatal(err)
	}
	x := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{1, 4, 5, 5}, DType: tensor.Float32})
	copy(x.F32(), wave(100, 42))
	want, plain := compileRun(t, path, false, x)
	got, folded := compileRun(t, path, true, x)
	wantTypes := []string{"Conv", "Relu", "ConvTranspose", "Conv", "Conv", "Sub", "Add"}
	if len(plain) != 14 || !slices.Equal(folded, wantTypes) {
		t.Fatalf("nodes %v (from %d), want %v", folded, len(plain), wantTypes)
	}
	for k := range want {
		w, g := want[k].F32(), got[k].F32()
		for i := range w {
			if d := math.Abs(float64(g[i] - w[i])); d > 1e-5*(1+math.Abs(float64(w[i]))) {
				t.Fatalf("output %d[%d] = %v folded, %v as written", k, i, g[i], w[i])
			}
		}
	}
}

// TestFoldAffineBefore checks the folds into the convolution after an
// affine chain: a grouped 1x1 convolution after Mul, Add and
// BatchNormalization, an unpadded 3x3 one after Sub; a padded one keeps
// its Mul (its border would see the map's shift).
func TestFoldAffineBefore(t *testing.T) {
	inits := [][]byte{
		encTensorF32("a", []int64{1, 4, 1, 1}, positive(4, 1)),
		encTensorF32("t", []int64{1}, []float32{0.25}),
		encTensorF32("g", []int64{4}, positive(4, 2)),
		encTensorF32("b", []int64{4}, wave(4, 3)),
		encTensorF32("mu", []int64{4}, wave(4, 4)),
		encTensorF32("var", []int64{4}, positive(4, 5)),
		encTensorF32("W1", []int64{6, 2, 1, 1}, wave(12, 6)),
		encTensorF32("B1", []int64{6}, wave(6, 7)),
		encTensorF32("W2", []int64{3, 4, 3, 3}, wave(108, 8)),
		encTensorF32("W3", []int64{2, 4, 3, 3}, wave(72, 9)),
		encTensorF32("c", []int64{4, 1, 1}, wave(4, 10)),
	}
	nodes := [][]byte{
		encNode("Mul", []string{"x", "a"}, []string{"m"}),
		encNode("Add", []string{"t", "m"}, []string{"s"}),
		encNode("BatchNormalization", []string{"s", "g", "b", "mu", "var"}, []string{"n"}),
		encNode("Conv", []string{"n", "W1", "B1"}, []string{"y1"}, encAttrInt("group", 2)),
		encNode("Mul", []string{"x", "a"}, []string{"m2"}),
		encNode("Conv", []string{"m2", "W2"}, []string{"y2"}, encAttrInts("pads", 1, 1, 1, 1)),
		encNode("Sub", []string{"x", "c"}, []string{"d"}),
		encNode("Conv", []string{"d", "W3"}, []string{"y3"}),
	}
	ins := [][]byte{encValue("x", Float, 1, 4, 5, 5)}
	outs := [][]byte{encValue("y1", Float, 1, 6, 5, 5), encValue("y2", Float, 1, 3, 5, 5), encValue("y3", Float, 1, 2, 3, 3)}
	path := filepath.Join(t.TempDir(), "before.onnx")
	if err := os.WriteFile(path, encModel(13, encGraph(nodes, inits, ins, outs)), 0o644); err != nil {
		t.Fatal(err)
	}
	x := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{1, 4, 5, 5}, DType: tensor.Float32})
	copy(x.F32(), wave(100, 11))
	want, _ := compileRun(t, path, false, x)
	got, types := compileRun(t, path, true, x)
	if wantTypes := []string{"Conv", "Mul", "Conv", "Conv"}; !slices.Equal(types, wantTypes) {
		t.Fatalf("nodes %v, want %v", types, wantTypes)
	}
	for k := range want {
		w, g := want[k].F32(), got[k].F32()
		for i := range w {
			if d := math.Abs(float64(g[i] - w[i])); d > 1e-5*(1+math.Abs(float64(w[i]))) {
				t.Fatalf("output %d[%d] = %v folded, %v as written", k, i, g[i], w[i])
			}
		}
	}
}
