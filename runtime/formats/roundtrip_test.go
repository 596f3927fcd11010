package formats

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tref-lang/tref/runtime/tensor"
)

// sample makes a tensor whose elements differ and cover negative values,
// fractions (for floats) and, for bool, both values.
func sample(dt tensor.DType, shape ...int) *tensor.Dense {
	d := tensor.NewDense(tensor.Meta{Shape: tensor.Shape(shape), DType: dt})
	for i := range d.Numel() {
		v := float64(i%17) - 5.25
		switch dt {
		case tensor.Int64:
			v = float64(int64(i)*7919%2001 - 1000)
		case tensor.Uint8:
			v = float64(i * 37 % 256)
		case tensor.Bool:
			v = float64(i % 3 % 2)
		}
		d.Set(i, v)
	}
	return d
}

var allDTypes = []tensor.DType{tensor.Bool, tensor.Uint8, tensor.Int64, tensor.Float16, tensor.BFloat16, tensor.Float32, tensor.Float64,
	tensor.Int8, tensor.Int16, tensor.Int32, tensor.Uint16, tensor.Uint32, tensor.Uint64}

var shapes = []tensor.Shape{{}, {0}, {5}, {2, 3}, {2, 0, 4}, {3, 1, 2, 2}}

func sameDense(t *testing.T, what string, got, want *tensor.Dense) {
	t.Helper()
	if got.DType != want.DType || !got.Shape.Equal(want.Shape) {
		t.Fatalf("%s: got %v, want %v", what, got.Meta, want.Meta)
	}
	if !bytes.Equal(got.Buf, want.Buf) {
		t.Fatalf("%s: data differs\n got %v\nwant %v", what, got.Buf, want.Buf)
	}
}

// toF32 converts a half tensor to the float32 tensor a load without
// KeepHalf gives.
func toF32(d *tensor.Dense) *tensor.Dense {
	out := tensor.NewDense(tensor.Meta{Shape: d.Shape, DType: tensor.Float32})
	for i := range d.Numel() {
		out.F32()[i] = float32(d.At(i))
	}
	return out
}

func loadAll(t *testing.T, path string, opts *Options) (*File, []*tensor.Dense) {
	t.Helper()
	f, err := Open(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []*tensor.Dense
	for i := range f.Entries {
		d, err := f.Entries[i].Load()
		if err != nil {
			t.Fatalf("%s: entry %q: %v", path, f.Entries[i].Name, err)
		}
		if !d.Shape.Equal(f.Entries[i].Meta.Shape) || d.DType != f.Entries[i].Meta.DType {
			t.Fatalf("%s: entry %q loaded as %v but declared %v", path, f.Entries[i].Name, d.Meta, f.Entries[i].Meta)
		}
		out = append(out, d)
	}
	return f, out
}

func TestSafetensorsRoundTrip(t *testing.T) {
	dir := t.TempDir()
	var names []string
	var ts []*tensor.Dense
	for _, dt := range allDTypes {
		for j, s := range shapes {
			names = append(names, dt.String()+"."+string(rune('a'+j)))
			ts = append(ts, sample(dt, s...))
		}
	}
	path := filepath.Join(dir, "all.safetensors")
	meta := map[string]string{"format": "pt", "note": "round trip"}
	if err := WriteSafetensors(path, names, ts, meta); err != nil {
		t.Fatal(err)
	}
	for _, keep := range []bool{true, false} {
		f, got := loadAll(t, path, &Options{KeepHalf: keep})
		if len(got) != len(ts) {
			t.Fatalf("loaded %d tensors, wrote %d", len(got), len(ts))
		}
		if f.Metadata["format"] != "pt" || f.Metadata["note"] != "round trip" || len(f.Metadata) != 2 {
			t.Fatalf("metadata %v, want %v", f.Metadata, meta)
		}
		for i, d := range got {
			if f.Entries[i].Name != names[i] {
				t.Fatalf("entry %d is %q, want %q (file order)", i, f.Entries[i].Name, names[i])
			}
			want := ts[i]
			if !keep && (want.DType == tensor.Float16 || want.DType == tensor.BFloat16) {
				want = toF32(want)
			}
			sameDense(t, names[i], d, want)
		}
		if keep == (len(f.Notes) != 0) {
			t.Fatalf("KeepHalf=%v: notes %q", keep, f.Notes)
		}
	}
}

func TestSafetensorsLayoutAligned(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.safetensors")
	names := []string{"u", "f", "b"}
	ts := []*tensor.Dense{sample(tensor.Uint8, 3), sample(tensor.Float64, 2), sample(tensor.Bool, 1)}
	if err := WriteSafetensors(path, names, ts, nil); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(path)
	n := binary.LittleEndian.Uint64(raw)
	if n%8 != 0 {
		t.Fatalf("header length %d is not a multiple of 8", n)
	}
	infos, _, err := parseSTHeader(raw[8 : 8+n])
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range infos {
		if in.begin%int64(in.raw.size()) != 0 {
			t.Fatalf("tensor %q starts at %d, not aligned to %d", in.name, in.begin, in.raw.size())
		}
	}
	if infos[0].name != "u" || infos[1].name != "f" || infos[1].begin != 0 {
		t.Fatalf("header order or layout unexpected: %+v", infos)
	}
}

func TestNpyRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for _, dt := range allDTypes {
		for _, s := range shapes {
			d := sample(dt, s...)
			path := filepath.Join(dir, "x.npy")
			err := WriteNpy(path, d)
			if dt == tensor.BFloat16 {
				if err == nil || !strings.Contains(err.Error(), "npy has no bfloat16") {
					t.Fatalf("writing bfloat16 npy: got %v", err)
				}
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := os.ReadFile(path)
			if hl := int(binary.LittleEndian.Uint16(raw[8:])); (10+hl)%64 != 0 || raw[10+hl-1] != '\n' {
				t.Fatalf("%v%v: header of %d bytes is not padded to 64 with a newline", dt, s, hl)
			}
			_, got := loadAll(t, path, &Options{KeepHalf: true})
			sameDense(t, dt.String()+s.String(), got[0], d)
		}
	}
}

func TestNpzRoundTrip(t *testing.T) {
	dir := t.TempDir()
	names := []string{"w", "b", "ids", "mask", "h"}
	ts := []*tensor.Dense{sample(tensor.Float32, 4, 3), sample(tensor.Float64, 3), sample(tensor.Int64, 7), sample(tensor.Bool, 2, 2), sample(tensor.Float16, 5)}
	for _, compress := range []bool{false, true} {
		path := filepath.Join(dir, "m.npz")
		if err := WriteNpz(path, names, ts, compress); err != nil {
			t.Fatal(err)
		}
		f, got := loadAll(t, path, nil)
		for i := range ts {
			want := ts[i]
			if want.DType == tensor.Float16 {
				want = toF32(want)
			}
			if f.Entries[i].Name != names[i] {
				t.Fatalf("entry %d named %q, want %q", i, f.Entries[i].Name, names[i])
			}
			sameDense(t, names[i], got[i], want)
		}
	}
	if err := WriteNpz(filepath.Join(dir, "bad.npz"), []string{"a", "a"}, ts[:2], false); err == nil || !strings.Contains(err.Error(), "duplicate tensor name") {
		t.Fatalf("duplicate names: got %v", err)
	}
}

// idxBytes encodes an IDX file by hand: big-endian dims and data.
func idxBytes(code byte, shape []int, vals []float64) []byte {
	var b bytes.Buffer
	b.Write([]byte{0, 0, code, byte(len(shape))})
	for _, s := range shape {
		binary.Write(&b, binary.BigEndian, uint32(s))
	}
	for _, v := range vals {
		switch code {
		case 0x08:
			b.WriteByte(uint8(v))
		case 0x09:
			b.WriteByte(byte(int8(v)))
		case 0x0B:
			binary.Write(&b, binary.BigEndian, int16(v))
		case 0x0C:
			binary.Write(&b, binary.BigEndian, int32(v))
		case 0x0D:
			binary.Write(&b, binary.BigEndian, float32(v))
		case 0x0E:
			binary.Write(&b, binary.BigEndian, v)
		}
	}
	return b.Bytes()
}

func gzipBytes(b []byte) []byte {
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	zw.Write(b)
	zw.Close()
	return out.Bytes()
}

func TestIDXTypes(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		code byte
		dt   tensor.DType
		vals []float64
	}{
		{0x08, tensor.Uint8, []float64{0, 1, 127, 128, 200, 255}},
		{0x09, tensor.Int8, []float64{-128, -1, 0, 1, 100, 127}},
		{0x0B, tensor.Int16, []float64{-32768, -2, 0, 3, 1000, 32767}},
		{0x0C, tensor.Int32, []float64{-2147483648, -70000, 0, 5, 70000, 2147483647}},
		{0x0D, tensor.Float32, []float64{-1.5, 0, 0.25, 3e10, float64(math.SmallestNonzeroFloat32), 1}},
		{0x0E, tensor.Float64, []float64{-1.5, 0, 0.1, 3e300, math.Inf(1), 1}},
	}
	for _, c := range cases {
		raw := idxBytes(c.code, []int{2, 3}, c.vals)
		for _, zipped := range []bool{false, true} {
			name, data := "x-ubyte", raw
			if zipped {
				name, data = "x-ubyte.gz", gzipBytes(raw)
			}
			path := filepath.Join(dir, name)
			os.WriteFile(path, data, 0o644)
			_, got := loadAll(t, path, nil)
			d := got[0]
			if d.DType != c.dt || !d.Shape.Equal(tensor.Shape{2, 3}) {
				t.Fatalf("type 0x%02x: loaded %v, want %v[2, 3]", c.code, d.Meta, c.dt)
			}
			for i, v := range c.vals {
				if d.At(i) != tensor.RoundF32(v) && d.At(i) != v {
					t.Fatalf("type 0x%02x element %d: %v, want %v", c.code, i, d.At(i), v)
				}
			}
		}
	}
}

func TestCSV(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(text), 0o644)
		return p
	}
	cases := []struct {
		name, text string
		shape      tensor.Shape
		vals       []float32
	}{
		{"plain.csv", "1,2,3\n4,5,6\n", tensor.Shape{2, 3}, []float32{1, 2, 3, 4, 5, 6}},
		{"header.csv", "a,b\n0.5, -1e3\n\n# comment\n7,8", tensor.Shape{2, 2}, []float32{0.5, -1000, 7, 8}},
		{"iris-like.csv", "150,4,setosa,versicolor\n5.1,3.5,1.4,0.2,0\n", tensor.Shape{1, 5}, []float32{5.1, 3.5, 1.4, 0.2, 0}},
		{"crlf.csv", "x\r\n1\r\n2\r\n", tensor.Shape{2, 1}, []float32{1, 2}},
		{"special.csv", "nan,inf,-inf,1e40\n", tensor.Shape{1, 4}, []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.Inf(1))}},
	}
	for _, c := range cases {
		_, got := loadAll(t, write(c.name, c.text), nil)
		d := got[0]
		if d.DType != tensor.Float32 || !d.Shape.Equal(c.shape) {
			t.Fatalf("%s: loaded %v, want float32%v", c.name, d.Meta, c.shape)
		}
		for i, v := range c.vals {
			g := d.F32()[i]
			if g != v && !(v != v && g != g) {
				t.Fatalf("%s: element %d is %v, want %v", c.name, i, g, v)
			}
		}
	}
	gz := filepath.Join(dir, "z.csv.gz")
	os.WriteFile(gz, gzipBytes([]byte("1,2\n3,4\n")), 0o644)
	_, got := loadAll(t, gz, nil)
	if !got[0].Shape.Equal(tensor.Shape{2, 2}) || got[0].F32()[3] != 4 {
		t.Fatalf("gzipped csv: %v %v", got[0].Meta, got[0].F32())
	}
}

func TestFortranOrderNpy(t *testing.T) {
	// A 2x3x2 array stored column-major: element (i,j,k) at i + 2j + 6k.
	shape := tensor.Shape{2, 3, 2}
	want := tensor.NewDense(tensor.Meta{Shape: shape, DType: tensor.Int64})
	stored := make([]int64, 12)
	for i := range 2 {
		for j := range 3 {
			for k := range 2 {
				v := int64(100*i + 10*j + k)
				want.I64()[i*6+j*2+k] = v
				stored[i+2*j+6*k] = v
			}
		}
	}
	var b bytes.Buffer
	dict := "{'descr': '<i8', 'fortran_order': True, 'shape': (2, 3, 2), }"
	b.Write(npyMagic)
	b.Write([]byte{1, 0})
	binary.Write(&b, binary.LittleEndian, uint16(len(dict)+1))
	b.WriteString(dict + "\n")
	binary.Write(&b, binary.LittleEndian, stored)
	path := filepath.Join(t.TempDir(), "f.npy")
	os.WriteFile(path, b.Bytes(), 0o644)
	f, got := loadAll(t, path, nil)
	sameDense(t, "fortran", got[0], want)
	if len(f.Notes) == 0 {
		t.Fatal("no note about the Fortran reordering")
	}
}

func TestBigEndianNpy(t *testing.T) {
	var b bytes.Buffer
	dict := "{'descr': '>f4', 'fortran_order': False, 'shape': (3,), }"
	b.Write(npyMagic)
	b.Write([]byte{2, 0})
	binary.Write(&b, binary.LittleEndian, uint32(len(dict)+1))
	b.WriteString(dict + "\n")
	binary.Write(&b, binary.BigEndian, []float32{1.5, -2, 1e-3})
	path := filepath.Join(t.TempDir(), "be.npy")
	os.WriteFile(path, b.Bytes(), 0o644)
	_, got := loadAll(t, path, nil)
	if g := got[0].F32(); g[0] != 1.5 || g[1] != -2 || g[2] != 1e-3 {
		t.Fatalf("big-endian float32: got %v", g)
	}
}
