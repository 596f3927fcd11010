package onnx

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

func writeModel(t *testing.T, dir string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, "model.onnx")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// linearModel is y = x @ w + b with w, b initializers.
func linearModel() []byte {
	w := encTensorF32("w", []int64{2, 3}, []float32{1, 2, 3, 4, 5, 6})
	bias := encTensorI64("shape", []int64{2}, []int64{-1, 3})
	nodes := [][]byte{encNode("MatMul", []string{"x", "w"}, []string{"y"})}
	return encModel(13, encGraph(nodes, [][]byte{w, bias}, [][]byte{encValue("x", Float, -1, 2)}, [][]byte{encValue("y", Float, -1, 3)}))
}

func TestDecodeModel(t *testing.T) {
	f, err := Open(writeModel(t, t.TempDir(), linearModel()), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m := f.Model
	if m.Opsets[""] != 13 || m.IRVersion != 8 || m.Producer != "tref-test" {
		t.Errorf("model header: %+v", m)
	}
	g := m.Graph
	if len(g.Nodes) != 1 || g.Nodes[0].OpType != "MatMul" || len(g.Initializers) != 2 {
		t.Fatalf("graph: %+v", g)
	}
	x := g.Inputs[0]
	if x.Name != "x" || x.Type.Elem != Float || x.Type.Shape[0].Param != "N" || x.Type.Shape[1].Value != 2 {
		t.Errorf("input: %+v", x)
	}
	w, err := f.Load(g.Initializers[0])
	if err != nil {
		t.Fatal(err)
	}
	if !w.Shape.Equal(tensor.Shape{2, 3}) || w.F32()[5] != 6 {
		t.Errorf("w = %v %v", w.Shape, w.F32())
	}
	s, err := f.Load(g.Initializers[1])
	if err != nil {
		t.Fatal(err)
	}
	if s.DType != tensor.Int64 || s.I64()[0] != -1 || s.I64()[1] != 3 {
		t.Errorf("shape = %v", s.I64())
	}
}

func TestExternalData(t *testing.T) {
	dir := t.TempDir()
	data := make([]byte, 8+12)
	for i, v := range []byte{0, 0, 0x80, 0x3f, 0, 0, 0, 0x40, 0, 0, 0x40, 0x40} { // 1, 2, 3
		data[8+i] = v
	}
	if err := os.WriteFile(filepath.Join(dir, "w.bin"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		loc  string
		off  int64
		want string
	}{
		{"w.bin", 8, ""},
		{"w.bin", 12, "outside w.bin"},
		{"../w.bin", 8, "outside the model's folder"},
		{"/etc/passwd", 0, "outside the model's folder"},
		{"missing.bin", 0, "missing.bin"},
		{"link.bin", 8, "leads outside"},
	}
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(dir, "link.bin")); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		w := encExternal("w", []int64{3}, c.loc, c.off, 12)
		p := writeModel(t, dir, encModel(13, encGraph(nil, [][]byte{w}, nil, nil)))
		f, err := Open(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		d, err := f.Load(f.Model.Graph.Initializers[0])
		f.Close()
		if c.want == "" {
			if err != nil || d.F32()[2] != 3 {
				t.Errorf("%s: %v %v", c.loc, err, d)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s at %d: got %v, want an error with %q", c.loc, c.off, err, c.want)
		}
	}
}

// nest wraps a graph in depth levels of If-node then_branch attributes.
func nest(depth int) []byte {
	g := encGraph(nil, nil, nil, nil)
	for range depth {
		g = encGraph([][]byte{encNode("If", []string{"c"}, []string{"y"}, encAttrGraph("then_branch", g))}, nil, nil, nil)
	}
	return g
}

func TestHostileFiles(t *testing.T) {
	dims := func(n int) []int64 {
		d := make([]int64, n)
		for i := range d {
			d[i] = 2
		}
		return d
	}
	huge := encTensorHead("w", Float, []int64{1 << 30, 1 << 30, 1 << 30})
	cases := []struct {
		name string
		file []byte
		// open is the error Open gives; load the error of loading the
		// first initializer.
		open, load string
	}{
		{"empty", nil, "no graph", ""},
		{"garbage", []byte("\xff\xff\xff\xff"), "bad field tag", ""},
		{"truncated", linearModel()[:40], "field 7", ""},
		{"not onnx", []byte("hello, world\n"), "", ""},
		{"deep graphs", encModel(13, nest(MaxDepth+1)), "nested more than 16 deep", ""},
		{"fine nesting", encModel(13, nest(3)), "", ""},
		{"rank", encModel(13, encGraph(nil, [][]byte{encTensorF32("w", dims(MaxRank+1), nil)}, nil, nil)), "more than 32 dimensions", ""},
		{"huge dims", encModel(13, encGraph(nil, [][]byte{huge}, nil, nil)), "", "more than 1099511627776 elements"},
		{"negative dim", encModel(13, encGraph(nil, [][]byte{encTensorF32("w", []int64{-1}, nil)}, nil, nil)), "", "dimension 0 of -1"},
		{"raw too short", encModel(13, encGraph(nil, [][]byte{encTensorF32("w", []int64{4}, []float32{1})}, nil, nil)), "", "raw_data of 4 bytes, expected 16"},
		{"typed too short", encModel(13, encGraph(nil, [][]byte{encTensorI64("w", []int64{1 << 20}, []int64{1})}, nil, nil)), "", "cannot hold its 1048576 elements"},
		{"no data", encModel(13, encGraph(nil, [][]byte{encTensorHead("w", Float, []int64{3})}, nil, nil)), "", "has no data"},
		{"strings", encModel(13, encGraph(nil, [][]byte{encTensorHead("w", String, []int64{3})}, nil, nil)), "", "no string tensors"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, err := Open(writeModel(t, t.TempDir(), c.file), &Options{Check: func(n int64) error {
				if n > 1<<30 {
					t.Fatalf("asked to allocate %d bytes", n)
				}
				return nil
			}})
			if c.name == "not onnx" {
				if err == nil {
					f.Close()
					t.Fatal("text decoded as a model")
				}
				return
			}
			if c.open != "" {
				if err == nil || !strings.Contains(err.Error(), c.open) {
					t.Fatalf("Open: %v, want %q", err, c.open)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if c.load == "" {
				return
			}
			_, err = f.Load(f.Model.Graph.Initializers[0])
			if err == nil || !strings.Contains(err.Error(), c.load) {
				t.Fatalf("Load: %v, want %q", err, c.load)
			}
		})
	}
}

// TestDuplicateInitializers: two initializers of one name are an error
// at compile time, with nothing left alive (the second used to hide, and
// leak, the first).
func TestDuplicateInitializers(t *testing.T) {
	w := encTensorF32("w", []int64{2}, []float32{1, 2})
	model := encModel(13, encGraph(nil, [][]byte{w, w}, nil, nil))
	f, err := Open(writeModel(t, t.TempDir(), model), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rt := refs.New(&cpu.Device{}, refs.Options{Lookahead: 8, TrackRefs: true})
	_, err = Compile(rt, refs.Site{}, f)
	if err == nil || !strings.Contains(err.Error(), `initializer 1: "w" is already defined by an earlier initializer`) {
		t.Fatalf("Compile: %v, want the repeated name", err)
	}
	if n := rt.LiveRefs(); n != 0 {
		t.Errorf("%d refs alive after the failed compile", n)
	}
}

// TestGemmNeedsMatrices: Gemm of a vector is a positioned error, not a
// Go panic (found by FuzzRun).
func TestGemmNeedsMatrices(t *testing.T) {
	model := encModel(13, encGraph([][]byte{encNode("Gemm", []string{"x", "w"}, []string{"y"})},
		[][]byte{encTensorF32("w", []int64{3}, []float32{1, 2, 3})},
		[][]byte{encValue("x", Float, 2, 3)}, [][]byte{encValue("y", Float, 2)}))
	f, err := Open(writeModel(t, t.TempDir(), model), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rt := refs.New(&cpu.Device{}, refs.Options{Lookahead: 8, TrackRefs: true})
	p, err := Compile(rt, refs.Site{}, f)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Release(rt)
	x := rt.FromHost(refs.Site{}, tensor.NewDense(tensor.Meta{Shape: tensor.Shape{2, 3}, DType: tensor.Float32}))
	defer rt.Release(x)
	_, err = p.Run(rt, refs.Site{}, []*refs.Ref{x})
	if err == nil || !strings.Contains(err.Error(), "A and B must be matrices, not of shapes [2, 3] and [3]") {
		t.Fatalf("Run: %v, want the shapes named", err)
	}
}
