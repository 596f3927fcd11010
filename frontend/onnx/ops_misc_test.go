package onnx

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

func encAttrString(name, v string) []byte {
	return fString(fVarint(fString(nil, 1, name), 20, int64(AttrString)), 4, v)
}

// TestScatterReductions runs ScatterElements (opset 18) and ScatterND
// with each reduction on the ONNX operator docs' examples: repeated
// indices combine with the element's own value.
func TestScatterReductions(t *testing.T) {
	data := []float32{1, 2, 3, 4, 5}
	for _, c := range []struct {
		op, red string
		want    []float32
	}{
		{"ScatterElements", "max", []float32{1, 2.1, 3, 4, 5}},
		{"ScatterElements", "min", []float32{1, 1.1, 3, 4, 5}},
		{"ScatterElements", "mul", []float32{1, 2 * 1.1 * 2.1, 3, 4, 5}},
		{"ScatterElements", "add", []float32{1, 2 + 1.1 + 2.1, 3, 4, 5}},
		{"ScatterND", "max", []float32{1, 2.1, 3, 4, 5}},
		{"ScatterND", "min", []float32{1, 1.1, 3, 4, 5}},
		{"ScatterND", "mul", []float32{1, 2 * 1.1 * 2.1, 3, 4, 5}},
	} {
		t.Run(c.op+"/"+c.red, func(t *testing.T) {
			var idx []byte
			var attrs [][]byte
			if c.op == "ScatterElements" {
				// data [1, 5], indices [[1, 1]] along axis 1
				idx = encTensorI64("i", []int64{1, 2}, []int64{1, 1})
				attrs = append(attrs, encAttrInt("axis", 1))
			} else {
				// data [5], index tuples [[1], [1]]
				idx = encTensorI64("i", []int64{2, 1}, []int64{1, 1})
			}
			attrs = append(attrs, encAttrString("reduction", c.red))
			shape := []int64{1, 5}
			upShape := []int64{1, 2}
			if c.op == "ScatterND" {
				shape, upShape = []int64{5}, []int64{2}
			}
			inits := [][]byte{idx, encTensorF32("u", upShape, []float32{1.1, 2.1})}
			nodes := [][]byte{encNode(c.op, []string{"x", "i", "u"}, []string{"y"}, attrs...)}
			model := encModel(18, encGraph(nodes, inits, [][]byte{encValue("x", Float, shape...)}, [][]byte{encValue("y", Float, shape...)}))
			ts := make(tensor.Shape, len(shape))
			for i, d := range shape {
				ts[i] = int(d)
			}
			x := tensor.NewDense(tensor.Meta{Shape: ts, DType: tensor.Float32})
			copy(x.F32(), data)
			got := runOneInput(t, model, x)
			for i, w := range c.want {
				if g := got.At(i); float32(g) != w {
					t.Errorf("element %d: got %v, want %v", i, g, w)
				}
			}
		})
	}
}

// runOneInput runs a one-input model on x with the cpu device and returns
// its first output.
func runOneInput(t *testing.T, model []byte, x *tensor.Dense) *tensor.Dense {
	t.Helper()
	rt, p := compileBytes(t, model)
	defer p.Release(rt)
	in := rt.FromHost(refs.Site{}, x)
	defer rt.Release(in)
	outs, err := p.Run(rt, refs.Site{}, []*refs.Ref{in})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Release(outs[0])
	got, err := rt.Read(outs[0])
	if err != nil {
		t.Fatal(err)
	}
	return got.Clone()
}

// TestBitwiseOps runs BitwiseAnd, BitwiseOr, BitwiseXor (against a
// constant) and BitwiseNot (opset 18) on int32 values.
func TestBitwiseOps(t *testing.T) {
	xs := []int64{12, -7, 0, 255}
	for _, c := range []struct {
		op   string
		want []int64
	}{
		{"BitwiseAnd", []int64{12 & 10, -7 & 10, 0, 255 & 10}},
		{"BitwiseOr", []int64{12 | 10, -7 | 10, 10, 255 | 10}},
		{"BitwiseXor", []int64{12 ^ 10, -7 ^ 10, 10, 255 ^ 10}},
		{"BitwiseNot", []int64{^12, ^-7, ^0, ^255}},
	} {
		t.Run(c.op, func(t *testing.T) {
			ins := []string{"x"}
			var inits [][]byte
			if c.op != "BitwiseNot" {
				ins = append(ins, "k")
				inits = append(inits, append(encTensorHead("k", Int32, nil), fVarint(nil, 5, 10)...))
			}
			nodes := [][]byte{encNode(c.op, ins, []string{"y"})}
			model := encModel(18, encGraph(nodes, inits, [][]byte{encValue("x", Int32, 4)}, [][]byte{encValue("y", Int32, 4)}))
			x := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{4}, DType: tensor.Int32})
			for i, v := range xs {
				x.I32()[i] = int32(v)
			}
			got := runOneInput(t, model, x)
			if got.DType != tensor.Int32 {
				t.Fatalf("got %v, want int32", got.Meta)
			}
			for i, w := range c.want {
				if g := got.IntAt(i); g != w {
					t.Errorf("element %d: got %d, want %d", i, g, w)
				}
			}
		})
	}
}

// TestScanReverse runs Scan (opset 11) over X [3, 2] in reverse with a
// running sum as state and the sums stacked along output axis 1.
func TestScanReverse(t *testing.T) {
	body := encGraph(
		[][]byte{encNode("Add", []string{"s", "x"}, []string{"s2"}), encNode("Identity", []string{"s2"}, []string{"y"})},
		nil,
		[][]byte{encValue("s", Float, 2), encValue("x", Float, 2)},
		[][]byte{encValue("s2", Float, 2), encValue("y", Float, 2)})
	node := encNode("Scan", []string{"s0", "X"}, []string{"sf", "ys"},
		encAttrGraph("body", body), encAttrInt("num_scan_inputs", 1),
		encAttrInts("scan_input_directions", 1), encAttrInts("scan_output_axes", 1))
	inits := [][]byte{encTensorF32("s0", []int64{2}, []float32{0, 0})}
	model := encModel(11, encGraph([][]byte{node}, inits, [][]byte{encValue("X", Float, 3, 2)}, [][]byte{encValue("ys", Float, 2, 3)}))
	x := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{3, 2}, DType: tensor.Float32})
	copy(x.F32(), []float32{1, 2, 3, 4, 5, 6})
	got := runOneInput(t, model, x)
	want := []float64{5, 8, 9, 6, 10, 12}
	if !got.Shape.Equal(tensor.Shape{2, 3}) {
		t.Fatalf("got %v, want [2, 3]", got.Meta)
	}
	for i, w := range want {
		if g := got.At(i); g != w {
			t.Errorf("element %d: got %v, want %v", i, g, w)
		}
	}
}

// TestLoopInterrupted: a Loop of many iterations on an interrupted
// runtime (Ctrl-C in tref) stops before its next iteration with
// refs.ErrInterrupted, instead of queuing the rest, and leaks no ref.
func TestLoopInterrupted(t *testing.T) {
	body := encGraph(
		[][]byte{encNode("Identity", []string{"cond"}, []string{"cond_out"}), encNode("Add", []string{"v", "one"}, []string{"v_out"})},
		nil,
		[][]byte{encValue("iter", Int64), encValue("cond", Bool), encValue("v", Float, 2)},
		[][]byte{encValue("cond_out", Bool), encValue("v_out", Float, 2)})
	node := encNode("Loop", []string{"M", "", "X"}, []string{"Y"}, encAttrGraph("body", body))
	inits := [][]byte{encTensorI64("M", nil, []int64{maxLoopIterations / 2}), encTensorF32("one", []int64{2}, []float32{1, 1})}
	model := encModel(13, encGraph([][]byte{node}, inits, [][]byte{encValue("X", Float, 2)}, [][]byte{encValue("Y", Float, 2)}))
	rt, p := compileBytes(t, model)
	in := rt.FromHost(refs.Site{}, tensor.NewDense(tensor.Meta{Shape: tensor.Shape{2}, DType: tensor.Float32}))
	rt.Interrupt()
	outs, err := p.Run(rt, refs.Site{}, []*refs.Ref{in})
	if !errors.Is(err, refs.ErrInterrupted) {
		t.Errorf("Run gave %d outputs and error %v, want %v", len(outs), err, refs.ErrInterrupted)
	}
	for _, r := range outs {
		rt.Release(r)
	}
	rt.Release(in)
	p.Release(rt)
	rt.ClearInterrupt()
	rt.Flush()
	if n := rt.LiveRefs(); n != 0 {
		t.Errorf("%d refs leaked", n)
	}
}

// compileBytes writes model to a file, opens it and compiles it on a
// fresh cpu runtime that counts refs; the file closes when the test ends.
func compileBytes(t *testing.T, model []byte) (*refs.Runtime, *Program) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "m.onnx")
	if err := os.WriteFile(path, model, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	rt := refs.New(&cpu.Device{}, refs.Options{Lookahead: 16, TrackRefs: true})
	p, err := Compile(rt, refs.Site{}, f)
	if err != nil {
		t.Fatal(err)
	}
	return rt, p
}
