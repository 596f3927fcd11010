package onnx

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// The model files other packages' tests load (spec/onnx.tr), built with
// this package's test encoder. go test ./frontend/onnx -run Fixtures
// -update rewrites them; otherwise the committed files must match.

// mlpModel is y = relu(x W1 + b1) W2 * scale, with h = relu(...) as a
// second output; x is [N, 3] with a symbolic batch, scale a 0-d input.
func mlpModel() []byte {
	w1 := make([]float32, 12)
	for i := range w1 {
		w1[i] = 0.1 * float32(i)
	}
	inits := [][]byte{
		encTensorF32("W1", []int64{3, 4}, w1),
		encTensorF32("b1", []int64{4}, []float32{0.5, -0.5, 0, 1}),
		encTensorF32("W2", []int64{4, 2}, []float32{1, 0, 0, 1, 1, 1, -1, 0.5}),
	}
	nodes := [][]byte{
		encNode("Gemm", []string{"x", "W1", "b1"}, []string{"g"}),
		encNode("Relu", []string{"g"}, []string{"h"}),
		encNode("MatMul", []string{"h", "W2"}, []string{"z"}),
		encNode("Mul", []string{"z", "scale"}, []string{"y"}),
	}
	ins := [][]byte{encValue("x", Float, -1, 3), encValue("scale", Float)}
	outs := [][]byte{encValue("y", Float, -1, 2), encValue("h", Float, -1, 4)}
	return encModel(13, encGraph(nodes, inits, ins, outs))
}

// unsupportedModel has a node tref cannot run.
func unsupportedModel() []byte {
	nodes := [][]byte{encNode("StringNormalizer", []string{"x"}, []string{"y"})}
	return encModel(13, encGraph(nodes, nil, [][]byte{encValue("x", Float, 2)}, [][]byte{encValue("y", Float, 2)}))
}

func TestFixtures(t *testing.T) {
	files := map[string][]byte{
		"mlp.onnx":         mlpModel(),
		"unsupported.onnx": unsupportedModel(),
	}
	dir := filepath.Join("..", "..", "spec", "testdata")
	for name, want := range files {
		p := filepath.Join(dir, name)
		if *update {
			if err := os.WriteFile(p, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(p)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s is stale or missing (%v): go test ./frontend/onnx -run Fixtures -update", p, err)
		}
	}
}
