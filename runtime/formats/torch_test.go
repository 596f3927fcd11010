package formats

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"testing"

	"github.com/tref-lang/tref/runtime/tensor"
)

// golden.json, written by testdata/torch/gen.py with python3-torch and
// numpy, lists every file of testdata/torch and the tensors tref must load
// from it, with their exact values.
type goldenFile struct {
	Files map[string]struct {
		Metadata map[string]string
		Tensors  map[string]struct {
			DType string
			Shape []int
			Data  []any
		}
	}
}

func TestTorchWrittenFiles(t *testing.T) {
	raw, err := os.ReadFile("testdata/torch/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g goldenFile
	if err := json.Unmarshal(raw, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Files) < 15 {
		t.Fatalf("golden.json lists %d files; regenerate it with gen.py", len(g.Files))
	}
	names := make([]string, 0, len(g.Files))
	for n := range g.Files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		want := g.Files[name]
		t.Run(name, func(t *testing.T) {
			f, got := loadAll(t, filepath.Join("testdata/torch", name), nil)
			if len(f.Entries) != len(want.Tensors) {
				t.Fatalf("loaded %d tensors, want %d", len(f.Entries), len(want.Tensors))
			}
			for k, v := range want.Metadata {
				if f.Metadata[k] != v {
					t.Fatalf("metadata %q = %q, want %q", k, f.Metadata[k], v)
				}
			}
			for i, e := range f.Entries {
				w, ok := want.Tensors[e.Name]
				if !ok {
					t.Fatalf("unexpected tensor %q", e.Name)
				}
				d := got[i]
				if d.DType.String() != w.DType || !d.Shape.Equal(tensor.Shape(w.Shape)) {
					t.Fatalf("%q: loaded %v, want %s%v", e.Name, d.Meta, w.DType, w.Shape)
				}
				for j, wv := range w.Data {
					want := goldenValue(t, wv)
					if gv := d.At(j); gv != want && !(math.IsNaN(gv) && math.IsNaN(want)) {
						t.Fatalf("%q element %d: %v, want %v", e.Name, j, gv, want)
					}
				}
				// int64 values beyond 2^53 are compared exactly too.
				if d.DType == tensor.Int64 {
					for j, wv := range w.Data {
						if n, ok := wv.(float64); ok && math.Abs(n) < 1<<53 && d.I64()[j] != int64(n) {
							t.Fatalf("%q element %d: %d, want %v", e.Name, j, d.I64()[j], n)
						}
					}
				}
			}
		})
	}
}

func goldenValue(t *testing.T, v any) float64 {
	switch v := v.(type) {
	case float64:
		return v
	case string:
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			t.Fatalf("golden value %q", v)
		}
		return f
	}
	t.Fatalf("golden value %v of type %T", v, v)
	return 0
}
