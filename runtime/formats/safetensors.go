package formats

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"

	"github.com/tref-lang/tref/runtime/tensor"
)

// MaxSafetensorsHeader bounds the JSON header of a safetensors file, as
// the reference implementation does (100 MB).
const MaxSafetensorsHeader = 100_000_000

// safetensors dtype names and how tref stores each.
var stDTypes = map[string]raw{
	"BOOL": rawBool,
	"U8":   rawU8,
	"I8":   rawI8,
	"I16":  rawI16,
	"I32":  rawI32,
	"I64":  rawI64,
	"U16":  rawU16,
	"U32":  rawU32,
	"U64":  rawU64,
	"F16":  rawF16,
	"BF16": rawBF16,
	"F32":  rawF32,
	"F64":  rawF64,
}

var stNames = map[tensor.DType]string{
	tensor.Bool:     "BOOL",
	tensor.Uint8:    "U8",
	tensor.Int64:    "I64",
	tensor.Int8:     "I8",
	tensor.Int16:    "I16",
	tensor.Int32:    "I32",
	tensor.Uint16:   "U16",
	tensor.Uint32:   "U32",
	tensor.Uint64:   "U64",
	tensor.Float16:  "F16",
	tensor.BFloat16: "BF16",
	tensor.Float32:  "F32",
	tensor.Float64:  "F64",
}

const stSupported = "F32, F64, F16, BF16, I64, I32, I16, I8, U64, U32, U16, U8, BOOL"

// stInfo is one tensor's header record.
type stInfo struct {
	name       string
	dtype      string
	raw        raw
	shape      tensor.Shape
	numel      int
	begin, end int64
	hasDType   bool
	hasShape   bool
	hasOffsets bool
}

// OpenSafetensors memory-maps a safetensors file and parses its header.
// Tensors are read from the mapping by their Entry's Load; the mapping
// lives until the File's last holder releases it.
func OpenSafetensors(path string, opts *Options) (*File, error) {
	bad := func(format string, args ...any) error { return errorf(path, Safetensors, format, args...) }
	fh, size, err := openRegular(path, Safetensors)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	if size < 8 {
		return nil, bad("file of %d bytes is too short for the 8-byte header length", size)
	}
	var lenBuf [8]byte
	if _, err := fh.ReadAt(lenBuf[:], 0); err != nil {
		return nil, wrap(path, Safetensors, "reading the header length", err)
	}
	hlen := binary.LittleEndian.Uint64(lenBuf[:])
	if hlen > MaxSafetensorsHeader {
		return nil, bad("header length %d exceeds the limit of %d bytes", hlen, MaxSafetensorsHeader)
	}
	if int64(hlen) > size-8 {
		return nil, bad("header length %d exceeds the %d bytes after the length field", hlen, size-8)
	}
	header := make([]byte, hlen)
	if _, err := fh.ReadAt(header, 8); err != nil {
		return nil, wrap(path, Safetensors, "reading the header", err)
	}
	// Every tensor record names its data_offsets: more of them than
	// MaxEntries fails before the decoder spends memory on each.
	if n := bytes.Count(header, []byte(`"data_offsets"`)); n > MaxEntries {
		return nil, bad("header: more than %d tensors", MaxEntries)
	}
	infos, meta, err := parseSTHeader(header)
	if err != nil {
		return nil, bad("header: %v", err)
	}
	dataLen := size - 8 - int64(hlen)
	if err := checkSTOffsets(infos, dataLen); err != nil {
		return nil, bad("%v", err)
	}
	m, err := mapFile(fh, size)
	if err != nil {
		return nil, wrap(path, Safetensors, "", err)
	}
	f := newFile(path, Safetensors, m.unmap)
	f.Metadata = meta
	base := 8 + int64(hlen)
	keepHalf := opts != nil && opts.KeepHalf
	f.Entries = make([]Entry, len(infos))
	for i, in := range infos {
		dt := in.raw.natural(keepHalf)
		switch {
		case dt == tensor.Float32 && (in.raw == rawF16 || in.raw == rawBF16):
			f.note("%s tensors are loaded as float32 (the cpu backend computes in float32)", in.dtype)
		}
		e := &f.Entries[i]
		*e = Entry{Name: in.name, Meta: tensor.Meta{Shape: in.shape, DType: dt}, Stored: in.dtype, Bytes: in.end - in.begin}
		off, n, r := base+in.begin, in.end-in.begin, in.raw
		e.load = func() (*tensor.Dense, error) {
			if !f.open() {
				return nil, bad("tensor %q loaded after the file was closed", e.Name)
			}
			if err := opts.check(e.Meta.Bytes()); err != nil {
				return nil, wrap(path, Safetensors, fmt.Sprintf("tensor %q", e.Name), err)
			}
			d := tensor.NewDense(e.Meta)
			err := m.read(off, n, func(src []byte) error { return decode(d, src, r, false) })
			if err != nil {
				return nil, wrap(path, Safetensors, fmt.Sprintf("tensor %q", e.Name), err)
			}
			return d, nil
		}
	}
	return f, nil
}

// parseSTHeader decodes the JSON header, keeping the file's key order and
// rejecting duplicate keys, unknown fields and malformed numbers.
func parseSTHeader(header []byte) ([]stInfo, map[string]string, error) {
	if len(header) == 0 || header[0] != '{' {
		return nil, nil, errors.New("does not start with '{'")
	}
	dec := json.NewDecoder(bytes.NewReader(header))
	dec.UseNumber()
	if _, err := dec.Token(); err != nil {
		return nil, nil, jsonErr(err)
	}
	var infos []stInfo
	var meta map[string]string
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, jsonErr(err)
		}
		name := tok.(string) // object keys are always strings
		if seen[name] {
			return nil, nil, fmt.Errorf("duplicate key %q", name)
		}
		seen[name] = true
		if name == "__metadata__" {
			if err := dec.Decode(&meta); err != nil {
				return nil, nil, fmt.Errorf("__metadata__ must map strings to strings: %v", jsonErr(err))
			}
			continue
		}
		if len(infos) == MaxEntries {
			return nil, nil, fmt.Errorf("more than %d tensors", MaxEntries)
		}
		in, err := parseSTTensor(dec, name)
		if err != nil {
			return nil, nil, fmt.Errorf("tensor %q: %v", name, err)
		}
		infos = append(infos, in)
	}
	if _, err := dec.Token(); err != nil {
		return nil, nil, jsonErr(err)
	}
	// Only the padding spaces the writers add may follow the object.
	if rest := header[dec.InputOffset():]; len(bytes.Trim(rest, " \t\r\n")) != 0 {
		return nil, nil, errors.New("unexpected data after the JSON object")
	}
	return infos, meta, nil
}

// jsonErr names a premature end of the header plainly.
func jsonErr(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.New("unexpected EOF (the JSON header ends early)")
	}
	return err
}

// parseSTTensor reads one {"dtype": ..., "shape": [...], "data_offsets":
// [begin, end]} object.
func parseSTTensor(dec *json.Decoder, name string) (stInfo, error) {
	in := stInfo{name: name}
	if tok, err := dec.Token(); err != nil {
		return in, jsonErr(err)
	} else if d, ok := tok.(json.Delim); !ok || d != '{' {
		return in, fmt.Errorf("expected an object, found %v", tok)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return in, jsonErr(err)
		}
		field := tok.(string)
		switch field {
		case "dtype":
			if in.hasDType {
				return in, errors.New("duplicate field \"dtype\"")
			}
			in.hasDType = true
			if err := dec.Decode(&in.dtype); err != nil {
				return in, fmt.Errorf("dtype: %v", jsonErr(err))
			}
			r, ok := stDTypes[in.dtype]
			if !ok {
				return in, fmt.Errorf("dtype %q is not supported (supported: %s)", in.dtype, stSupported)
			}
			in.raw = r
		case "shape":
			if in.hasShape {
				return in, errors.New("duplicate field \"shape\"")
			}
			in.hasShape = true
			dims, err := decodeInts(dec)
			if err != nil {
				return in, fmt.Errorf("shape: %v", err)
			}
			in.shape = make(tensor.Shape, len(dims))
			for i, d := range dims {
				if int64(int(d)) != d {
					return in, fmt.Errorf("shape: dimension %d too large", d)
				}
				in.shape[i] = int(d)
			}
		case "data_offsets":
			if in.hasOffsets {
				return in, errors.New("duplicate field \"data_offsets\"")
			}
			in.hasOffsets = true
			offs, err := decodeInts(dec)
			if err != nil {
				return in, fmt.Errorf("data_offsets: %v", err)
			}
			if len(offs) != 2 {
				return in, fmt.Errorf("data_offsets must be [begin, end], found %d numbers", len(offs))
			}
			in.begin, in.end = offs[0], offs[1]
		default:
			return in, fmt.Errorf("unknown field %q (want dtype, shape, data_offsets)", field)
		}
	}
	if _, err := dec.Token(); err != nil {
		return in, jsonErr(err)
	}
	switch {
	case !in.hasDType:
		return in, errors.New("missing dtype")
	case !in.hasShape:
		return in, errors.New("missing shape")
	case !in.hasOffsets:
		return in, errors.New("missing data_offsets")
	}
	n, bytes, err := checkedMeta(in.shape, in.raw.size())
	if err != nil {
		return in, err
	}
	in.numel = n
	if in.begin > in.end {
		return in, fmt.Errorf("data_offsets [%d, %d] end before they begin", in.begin, in.end)
	}
	if in.end-in.begin != bytes {
		return in, fmt.Errorf("data_offsets [%d, %d] span %d bytes, but %s%v needs %d",
			in.begin, in.end, in.end-in.begin, in.dtype, in.shape, bytes)
	}
	return in, nil
}

// decodeInts reads a JSON array of non-negative integers that fit int64.
func decodeInts(dec *json.Decoder) ([]int64, error) {
	var nums []json.Number
	if err := dec.Decode(&nums); err != nil {
		return nil, jsonErr(err)
	}
	if len(nums) > maxDims {
		return nil, fmt.Errorf("%d numbers exceed the limit of %d", len(nums), maxDims)
	}
	out := make([]int64, len(nums))
	for i, s := range nums {
		v, err := strconv.ParseInt(string(s), 10, 64)
		if err != nil || v < 0 {
			return nil, fmt.Errorf("%s is not a non-negative integer", s)
		}
		out[i] = v
	}
	return out, nil
}

// checkSTOffsets checks that the tensors tile the data section exactly:
// sorted by offset, each begins where the previous ended, the first at 0
// and the last at the end of the file (no gaps, no overlaps).
func checkSTOffsets(infos []stInfo, dataLen int64) error {
	order := make([]int, len(infos))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		ia, ib := infos[order[a]], infos[order[b]]
		if ia.begin != ib.begin {
			return ia.begin < ib.begin
		}
		return ia.end < ib.end
	})
	var at int64
	for _, i := range order {
		in := infos[i]
		if in.begin != at {
			if in.begin < at {
				return fmt.Errorf("tensor %q: data_offsets [%d, %d] overlap the previous tensor, which ends at %d", in.name, in.begin, in.end, at)
			}
			return fmt.Errorf("tensor %q: data_offsets [%d, %d] leave a gap after offset %d", in.name, in.begin, in.end, at)
		}
		at = in.end
	}
	if at != dataLen {
		if at > dataLen {
			return fmt.Errorf("tensors need %d bytes of data, but the file holds %d after the header (truncated?)", at, dataLen)
		}
		return fmt.Errorf("tensors cover %d bytes of data, but the file holds %d after the header", at, dataLen)
	}
	return nil
}

// WriteSafetensors writes tensors under names, with optional __metadata__,
// atomically to path. The header lists the tensors in the given order; the
// data is laid out widest element type first so every tensor starts
// aligned to its element size.
func WriteSafetensors(path string, names []string, ts []*tensor.Dense, metadata map[string]string) error {
	if err := checkNames(path, Safetensors, names, ts); err != nil {
		return err
	}
	for i, n := range names {
		if n == "__metadata__" {
			return errorf(path, Safetensors, "%q is reserved and cannot name a tensor", n)
		}
		if _, ok := stNames[ts[i].DType]; !ok {
			return errorf(path, Safetensors, "tensor %q has dtype %v, which safetensors cannot store", n, ts[i].DType)
		}
	}
	order := make([]int, len(ts))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return ts[order[a]].DType.Size() > ts[order[b]].DType.Size() })
	begins := make([]int64, len(ts))
	var at int64
	for _, i := range order {
		begins[i] = at
		at += int64(len(ts[i].Buf))
	}
	var h bytes.Buffer
	h.WriteByte('{')
	if len(metadata) > 0 {
		mj, err := json.Marshal(metadata)
		if err != nil {
			return wrap(path, Safetensors, "__metadata__", err)
		}
		h.WriteString(`"__metadata__":`)
		h.Write(mj)
	}
	for i, n := range names {
		if h.Len() > 1 {
			h.WriteByte(',')
		}
		key, _ := json.Marshal(n)
		shape, _ := json.Marshal([]int(ts[i].Shape))
		if ts[i].Shape == nil {
			shape = []byte("[]")
		}
		fmt.Fprintf(&h, `%s:{"dtype":"%s","shape":%s,"data_offsets":[%d,%d]}`,
			key, stNames[ts[i].DType], shape, begins[i], begins[i]+int64(len(ts[i].Buf)))
	}
	h.WriteByte('}')
	for h.Len()%8 != 0 {
		h.WriteByte(' ')
	}
	if h.Len() > MaxSafetensorsHeader {
		return errorf(path, Safetensors, "header of %d bytes exceeds the limit of %d", h.Len(), MaxSafetensorsHeader)
	}
	return writeAtomic(path, func(w io.Writer) error {
		var lenBuf [8]byte
		binary.LittleEndian.PutUint64(lenBuf[:], uint64(h.Len()))
		if _, err := w.Write(lenBuf[:]); err != nil {
			return err
		}
		if _, err := w.Write(h.Bytes()); err != nil {
			return err
		}
		for _, i := range order {
			if _, err := w.Write(ts[i].Buf); err != nil {
				return err
			}
		}
		return nil
	})
}

// checkNames validates the parallel names/tensors lists of a writer.
func checkNames(path string, kind Kind, names []string, ts []*tensor.Dense) error {
	if len(names) != len(ts) {
		return errorf(path, kind, "internal: %d names for %d tensors", len(names), len(ts))
	}
	seen := map[string]bool{}
	for i, n := range names {
		if n == "" {
			return errorf(path, kind, "tensor %d has an empty name", i)
		}
		if seen[n] {
			return errorf(path, kind, "duplicate tensor name %q", n)
		}
		seen[n] = true
		if int64(len(ts[i].Buf)) != ts[i].Meta.Bytes() {
			return errorf(path, kind, "internal: tensor %q has %d bytes for %v", n, len(ts[i].Buf), ts[i].Meta)
		}
	}
	return nil
}
