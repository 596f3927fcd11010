package stdlib

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/lang/pos"
	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/formats"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// ioThread makes a thread whose calls come from a script in dir, so
// relative paths resolve there.
func ioThread(t *testing.T, dir string) *eval.Thread {
	t.Helper()
	rt := refs.New(&cpu.Device{}, refs.Options{Lookahead: 8, TrackRefs: true})
	th := eval.NewThread(rt)
	th.SetSite(refs.Site{Pos: pos.Pos{File: filepath.Join(dir, "script.tr"), Line: 3, Col: 9}})
	t.Cleanup(func() {
		if err := rt.Flush(); err != nil {
			t.Error(err)
		}
		if n := rt.LiveRefs(); n != 0 {
			t.Errorf("%d refs leaked: %v", n, rt.Leaks())
		}
	})
	return th
}

func callIO(t *testing.T, th *eval.Thread, name string, args ...eval.Value) (eval.Value, error) {
	t.Helper()
	return eval.CallBuiltin(th, Universe()[name], args, nil)
}

func hostTensor(th *eval.Thread, dt tensor.DType, shape tensor.Shape, vals ...float64) eval.Value {
	d := tensor.NewDense(tensor.Meta{Shape: shape, DType: dt})
	for i, v := range vals {
		d.Set(i, v)
	}
	return eval.Tensor{Ref: th.RT.FromHost(th.Site(), d)}
}

func readAll(t *testing.T, th *eval.Thread, v eval.Value) *tensor.Dense {
	t.Helper()
	d, err := th.RT.Read(v.(eval.Tensor).Ref)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestSaveLoadRecordIsLazy(t *testing.T) {
	dir := t.TempDir()
	th := ioThread(t, dir)
	w := hostTensor(th, tensor.Float32, tensor.Shape{2, 2}, 1, 2, 3, 4)
	b := hostTensor(th, tensor.Int64, tensor.Shape{2}, -5, 7)
	inner := eval.NewRecord([]string{"weight", "bias"}, []eval.Value{w, b})
	rec := eval.NewRecord([]string{"fc1", "scale"}, []eval.Value{inner, eval.Float64(0.5)})
	defer eval.Release(th.RT, rec)
	for _, name := range []string{"m.safetensors", "m.npz"} {
		if _, err := callIO(t, th, "save", eval.String(name), rec); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Fatalf("save did not write next to the script: %v", err)
		}
		var loads []refs.LoadEvent
		th.RT.SetLoadObserver(func(ev refs.LoadEvent) { loads = append(loads, ev) })
		v, err := callIO(t, th, "load", eval.String(name))
		if err != nil {
			t.Fatal(err)
		}
		m := v.(*eval.Record)
		if strings.Join(m.Keys, " ") != "fc1.weight fc1.bias scale" {
			t.Fatalf("%s: keys %q", name, m.Keys)
		}
		for _, val := range m.Values {
			if r := val.(eval.Tensor).Ref; r.Device() != "disk" {
				t.Fatalf("%s: %v is on %q before use, want disk", name, r, r.Device())
			}
		}
		fc1w, _ := m.Get("fc1.weight")
		if d := readAll(t, th, fc1w); d.DType != tensor.Float32 || d.F32()[3] != 4 {
			t.Fatalf("%s: fc1.weight loaded as %v %v", name, d.Meta, d.F32())
		}
		bias, _ := m.Get("fc1.bias")
		if d := readAll(t, th, bias); d.I64()[0] != -5 || d.I64()[1] != 7 {
			t.Fatalf("%s: fc1.bias %v", name, d.I64())
		}
		scale, _ := m.Get("scale")
		if d := readAll(t, th, scale); d.DType != tensor.Float64 || len(d.Shape) != 0 || d.F64()[0] != 0.5 {
			t.Fatalf("%s: scale %v %v", name, d.Meta, d.F64())
		}
		if len(loads) != 3 || loads[0].Bytes != 16 {
			t.Fatalf("%s: %d disk->host load events (first %+v), want 3 of which the first is 16 bytes", name, len(loads), loads)
		}
		th.RT.SetLoadObserver(nil)
		eval.Release(th.RT, v)
	}
}

func TestLoadReleasesFileWithLastRef(t *testing.T) {
	dir := t.TempDir()
	th := ioThread(t, dir)
	path := filepath.Join(dir, "m.safetensors")
	d := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{3}, DType: tensor.Float32})
	if err := formats.WriteSafetensors(path, []string{"a", "b"}, []*tensor.Dense{d, d}, nil); err != nil {
		t.Fatal(err)
	}
	v, err := callIO(t, th, "load", eval.String(path))
	if err != nil {
		t.Fatal(err)
	}
	if n := openMappings(t, path); n != 1 {
		t.Fatalf("%d mappings of the file after load, want 1", n)
	}
	m := v.(*eval.Record)
	readAll(t, th, m.Values[0]) // loads a: b still holds the mapping
	if n := openMappings(t, path); n != 1 {
		t.Fatalf("%d mappings after loading one of two tensors, want 1", n)
	}
	eval.Release(th.RT, v) // frees b unloaded: the last holder
	if n := openMappings(t, path); n != 0 {
		t.Fatalf("%d mappings after the last ref died, want 0", n)
	}
}

// openMappings counts this process's memory mappings of path.
func openMappings(t *testing.T, path string) int {
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Skip("no /proc/self/maps")
	}
	abs, _ := filepath.Abs(path)
	return bytes.Count(maps, []byte(abs+"\n"))
}

func TestLoadSingleTensorFormats(t *testing.T) {
	dir := t.TempDir()
	th := ioThread(t, dir)
	x := hostTensor(th, tensor.Float64, tensor.Shape{3}, 1.5, -2, 8)
	defer eval.Release(th.RT, x)
	if _, err := callIO(t, th, "save", eval.String("x.npy"), x); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "d.csv"), []byte("a,b\n1,2\n3,4\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "l-idx1-ubyte"), []byte{0, 0, 8, 1, 0, 0, 0, 2, 9, 4}, 0o644)
	cases := []struct {
		name string
		want tensor.Meta
		last float64
	}{
		{"x.npy", tensor.Meta{Shape: tensor.Shape{3}, DType: tensor.Float64}, 8},
		{"d.csv", tensor.Meta{Shape: tensor.Shape{2, 2}, DType: tensor.Float32}, 4},
		{"l-idx1-ubyte", tensor.Meta{Shape: tensor.Shape{2}, DType: tensor.Uint8}, 4},
	}
	for _, c := range cases {
		v, err := callIO(t, th, "load", eval.String(c.name))
		if err != nil {
			t.Fatal(err)
		}
		d := readAll(t, th, v)
		if !d.Shape.Equal(c.want.Shape) || d.DType != c.want.DType || d.At(d.Numel()-1) != c.last {
			t.Fatalf("%s: loaded %v ending in %v, want %v ending in %v", c.name, d.Meta, d.At(d.Numel()-1), c.want, c.last)
		}
		eval.Release(th.RT, v)
	}
}

func TestLoadSaveErrors(t *testing.T) {
	dir := t.TempDir()
	th := ioThread(t, dir)
	x := hostTensor(th, tensor.Float32, tensor.Shape{2}, 1, 2)
	defer eval.Release(th.RT, x)
	rec := eval.NewRecord([]string{"x", "name"}, []eval.Value{x, eval.String("hi")})
	eval.Retain(th.RT, x)
	defer eval.Release(th.RT, rec)
	os.WriteFile(filepath.Join(dir, "bad.npy"), []byte("not numpy"), 0o644)
	cases := []struct {
		fn   string
		args []eval.Value
		want string
	}{
		{"load", []eval.Value{eval.String("missing.safetensors")}, "no such file"},
		{"load", []eval.Value{eval.String("bad.npy")}, "bad.npy: npy: bad magic"},
		{"load", []eval.Value{eval.String("model.bin")}, "unknown file type"},
		{"save", []eval.Value{eval.String("x.safetensors"), x}, "stores a record of tensors"},
		{"save", []eval.Value{eval.String("x.npy"), rec}, ".npy stores one tensor"},
		{"save", []eval.Value{eval.String("x.csv"), x}, "must end in .safetensors, .npz"},
		{"save", []eval.Value{eval.String("r.safetensors"), rec}, `"name" is string; only tensors can be saved`},
	}
	for _, c := range cases {
		_, err := callIO(t, th, c.fn, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s(%v): got %v, want an error containing %q", c.fn, c.args[0], err, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "r.safetensors")); !os.IsNotExist(err) {
		t.Fatal("a failed save left a file behind")
	}
}

func TestLoadKeepsHalf(t *testing.T) {
	dir := t.TempDir()
	th := ioThread(t, dir)
	var names []string
	var ts []*tensor.Dense
	for _, dt := range []tensor.DType{tensor.Float16, tensor.BFloat16} {
		h := tensor.NewDense(tensor.Meta{Shape: tensor.Shape{2}, DType: dt})
		h.Set(0, 1.5)
		h.Set(1, -3)
		names, ts = append(names, dt.String()), append(ts, h)
	}
	path := filepath.Join(dir, "h.safetensors")
	if err := formats.WriteSafetensors(path, names, ts, nil); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	old := noteOut
	noteOut = &buf
	defer func() { noteOut = old }()
	v, err := callIO(t, th, "load", eval.String("h.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	defer eval.Release(th.RT, v)
	for i, name := range names {
		hv, _ := v.(*eval.Record).Get(name)
		if d := readAll(t, th, hv); d.DType != ts[i].DType || !bytes.Equal(d.Buf, ts[i].Buf) {
			t.Fatalf("%s tensor loaded as %v %v", name, d.Meta, d.Buf)
		}
	}
	if got := buf.String(); got != "" {
		t.Fatalf("notes printed: %q; want none", got)
	}
}
