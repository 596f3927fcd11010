package formats

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tref-lang/tref/runtime/tensor"
)

func TestLoadAfterLastReleaseFails(t *testing.T) {
	dir := t.TempDir()
	cases := map[string]func(string) error{
		"m.safetensors": func(p string) error {
			return WriteSafetensors(p, []string{"a"}, []*tensor.Dense{sample(tensor.Float32, 3)}, nil)
		},
		"m.npy": func(p string) error { return WriteNpy(p, sample(tensor.Float32, 3)) },
		"m.npz": func(p string) error {
			return WriteNpz(p, []string{"a"}, []*tensor.Dense{sample(tensor.Float32, 3)}, false)
		},
		"m-ubyte": func(p string) error { return os.WriteFile(p, idxBytes(0x08, []int{3}, []float64{1, 2, 3}), 0o644) },
		"m.pt": func(p string) error {
			b, err := os.ReadFile("testdata/torch/module.pt")
			if err != nil {
				return err
			}
			return os.WriteFile(p, b, 0o644)
		},
	}
	for name, write := range cases {
		path := filepath.Join(dir, name)
		if err := write(path); err != nil {
			t.Fatal(err)
		}
		f, err := Open(path, nil)
		if err != nil {
			t.Fatal(err)
		}
		f.Retain() // a lazy ref's hold
		f.Close()  // the opener's hold
		if _, err := f.Entries[0].Load(); err != nil {
			t.Fatalf("%s: load while a holder remains: %v", name, err)
		}
		f.Release()
		_, err = f.Entries[0].Load()
		if err == nil || !strings.Contains(err.Error(), "after the file was closed") {
			t.Fatalf("%s: load after the last release: got %v", name, err)
		}
	}
}

func TestSafetensorsLazyReadsOnlyOnLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.safetensors")
	if err := WriteSafetensors(path, []string{"a", "b"}, []*tensor.Dense{sample(tensor.Float32, 4), sample(tensor.Float32, 2)}, nil); err != nil {
		t.Fatal(err)
	}
	f, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// Rewriting the data bytes in place after open shows through the
	// shared mapping: the data was not copied at open.
	fh, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := fh.Stat()
	if _, err := fh.WriteAt([]byte{0, 0, 0x80, 0x3f}, st.Size()-4); err != nil { // b[1] = 1.0
		t.Fatal(err)
	}
	fh.Close()
	d, err := f.Entries[1].Load()
	if err != nil {
		t.Fatal(err)
	}
	if d.F32()[1] != 1 {
		t.Fatalf("b[1] = %v after rewriting the file under the mapping; want 1 (read on load)", d.F32()[1])
	}
}

func TestLoadChecksHostLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.safetensors")
	if err := WriteSafetensors(path, []string{"big"}, []*tensor.Dense{sample(tensor.Float32, 1000)}, nil); err != nil {
		t.Fatal(err)
	}
	refuse := errors.New("over the host limit")
	f, err := Open(path, &Options{Check: func(n int64) error {
		if n > 1000 {
			return fmt.Errorf("%d bytes: %w", n, refuse)
		}
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Entries[0].Load(); !errors.Is(err, refuse) || !strings.Contains(err.Error(), path) {
		t.Fatalf("load over the limit: got %v", err)
	}
}

func TestAtomicWriteKeepsOldFileOnFailure(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.npy")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("disk full")
	err := writeAtomic(path, func(w io.Writer) error {
		w.Write(make([]byte, 3<<20)) // past the buffer, so the temp file has data
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("got %v, want the writer's error", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Fatalf("target changed to %d bytes after a failed write", len(b))
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("temporary files left behind: %v", ents)
	}
	// A dtype the format cannot store fails before touching anything.
	if err := WriteNpy(path, sample(tensor.BFloat16, 2)); err == nil {
		t.Fatal("bfloat16 npy was written")
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Fatal("target changed after a refused write")
	}
	// A successful write replaces it and leaves no temporary file.
	if err := WriteNpy(path, sample(tensor.Uint8, 2)); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("temporary files left behind: %v", ents)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
		t.Fatalf("saved file mode %v, want 0644", st.Mode().Perm())
	}
}

func TestKindOf(t *testing.T) {
	cases := map[string]Kind{
		"m.safetensors": Safetensors, "a/B.NPY": Npy, "x.npz": Npz, "iris.csv": CSV, "digits.csv.gz": CSV,
		"t10k-images-idx3-ubyte": IDX, "t10k-images-idx3-ubyte.gz": IDX, "train-images.idx3-ubyte": IDX,
		"labels.idx1": IDX, "data.idx": IDX, "x.idx.gz": IDX, "model.bin": Unknown, "idx": Unknown, "x.gz": Unknown,
		"model.pt": Torch, "ckpt/Model.PTH": Torch, "x.pt.gz": Unknown, "x.ptx": Unknown,
	}
	for name, want := range cases {
		if got := KindOf(name); got != want {
			t.Errorf("KindOf(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestCSVSizeLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.csv.gz")
	text := strings.Repeat("1,2,3,4\n", 10000) // 80 000 bytes of text
	if err := os.WriteFile(path, gzipBytes([]byte(text)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Open(path, &Options{MaxText: 50000})
	if err == nil || !strings.Contains(err.Error(), "text exceeds the limit of 50000 bytes") {
		t.Fatalf("decompressing past MaxText: got %v", err)
	}
	f, err := Open(path, &Options{MaxText: 100000})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if !f.Entries[0].Meta.Shape.Equal(tensor.Shape{10000, 4}) {
		t.Fatalf("loaded %v, want [10000, 4]", f.Entries[0].Meta)
	}
}
