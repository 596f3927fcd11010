package formats

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tref-lang/tref/runtime/tensor"
)

// fuzzLimit bounds what a fuzzed file may make the loaders allocate.
const fuzzLimit = 64 << 20

var fuzzOpts = &Options{
	KeepHalf: true,
	MaxText:  4 << 20,
	Check: func(n int64) error {
		if n > fuzzLimit {
			return fmt.Errorf("allocating %d bytes would exceed the fuzz limit", n)
		}
		return nil
	},
}

// fuzzLoad writes data to a file called name, opens and loads it. Any
// outcome but a panic is fine, as long as errors are *Error values naming
// the file and successful loads give exactly the declared metas. It
// returns the loaded file and tensors when everything loaded.
func fuzzLoad(t *testing.T, dir, name string, data []byte) (*File, []*tensor.Dense) {
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := Open(path, fuzzOpts)
	if err != nil {
		checkFileError(t, path, err)
		return nil, nil
	}
	defer f.Close()
	var out []*tensor.Dense
	for i := range f.Entries {
		e := &f.Entries[i]
		d, err := e.Load()
		if err != nil {
			checkFileError(t, path, err)
			return nil, nil
		}
		if !d.Shape.Equal(e.Meta.Shape) || d.DType != e.Meta.DType || int64(len(d.Buf)) != e.Meta.Bytes() {
			t.Fatalf("entry %q declared %v, loaded %v with %d bytes", e.Name, e.Meta, d.Meta, len(d.Buf))
		}
		out = append(out, d)
	}
	return f, out
}

func checkFileError(t *testing.T, path string, err error) {
	var fe *Error
	if !errors.As(err, &fe) || fe.Path != path {
		t.Fatalf("error %q (%T) does not name the file", err, err)
	}
}

// reload writes the loaded tensors with write and loads them again: the
// result must be identical (the writers accept whatever the readers give).
func reload(t *testing.T, dir, name string, f *File, ts []*tensor.Dense, write func(path string, names []string, ts []*tensor.Dense) error) {
	names := make([]string, len(f.Entries))
	for i := range f.Entries {
		names[i] = f.Entries[i].Name
	}
	path := filepath.Join(dir, name)
	if err := write(path, names, ts); err != nil {
		t.Fatalf("writing back what was loaded: %v", err)
	}
	g, got := fuzzLoad(t, dir, "check-"+name, mustRead(t, path))
	if g == nil || len(got) != len(ts) {
		t.Fatalf("reloading what was written failed")
	}
	for i := range ts {
		if g.Entries[i].Name != names[i] || !got[i].Shape.Equal(ts[i].Shape) || got[i].DType != ts[i].DType || !bytes.Equal(got[i].Buf, ts[i].Buf) {
			t.Fatalf("tensor %q changed in a write/load round trip: %v -> %v", names[i], ts[i].Meta, got[i].Meta)
		}
	}
}

func mustRead(t *testing.T, path string) []byte {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// seed adds a file written by write, and every file of testdata/corpus
// with the given extension.
func seed(f *testing.F, ext string, write func(path string) error) {
	path := filepath.Join(f.TempDir(), "seed"+ext)
	if err := write(path); err != nil {
		f.Fatal(err)
	}
	f.Add(mustReadF(f, path))
	matches, _ := filepath.Glob(filepath.Join("testdata", "*", "*"+ext))
	for _, m := range matches {
		f.Add(mustReadF(f, m))
	}
}

func mustReadF(f *testing.F, path string) []byte {
	b, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	return b
}

func seedTensors() ([]string, []*tensor.Dense) {
	return []string{"w", "b", "ids", "mask", "h", "bf"}, []*tensor.Dense{
		sample(tensor.Float32, 3, 2), sample(tensor.Float64, 2), sample(tensor.Int64, 3),
		sample(tensor.Bool, 2, 1), sample(tensor.Float16, 2), sample(tensor.BFloat16, 1, 2),
	}
}

func FuzzSafetensors(f *testing.F) {
	names, ts := seedTensors()
	seed(f, ".safetensors", func(p string) error { return WriteSafetensors(p, names, ts, map[string]string{"k": "v"}) })
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		file, got := fuzzLoad(t, dir, "f.safetensors", data)
		if file != nil {
			reload(t, dir, "r.safetensors", file, got, func(p string, n []string, ts []*tensor.Dense) error {
				return WriteSafetensors(p, n, ts, file.Metadata)
			})
		}
	})
}

func FuzzNpy(f *testing.F) {
	seed(f, ".npy", func(p string) error { return WriteNpy(p, sample(tensor.Float32, 2, 3)) })
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		file, got := fuzzLoad(t, dir, "f.npy", data)
		if file != nil {
			reload(t, dir, "r.npy", file, got, func(p string, _ []string, ts []*tensor.Dense) error {
				return WriteNpy(p, ts[0])
			})
		}
	})
}

func FuzzNpz(f *testing.F) {
	names, ts := seedTensors()
	names, ts = names[:5], ts[:5] // npz has no bfloat16
	seed(f, ".npz", func(p string) error { return WriteNpz(p, names, ts, true) })
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		file, got := fuzzLoad(t, dir, "f.npz", data)
		if file != nil {
			reload(t, dir, "r.npz", file, got, func(p string, n []string, ts []*tensor.Dense) error {
				return WriteNpz(p, n, ts, false)
			})
		}
	})
}

func FuzzIDX(f *testing.F) {
	seed(f, "-ubyte", func(p string) error {
		return os.WriteFile(p, idxBytes(0x0C, []int{2, 2}, []float64{1, -2, 3, 70000}), 0o600)
	})
	seed(f, "-ubyte.gz", func(p string) error {
		return os.WriteFile(p, gzipBytes(idxBytes(0x08, []int{3}, []float64{1, 2, 3})), 0o600)
	})
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzLoad(t, t.TempDir(), "f-idx3-ubyte", data)
	})
}

func FuzzCSV(f *testing.F) {
	seed(f, ".csv", func(p string) error { return os.WriteFile(p, []byte("a,b\n1,2.5\n-3,4e2\n"), 0o600) })
	seed(f, ".csv.gz", func(p string) error { return os.WriteFile(p, gzipBytes([]byte("1,2\n3,4\n")), 0o600) })
	f.Fuzz(func(t *testing.T, data []byte) {
		_, got := fuzzLoad(t, t.TempDir(), "f.csv", data)
		if got != nil && (got[0].DType != tensor.Float32 || len(got[0].Shape) != 2) {
			t.Fatalf("csv loaded as %v, want a float32 matrix", got[0].Meta)
		}
	})
}

// FuzzTorch mutates whole checkpoints: the zip structure, the pickle and
// the storages.
func FuzzTorch(f *testing.F) {
	seed(f, ".pt", func(p string) error {
		pkl := newPk().op('}', '(').str("w").tensor("FloatStorage", "0", 6, 1, []int64{2, 2}, []int64{1, 2}).
			str("n").int(3).op('u').stop()
		return os.WriteFile(p, ptArchiveBytes(f, pkl, map[string][]byte{"data/0": make([]byte, 24), "byteorder": []byte("big")}, zip.Store), 0o600)
	})
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzLoad(t, t.TempDir(), "f.pt", data)
	})
}

// FuzzTorchPickle mutates only data.pkl, zipped afresh with the storages
// of a checkpoint torch wrote, so that mutations reach the unpickler and
// the views instead of failing the zip's CRC.
func FuzzTorchPickle(f *testing.F) {
	paths, _ := filepath.Glob("testdata/torch/*.pt")
	var archives []map[string][]byte
	for i, p := range paths {
		zr, err := zip.OpenReader(p)
		if err != nil {
			f.Fatal(err)
		}
		members := map[string][]byte{}
		var pkl []byte
		for _, zf := range zr.File {
			_, name, _ := strings.Cut(zf.Name, "/")
			b := make([]byte, zf.UncompressedSize64)
			if err := readMember(zf, 0, b, true); err != nil {
				f.Fatal(err)
			}
			if name == "data.pkl" {
				pkl = b
			} else {
				members[name] = b
			}
		}
		zr.Close()
		archives = append(archives, members)
		f.Add(pkl, uint8(i))
	}
	if len(archives) < 4 {
		f.Fatalf("only %d checkpoints in testdata/torch", len(archives))
	}
	f.Fuzz(func(t *testing.T, pkl []byte, which uint8) {
		members := archives[int(which)%len(archives)]
		fuzzLoad(t, t.TempDir(), "f.pt", ptArchiveBytes(t, pkl, members, zip.Store))
	})
}
