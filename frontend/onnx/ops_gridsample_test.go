package onnx

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/tref-lang/tref/runtime/tensor"
)

// TestGridSampleAgainstTorch runs GridSample in every mode, padding mode
// and align_corners on a grid reaching past the borders, against
// F.grid_sample (testdata/gen_gridsample.py).
func TestGridSampleAgainstTorch(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "gridsample.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		X, Grid []float32
		Cases   []struct {
			Mode, Padding string
			Align         bool
			Y             []float64
		}
	}
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	for _, c := range ref.Cases {
		t.Run(fmt.Sprintf("%s/%s/align=%v", c.Mode, c.Padding, c.Align), func(t *testing.T) {
			align := int64(0)
			if c.Align {
				align = 1
			}
			node := encNode("GridSample", []string{"x", "grid"}, []string{"y"},
				encAttrString("mode", c.Mode), encAttrString("padding_mode", c.Padding), encAttrInt("align_corners", align))
			inits := [][]byte{encTensorF32("grid", []int64{1, 3, 5, 2}, ref.Grid)}
			model := encModel(16, encGraph([][]byte{node}, inits, [][]byte{encValue("x", Float, 1, 2, 3, 4)}, [][]byte{encValue("y", Float, 1, 2, 3, 5)}))
			x := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{1, 2, 3, 4}, DType: tensor.Float32})
			copy(x.F32(), ref.X)
			got := runOneInput(t, model, x)
			if got.Numel() != len(c.Y) {
				t.Fatalf("got %v, want %d elements", got.Meta, len(c.Y))
			}
			for i, w := range c.Y {
				if g := got.At(i); math.Abs(g-w) > 1e-5+1e-4*math.Abs(w) {
					t.Errorf("element %d: got %v, want %v", i, g, w)
				}
			}
		})
	}
}
