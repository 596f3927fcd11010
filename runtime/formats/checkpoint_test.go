package formats

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/tref-lang/tref/runtime/tensor"
)

// pk assembles a pickle opcode by opcode, as torch 1.13 writes them.
type pk struct{ b []byte }

func newPk() *pk { return &pk{b: []byte{0x80, 2}} }

func (p *pk) op(ops ...byte) *pk { p.b = append(p.b, ops...); return p }

// u32 emits an opcode with a 4-byte argument (LONG_BINGET, LONG_BINPUT).
func (p *pk) u32(op byte, n uint32) *pk {
	p.b = binary.LittleEndian.AppendUint32(append(p.b, op), n)
	return p
}

func (p *pk) str(s string) *pk {
	p.b = append(p.b, 'X')
	p.b = binary.LittleEndian.AppendUint32(p.b, uint32(len(s)))
	p.b = append(p.b, s...)
	return p
}

func (p *pk) int(n int64) *pk {
	if n == int64(int32(n)) {
		p.b = append(p.b, 'J')
		p.b = binary.LittleEndian.AppendUint32(p.b, uint32(n))
		return p
	}
	p.b = append(p.b, 0x8a, 8)
	p.b = binary.LittleEndian.AppendUint64(p.b, uint64(n))
	return p
}

func (p *pk) ints(ns ...int64) *pk {
	p.op('(')
	for _, n := range ns {
		p.int(n)
	}
	return p.op('t')
}

func (p *pk) global(module, name string) *pk {
	p.b = append(p.b, 'c')
	p.b = append(p.b, module+"\n"+name+"\n"...)
	return p
}

// tensor emits torch._utils._rebuild_tensor_v2 of a view into the storage
// data/<key> of numel elements of class.
func (p *pk) tensor(class, key string, numel, offset int64, size, stride []int64) *pk {
	p.global("torch._utils", "_rebuild_tensor_v2").op('(')
	p.op('(').str("storage").global("torch", class).str(key).str("cpu").int(numel).op('t', 'Q')
	p.int(offset).ints(size...).ints(stride...).op(0x89)
	p.global("collections", "OrderedDict").op(')', 'R')
	return p.op('t', 'R')
}

func (p *pk) stop() []byte { return append(p.op('.').b, nil...) }

// ptArchiveBytes zips a checkpoint: archive/data.pkl and, under
// archive/, the given members (data/0, byteorder, ...).
func ptArchiveBytes(t testing.TB, pkl []byte, members map[string][]byte, method uint16) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	names := []string{"data.pkl"}
	for n := range members {
		names = append(names, n)
	}
	sort.Strings(names[1:])
	for _, n := range names {
		data := pkl
		if n != "data.pkl" {
			data = members[n]
		}
		w, err := zw.CreateHeader(&zip.FileHeader{Name: "archive/" + n, Method: method})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func writePt(t testing.TB, pkl []byte, members map[string][]byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "m.pt")
	if err := os.WriteFile(p, ptArchiveBytes(t, pkl, members, zip.Store), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestUnpickleValues decodes pickles written by Python's own pickler
// (protocols 2 and 4) of plain values: every int width, floats, UTF-8,
// None and bools, tuples of every arity, an OrderedDict, a list shared
// through the memo.
func TestUnpickleValues(t *testing.T) {
	// pickle.dumps(obj, protocol=p).hex() for obj = {'ints': [0, 255, 256,
	// 65535, 65536, -1, -2**31, 2**31, -2**40, 2**63-1, -2**63, 2**70],
	// 'f': -1.5, 's': 'héllo', 'n': None, 't': True, 'fa': False, 'tup':
	// ((), (1,), (1, 2), (1, 2, 3), (1, 2, 3, 4)), 'od':
	// OrderedDict([('a', 1)]), 'shared': [l, l]} with l = [1].
	pickles := map[int]string{
		2: "80027d7100285804000000696e747371015d7102284b004bff4d00014dffff4a000001004affffffff4a000000808a0500000080008a060000000000ff8a08ffffffffffffff7f8a0800000000000000808a0900000000000000004065580100000066710347bff80000000000005801000000737104580600000068c3a96c6c6f710558010000006e71064e580100000074710788580200000066617108895803000000747570710928294b0185710a4b014b0286710b4b014b024b0387710c284b014b024b034b0474710d74710e58020000006f64710f63636f6c6c656374696f6e730a4f726465726564446963740a71102952711158010000006171124b0173580600000073686172656471135d7114285d71154b0161681565752e",
		4: "800495e9000000000000007d94288c04696e7473945d94284b004bff4d00014dffff4a000001004affffffff4a000000808a0500000080008a060000000000ff8a08ffffffffffffff7f8a0800000000000000808a09000000000000000040658c01669447bff80000000000008c0173948c0668c3a96c6c6f948c016e944e8c017494888c02666194898c037475709428294b0185944b014b0286944b014b024b038794284b014b024b034b04749474948c026f64948c0b636f6c6c656374696f6e73948c0b4f726465726564446963749493942952948c0161944b01738c06736861726564945d94285d944b0161681765752e",
	}
	shared := &pkList{items: []any{int64(1)}}
	want := &pkDict{
		keys: []any{"ints", "f", "s", "n", "t", "fa", "tup", "od", "shared"},
		vals: []any{
			&pkList{items: []any{int64(0), int64(255), int64(256), int64(65535), int64(65536), int64(-1), int64(-1 << 31),
				int64(1 << 31), int64(-1 << 40), int64(1<<63 - 1), int64(-1 << 63), pkBigInt{}}},
			-1.5, "héllo", pkNone{}, true, false,
			pkTuple{pkTuple{}, pkTuple{int64(1)}, pkTuple{int64(1), int64(2)}, pkTuple{int64(1), int64(2), int64(3)},
				pkTuple{int64(1), int64(2), int64(3), int64(4)}},
			&pkDict{keys: []any{"a"}, vals: []any{int64(1)}},
			&pkList{items: []any{shared, shared}},
		},
	}
	for proto, h := range pickles {
		data, _ := hex.DecodeString(h)
		got, err := unpickle(data, &ptArchive{})
		if err != nil {
			t.Fatalf("protocol %d: %v", proto, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("protocol %d: got %#v", proto, got)
		}
		// The shared list is one object, as in Python.
		sh := got.(*pkDict).vals[8].(*pkList)
		if sh.items[0] != sh.items[1] {
			t.Fatalf("protocol %d: the memo gave two copies of one list", proto)
		}
	}
}

// TestUnpickleLimits: hostile pickles fail with a message, without deep
// recursion or memory sized by their claims.
func TestUnpickleLimits(t *testing.T) {
	deep := newPk().op('}').str("x")
	deep.b = append(deep.b, bytes.Repeat([]byte{'('}, 1_000_000)...)
	deep.op(')')
	deep.b = append(deep.b, bytes.Repeat([]byte{'t'}, 1_000_000)...)
	deep.op('s')

	// l_{i+1} = [l_i, l_i]: 2^60 paths through 61 lists.
	// The lists stay on the stack, so they go into a tuple at "x".
	dag := newPk().op('}').str("x").op('(', ']').u32('r', 0)
	for i := range uint32(60) {
		dag.op(']', '(').u32('j', i).u32('j', i).op('e').u32('r', i+1)
	}
	dag.op('t', 's')

	many := newPk().op('(')
	many.b = append(many.b, bytes.Repeat([]byte{'N'}, maxPickleValues)...)

	cases := []struct {
		name string
		pkl  []byte
		want string
	}{
		{"nesting", deep.stop(), `"x.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0....": dicts and lists nest more than 64 deep`},
		{"self-containing list", newPk().op('}').str("x").op(']', 'q', 0, 'h', 0, 'a', 's').stop(), "nest more than 64 deep (or contain themselves)"},
		{"shared 2^60 times", dag.stop(), fmt.Sprintf("reach more than %d values", maxPickleValues)},
		{"too many values", many.stop(), fmt.Sprintf("opcode NONE: more than %d values", maxPickleValues)},
		{"undefined memo", newPk().op('j', 0xff, 0xff, 0xff, 0xff).stop(), "memo entry 4294967295 was never stored"},
		{"huge string", newPk().op('X', 0xff, 0xff, 0xff, 0x7f).stop(), "needs 2147483647 bytes, but the pickle ends"},
		{"huge long", newPk().op(0x8b, 0xff, 0xff, 0xff, 0xff).stop(), "needs 4294967295 bytes"},
		{"pop under mark", newPk().op('}', '(', 's').stop(), "opcode SETITEM: needs 2 values on the stack, found 0"},
		{"append to a dict", newPk().op('}', 'N', 'a').stop(), "appending to a dict"},
		{"no mark", newPk().op('t').stop(), "no MARK on the stack"},
		{"global without newline", newPk().op('c').op(bytes.Repeat([]byte{'a'}, 300)...).stop(), "without a newline in the next 256 bytes"},
		{"protocol 1", []byte{0x80, 1, '}', '.'}, "protocol 1 (want 2 to 5)"},
		{"empty", nil, "without STOP"},
		{"stop on empty stack", newPk().stop(), "stops at byte 2 with 0 values"},
		{"call a dict", newPk().op('}', ')', 'R').stop(), "calling a dict"},
		{"call a storage class", newPk().global("torch", "FloatStorage").op(')', 'R').stop(), "torch.FloatStorage cannot be called"},
		{"ordered dict with items", newPk().global("collections", "OrderedDict").op('(', ']', 't', 'R').stop(), "OrderedDict called with 1 arguments"},
		{"builtins.eval", newPk().global("builtins", "eval").stop(), "global builtins.eval is not allowed"},
		{"torch.load", newPk().global("torch", "load").stop(), "global torch.load is not allowed"},
		{"rebuild from type", newPk().global("torch._utils", "_rebuild_from_type_v2").stop(), "global torch._utils._rebuild_from_type_v2 is not allowed"},
		{"persistent id of a string", newPk().str("x").op('Q').stop(), "persistent id is not"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := writePt(t, c.pkl, nil)
			err := openAndLoad(path)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v\nwant an error containing %q", err, c.want)
			}
			checkFileError(t, path, err)
		})
	}
}

// TestTorchNesting: a tensor 64 dicts deep loads; 65 deep is refused.
func TestTorchNesting(t *testing.T) {
	f4 := []byte{0, 0, 0x80, 0x3f}
	for _, depth := range []int{ptDepth, ptDepth + 1} {
		p := newPk()
		for range depth {
			p.op('}').str("d")
		}
		p.tensor("FloatStorage", "0", 1, 0, nil, nil)
		for range depth {
			p.op('s')
		}
		f, err := Open(writePt(t, p.stop(), map[string][]byte{"data/0": f4}), nil)
		if depth == ptDepth {
			if err != nil {
				t.Fatalf("depth %d: %v", depth, err)
			}
			if want := strings.TrimSuffix(strings.Repeat("d.", depth), "."); f.Entries[0].Name != want {
				t.Fatalf("depth %d: named %q", depth, f.Entries[0].Name)
			}
			f.Close()
		} else if err == nil || !strings.Contains(err.Error(), "nest more than 64 deep") {
			t.Fatalf("depth %d: %v", depth, err)
		}
	}
}

// TestTorchClaimsAllocateNothing: views and storages declaring huge
// sizes fail at open, before allocating anything of that size, and a load
// the host cannot hold is refused by Options.Check before its buffer is
// made.
func TestTorchClaimsAllocateNothing(t *testing.T) {
	f4 := make([]byte, 16)
	big := make([]byte, 64<<20) // deflates to about 64 KB
	// One tensor, memoized, under 20000 names: 1.3 GB of views in a file
	// of 370 KB.
	sharedMany := newPk().op('}', '(').str("t0").tensor("ByteStorage", "0", 1<<16, 0, []int64{1 << 16}, []int64{1}).u32('r', 0)
	for i := range 20000 {
		sharedMany.str(fmt.Sprint("t", i+1)).u32('j', 0)
	}
	sharedMany.op('u')
	cases := []struct {
		name    string
		pkl     []byte
		members map[string][]byte
		method  uint16
		want    string
	}{
		{"view of 2^40 elements", newPk().op('}').str("w").tensor("FloatStorage", "0", 4, 0, []int64{1 << 20, 1 << 20}, []int64{1 << 20, 1}).op('s').stop(),
			map[string][]byte{"data/0": f4}, zip.Store, "reaches past the 4 elements"},
		{"expanded view past the limit", newPk().op('}').str("w").tensor("FloatStorage", "0", 4, 0, []int64{1 << 21, 1 << 20}, []int64{0, 0}).op('s').stop(),
			map[string][]byte{"data/0": f4}, zip.Store, "more than 1099511627776 elements"},
		{"storage of 2^40 elements", newPk().op('}').str("w").tensor("FloatStorage", "0", 1<<40, 0, []int64{1 << 40}, []int64{1}).op('s').stop(),
			map[string][]byte{"data/0": f4}, zip.Store, "declares 1099511627776 elements of FloatStorage (4 bytes each), but archive/data/0 holds 16 bytes"},
		{"expanded to 2^40 elements", newPk().op('}').str("w").tensor("FloatStorage", "0", 4, 0, []int64{1 << 20, 1 << 20}, []int64{0, 0}).op('s').stop(),
			map[string][]byte{"data/0": f4}, zip.Store, "view 4398046511104 bytes, more than 1032 times the file's"},
		{"one tensor named 20000 times", sharedMany.stop(), map[string][]byte{"data/0": make([]byte, 1<<16)}, zip.Store, `the tensors up to "t5`},
		{"64 MB over the host limit", newPk().op('}').str("w").tensor("ByteStorage", "0", 64<<20, 0, []int64{64 << 20}, []int64{1}).op('s').stop(),
			map[string][]byte{"data/0": big}, zip.Deflate, "over the host limit"},
	}
	refuse := errors.New("over the host limit")
	check := &Options{Check: func(n int64) error {
		if n > 1<<20 {
			return fmt.Errorf("%d bytes: %w", n, refuse)
		}
		return nil
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "m.pt")
			if err := os.WriteFile(path, ptArchiveBytes(t, c.pkl, c.members, c.method), 0o644); err != nil {
				t.Fatal(err)
			}
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			// Only the last case needs Options.Check; the others fail
			// without one, at open.
			var opts *Options
			if c.method == zip.Deflate {
				opts = check
			}
			f, err := Open(path, opts)
			if err == nil {
				_, err = f.Entries[0].Load()
				f.Close()
			}
			runtime.ReadMemStats(&after)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v\nwant an error containing %q", err, c.want)
			}
			// Parsing costs memory in proportion to the file, never to
			// what it claims.
			st, _ := os.Stat(path)
			if n := after.TotalAlloc - before.TotalAlloc; n > 4<<20+64*uint64(st.Size()) {
				t.Fatalf("allocated %d bytes before failing, for a file of %d", n, st.Size())
			}
		})
	}
}

// TestTorchModuleOrder: a state_dict's tensors come in its order, named
// as torch names them, with the dtypes torch saved.
func TestTorchModuleOrder(t *testing.T) {
	f, err := Open("testdata/torch/module.pt", &Options{KeepHalf: true})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var names []string
	for _, e := range f.Entries {
		names = append(names, e.Name+":"+e.Meta.DType.String())
	}
	want := []string{"0.weight:float32", "0.bias:float32", "1.weight:float32", "1.bias:float32",
		"1.running_mean:float32", "1.running_var:float32", "1.num_batches_tracked:int64"}
	if !slices.Equal(names, want) {
		t.Fatalf("entries %v\nwant %v", names, want)
	}
	if f.Kind != Torch || f.Single() || len(f.Notes) != 0 {
		t.Fatalf("kind %v, single %v, notes %q", f.Kind, f.Single(), f.Notes)
	}
}

func TestTorchNotes(t *testing.T) {
	f, err := Open("testdata/torch/checkpoint.pt", nil)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	want := []string{"20 non-tensor values of the checkpoint are left out (epoch, lr, name, best, ...)"}
	if !slices.Equal(f.Notes, want) {
		t.Fatalf("notes %q\nwant %q", f.Notes, want)
	}
	f, err = Open("testdata/torch/state.pt", nil)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	want = []string{
		"float16 tensors are loaded as float32 (the cpu backend computes in float32)",
		"bfloat16 tensors are loaded as float32 (the cpu backend computes in float32)",
		"non-contiguous tensors (transposed or strided views) are made contiguous on load",
	}
	if !slices.Equal(f.Notes, want) {
		t.Fatalf("notes %q\nwant %q", f.Notes, want)
	}
}

// TestTorchKeepHalf: with KeepHalf, half tensors load as stored, their
// bits those of the float32 golden values rounded back (they are exact).
func TestTorchKeepHalf(t *testing.T) {
	f32, want := loadAll(t, "testdata/torch/state.pt", nil)
	f16, got := loadAll(t, "testdata/torch/state.pt", &Options{KeepHalf: true})
	for i, e := range f16.Entries {
		stored := map[string]tensor.DType{"HalfStorage": tensor.Float16, "BFloat16Storage": tensor.BFloat16}[e.Stored]
		if stored == tensor.Invalid {
			sameDense(t, e.Name, got[i], want[i])
			continue
		}
		if got[i].DType != stored || f32.Entries[i].Meta.DType != tensor.Float32 {
			t.Fatalf("%s: kept as %v, converted to %v", e.Name, got[i].DType, f32.Entries[i].Meta.DType)
		}
		sameDense(t, e.Name, toF32(got[i]), want[i])
	}
}

// TestTorchLazy: opening reads the directory and the pickle only; the
// storages are read by Load (a storage corrupted after open fails then).
func TestTorchLazy(t *testing.T) {
	src := mustRead(t, "testdata/torch/module.pt")
	path := filepath.Join(t.TempDir(), "m.pt")
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := zip.NewReader(bytes.NewReader(src), int64(len(src)))
	if err != nil {
		t.Fatal(err)
	}
	var off int64
	for _, zf := range zr.File {
		if strings.HasSuffix(zf.Name, "/data/0") {
			off, _ = zf.DataOffset()
		}
	}
	fh, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	fh.WriteAt([]byte{0x12, 0x34}, off)
	fh.Close()
	if _, err := f.Entries[1].Load(); err != nil {
		t.Fatalf("another storage: %v", err)
	}
	if _, err := f.Entries[0].Load(); err == nil || !strings.Contains(err.Error(), `tensor "0.weight" (module/data/0): zip: checksum error`) {
		t.Fatalf("load of the storage changed after open: %v", err)
	}
}

// TestTorchViews: views of one storage are read as torch reads them, also
// through a storage that holds more than the view.
func TestTorchViews(t *testing.T) {
	var st []byte
	for i := range 12 {
		st = binary.LittleEndian.AppendUint32(st, uint32(i*10))
	}
	p := newPk().op('}', '(')
	p.str("t").tensor("IntStorage", "0", 12, 1, []int64{2, 3}, []int64{1, 4})   // a transpose, from element 1
	p.str("e").tensor("IntStorage", "0", 12, 11, []int64{2, 2}, []int64{0, 0})  // the last element, expanded
	p.str("s").tensor("IntStorage", "0", 12, 2, []int64{}, []int64{})           // a scalar
	p.str("z").tensor("IntStorage", "0", 12, 12, []int64{0, 5}, []int64{5, 1})  // empty, at the end
	p.str("r").tensor("IntStorage", "0", 12, 4, []int64{1, 4}, []int64{99, 1})  // a row; size-1 stride ignored
	p.str("c").tensor("IntStorage", "0", 12, 0, []int64{2, 2}, []int64{6, 3})   // every third, strided
	p.str("b").tensor("CharStorage", "1", 4, 0, []int64{4}, []int64{1})         // another storage
	p.str("o").tensor("IntStorage", "0", 12, 3, []int64{3}, []int64{2}).op('u') // odd stride
	f, got := loadAll(t, writePt(t, p.stop(), map[string][]byte{"data/0": st, "data/1": {0xff, 1, 0x80, 7}}), nil)
	want := map[string][]int64{"t": {10, 50, 90, 20, 60, 100}, "e": {110, 110, 110, 110}, "s": {20}, "z": {},
		"r": {40, 50, 60, 70}, "c": {0, 30, 60, 90}, "b": {-1, 1, -128, 7}, "o": {30, 50, 70}}
	for i, e := range f.Entries {
		var vals []int64
		for j := range got[i].Numel() {
			vals = append(vals, int64(got[i].At(j)))
		}
		if !slices.Equal(vals, want[e.Name]) && !(len(vals) == 0 && len(want[e.Name]) == 0) {
			t.Errorf("%s %v: %v, want %v", e.Name, got[i].Shape, vals, want[e.Name])
		}
	}
	if len(f.Entries) != len(want) {
		t.Fatalf("%d entries", len(f.Entries))
	}
}

// TestTorchBin: a .bin file is a checkpoint when it is a zip archive;
// otherwise, or when it is missing, it is an unknown file type.
func TestTorchBin(t *testing.T) {
	if f, err := Open("testdata/torch/pytorch_model.bin", nil); err != nil || f.Kind != Torch {
		t.Fatalf("zip .bin: %v", err)
	} else {
		f.Close()
	}
	dir := filepath.Join(t.TempDir(), "dir.bin")
	os.Mkdir(dir, 0o755)
	for _, p := range []string{"testdata/malformed/not-zip.bin", "testdata/malformed/missing.bin", dir} {
		if _, err := Open(p, nil); err == nil || !strings.Contains(err.Error(), p+": unknown file type") {
			t.Errorf("%s: %v", p, err)
		}
	}
}
