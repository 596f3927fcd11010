package onnx

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tref-lang/tref/runtime/tensor"
)

// hardswishModel writes y = x·clip(x+3, 0, 6)/6 as exporters without
// HardSwish do, twice: once fusable (then Relu), once with the clip also
// a graph output (not fused). Clip takes attributes before opset 11 and
// constant inputs from then on.
func hardswishModel(opset int64) []byte {
	inits := [][]byte{
		encTensorF32("three", nil, []float32{3}),
		encTensorF32("six", nil, []float32{6}),
		encTensorF32("zero", nil, []float32{0}),
	}
	clip := func(in, out string) []byte {
		if opset < 11 {
			return encNode("Clip", []string{in}, []string{out}, encAttrFloat("min", 0), encAttrFloat("max", 6))
		}
		return encNode("Clip", []string{in, "zero", "six"}, []string{out})
	}
	nodes := [][]byte{
		encNode("Add", []string{"x", "three"}, []string{"a"}),
		clip("a", "c"),
		encNode("Mul", []string{"c", "x"}, []string{"m"}),
		encNode("Div", []string{"m", "six"}, []string{"h"}),
		encNode("Relu", []string{"h"}, []string{"y"}),
		encNode("Add", []string{"three", "y"}, []string{"a2"}),
		clip("a2", "c2"),
		encNode("Mul", []string{"y", "c2"}, []string{"m2"}),
		encNode("Div", []string{"m2", "six"}, []string{"z"}),
	}
	ins := [][]byte{encValue("x", Float, 2, 3, 7)}
	outs := [][]byte{encValue("z", Float, 2, 3, 7), encValue("c2", Float, 2, 3, 7)}
	return encModel(opset, encGraph(nodes, inits, ins, outs))
}

// TestFuseHardswish checks that the fusable chain becomes one HardSwish
// node that computes the same bits, and that the other stays as written.
func TestFuseHardswish(t *testing.T) {
	x := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{2, 3, 7}, DType: tensor.Float32})
	for i := range x.F32() {
		x.F32()[i] = float32(i-21) * 0.37 // -7.8 .. 7.4, past both bends
	}
	x.F32()[0], x.F32()[1] = 3e38, -1e-30
	for _, opset := range []int64{9, 13} {
		path := filepath.Join(t.TempDir(), "hs.onnx")
		if err := os.WriteFile(path, hardswishModel(opset), 0o644); err != nil {
			t.Fatal(err)
		}
		want, _ := compileRun(t, path, false, x)
		got, types := compileRun(t, path, true, x)
		if wantTypes := []string{"HardSwish", "Relu", "Add", "Clip", "Mul", "Div"}; !slices.Equal(types, wantTypes) {
			t.Fatalf("opset %d: nodes %v, want %v", opset, types, wantTypes)
		}
		for k := range want {
			if string(got[k].Buf) != string(want[k].Buf) {
				t.Errorf("opset %d: output %d fused %v, as written %v", opset, k, got[k].F32(), want[k].F32())
			}
		}
	}
}
