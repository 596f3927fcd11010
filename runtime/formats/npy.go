package formats

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/tref-lang/tref/runtime/tensor"
)

// maxNpyHeader bounds an npy header's dictionary. NumPy writes under 200
// bytes for the dtypes tref reads; v2/v3 headers may declare up to 4 GiB.
const maxNpyHeader = 1 << 20

var npyMagic = []byte("\x93NUMPY")

// npyHeader is a parsed .npy header.
type npyHeader struct {
	descr   string
	raw     raw
	big     bool
	fortran bool
	shape   tensor.Shape
	numel   int
	// dataOff is the byte offset of the data; bytes its size.
	dataOff int64
	bytes   int64
}

// npyTypes maps a descr without its byte-order character.
var npyTypes = map[string]raw{
	"b1": rawBool, "?": rawBool,
	"u1": rawU8, "B": rawU8,
	"i1": rawI8, "b": rawI8,
	"i2": rawI16,
	"i4": rawI32,
	"i8": rawI64,
	"u2": rawU16,
	"u4": rawU32,
	"u8": rawU64,
	"f2": rawF16,
	"f4": rawF32,
	"f8": rawF64,
}

const npySupported = "<f2 <f4 <f8 <i8 <i4 <i2 |i1 <u8 <u4 <u2 |u1 |b1, either byte order"

// readNpyHeader parses the magic, version and header dictionary of an npy
// stream; the caller checks the declared data against what follows.
func readNpyHeader(r io.Reader) (npyHeader, error) {
	var h npyHeader
	var pre [8]byte
	if _, err := io.ReadFull(r, pre[:]); err != nil {
		return h, fmt.Errorf("reading the magic: %w", noEOF(err))
	}
	if !bytes.Equal(pre[:6], npyMagic) {
		return h, fmt.Errorf("bad magic %q (want \\x93NUMPY)", pre[:6])
	}
	major, minor := pre[6], pre[7]
	var hlen uint32
	switch major {
	case 1:
		var b [2]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return h, fmt.Errorf("reading the header length: %w", noEOF(err))
		}
		hlen = uint32(binary.LittleEndian.Uint16(b[:]))
		h.dataOff = 10
	case 2, 3:
		var b [4]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return h, fmt.Errorf("reading the header length: %w", noEOF(err))
		}
		hlen = binary.LittleEndian.Uint32(b[:])
		h.dataOff = 12
	default:
		return h, fmt.Errorf("unsupported format version %d.%d (want 1.0, 2.0 or 3.0)", major, minor)
	}
	if minor != 0 {
		return h, fmt.Errorf("unsupported format version %d.%d (want 1.0, 2.0 or 3.0)", major, minor)
	}
	if hlen > maxNpyHeader {
		return h, fmt.Errorf("header length %d exceeds the limit of %d bytes", hlen, maxNpyHeader)
	}
	text := make([]byte, hlen)
	if _, err := io.ReadFull(r, text); err != nil {
		return h, fmt.Errorf("reading the %d-byte header: %w", hlen, noEOF(err))
	}
	h.dataOff += int64(hlen)
	if err := h.parseDict(string(text)); err != nil {
		return h, fmt.Errorf("header %s: %v", strconv.Quote(strings.TrimSpace(clip(string(text), 120))), err)
	}
	return h, nil
}

// noEOF turns a short read into a message that says the file ended.
func noEOF(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.New("file ends early (truncated?)")
	}
	return err
}

func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

// parseDict reads the header dictionary, a Python literal such as
// {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }.
func (h *npyHeader) parseDict(text string) error {
	p := &pyLit{s: text}
	fields, err := p.dict()
	if err != nil {
		return err
	}
	var haveDescr, haveOrder, haveShape bool
	for _, f := range fields {
		switch f.key {
		case "descr":
			s, ok := f.val.(string)
			if !ok {
				return fmt.Errorf("structured dtypes are not supported (descr is %s)", pyKind(f.val))
			}
			h.descr, haveDescr = s, true
		case "fortran_order":
			b, ok := f.val.(bool)
			if !ok {
				return fmt.Errorf("fortran_order must be True or False, found %s", pyKind(f.val))
			}
			h.fortran, haveOrder = b, true
		case "shape":
			t, ok := f.val.([]int64)
			if !ok {
				return fmt.Errorf("shape must be a tuple of ints, found %s", pyKind(f.val))
			}
			if len(t) > maxDims {
				return fmt.Errorf("rank %d exceeds the limit of %d", len(t), maxDims)
			}
			h.shape = make(tensor.Shape, len(t))
			for i, d := range t {
				if d < 0 || int64(int(d)) != d {
					return fmt.Errorf("bad dimension %d", d)
				}
				h.shape[i] = int(d)
			}
			haveShape = true
		default:
			return fmt.Errorf("unexpected key %q (want descr, fortran_order, shape)", f.key)
		}
	}
	switch {
	case !haveDescr:
		return errors.New("missing 'descr'")
	case !haveOrder:
		return errors.New("missing 'fortran_order'")
	case !haveShape:
		return errors.New("missing 'shape'")
	}
	d := h.descr
	if len(d) < 2 {
		return fmt.Errorf("dtype %q is not supported (supported: %s)", h.descr, npySupported)
	}
	order, code := d[0], d[1:]
	r, ok := npyTypes[code]
	if !ok || !strings.ContainsRune("<>|=", rune(order)) {
		if code == "O" {
			return errors.New("object arrays (pickled Python objects) are not supported")
		}
		return fmt.Errorf("dtype %q is not supported (supported: %s)", h.descr, npySupported)
	}
	if order == '|' && r.size() > 1 {
		return fmt.Errorf("dtype %q needs a byte order ('<' or '>')", h.descr)
	}
	h.raw, h.big = r, order == '>'
	n, b, err := checkedMeta(h.shape, r.size())
	if err != nil {
		return err
	}
	h.numel, h.bytes = n, b
	return nil
}

// meta is the tensor the header loads as.
func (h *npyHeader) meta(keepHalf bool) tensor.Meta {
	return tensor.Meta{Shape: h.shape, DType: h.raw.natural(keepHalf)}
}

// load reads the header's data from src (exactly h.bytes) into a new
// tensor of h.meta, converting the type and the Fortran order.
func (h *npyHeader) load(src io.Reader, keepHalf bool, opts *Options) (*tensor.Dense, error) {
	m := h.meta(keepHalf)
	direct := !h.big && rawOf(m.DType) == h.raw && h.raw != rawBool
	need := m.Bytes()
	if !direct {
		need += h.bytes
	}
	if h.fortran {
		need += m.Bytes()
	}
	if err := opts.check(need); err != nil {
		return nil, err
	}
	d := tensor.NewDense(m)
	if direct {
		if _, err := io.ReadFull(src, d.Buf); err != nil {
			return nil, fmt.Errorf("reading %d bytes of data: %w", h.bytes, noEOF(err))
		}
	} else {
		buf := make([]byte, h.bytes)
		if _, err := io.ReadFull(src, buf); err != nil {
			return nil, fmt.Errorf("reading %d bytes of data: %w", h.bytes, noEOF(err))
		}
		if err := decode(d, buf, h.raw, h.big); err != nil {
			return nil, err
		}
	}
	if h.fortran {
		fortranToC(d)
	}
	return d, nil
}

// noteConversions records what loading h changes.
func (h *npyHeader) noteConversions(f *File, keepHalf bool) {
	dt := h.raw.natural(keepHalf)
	switch {
	case h.raw == rawF16 && dt == tensor.Float32:
		f.note("float16 arrays are loaded as float32 (the cpu backend computes in float32)")
	}
	if h.fortran {
		f.note("Fortran-order arrays are reordered to row-major on load")
	}
}

// OpenNpy parses an .npy file's header; the data is read by the entry's
// Load from the open file.
func OpenNpy(path string, opts *Options) (*File, error) {
	fh, size, err := openRegular(path, Npy)
	if err != nil {
		return nil, err
	}
	h, err := readNpyHeader(bufio.NewReaderSize(io.NewSectionReader(fh, 0, size), 4096))
	if err != nil {
		fh.Close()
		return nil, errorf(path, Npy, "%v", err)
	}
	if avail := size - h.dataOff; avail != h.bytes {
		fh.Close()
		if avail < h.bytes {
			return nil, errorf(path, Npy, "%s%v needs %d bytes of data, but the file holds %d (truncated?)", h.descr, h.shape, h.bytes, avail)
		}
		return nil, errorf(path, Npy, "%d unexpected bytes after the %d bytes of %s%v data", avail-h.bytes, h.bytes, h.descr, h.shape)
	}
	f := newFile(path, Npy, fh.Close)
	keepHalf := opts != nil && opts.KeepHalf
	h.noteConversions(f, keepHalf)
	f.Entries = []Entry{{Meta: h.meta(keepHalf), Stored: h.descr, Bytes: h.bytes}}
	f.Entries[0].load = func() (*tensor.Dense, error) {
		if !f.open() {
			return nil, errorf(path, Npy, "loaded after the file was closed")
		}
		d, err := h.load(io.NewSectionReader(fh, h.dataOff, h.bytes), keepHalf, opts)
		if err != nil {
			return nil, wrap(path, Npy, "", err)
		}
		return d, nil
	}
	return f, nil
}

// npyDescr is the descr NumPy uses for each dtype tref can write.
var npyDescr = map[tensor.DType]string{
	tensor.Bool:    "|b1",
	tensor.Uint8:   "|u1",
	tensor.Int64:   "<i8",
	tensor.Int8:    "|i1",
	tensor.Int16:   "<i2",
	tensor.Int32:   "<i4",
	tensor.Uint16:  "<u2",
	tensor.Uint32:  "<u4",
	tensor.Uint64:  "<u8",
	tensor.Float16: "<f2",
	tensor.Float32: "<f4",
	tensor.Float64: "<f8",
}

// encodeNpy writes d as a complete .npy stream (format 1.0, or 2.0 when
// the header would not fit), padded like NumPy to a multiple of 64 bytes.
func encodeNpy(w io.Writer, d *tensor.Dense) error {
	descr, ok := npyDescr[d.DType]
	if !ok {
		return fmt.Errorf("npy has no %v dtype (astype to float32 first)", d.DType)
	}
	var dict strings.Builder
	fmt.Fprintf(&dict, "{'descr': '%s', 'fortran_order': False, 'shape': (", descr)
	for i, s := range d.Shape {
		if i > 0 {
			dict.WriteString(", ")
		}
		dict.WriteString(strconv.Itoa(s))
	}
	if len(d.Shape) == 1 {
		dict.WriteByte(',')
	}
	dict.WriteString("), }")
	pre := 10
	if dict.Len()+1+pre > 65535 {
		pre = 12
	}
	hlen := dict.Len() + 1
	hlen += (64 - (pre+hlen)%64) % 64
	var head bytes.Buffer
	head.Write(npyMagic)
	if pre == 10 {
		head.Write([]byte{1, 0})
		binary.Write(&head, binary.LittleEndian, uint16(hlen))
	} else {
		head.Write([]byte{2, 0})
		binary.Write(&head, binary.LittleEndian, uint32(hlen))
	}
	head.WriteString(dict.String())
	for head.Len() < pre+hlen-1 {
		head.WriteByte(' ')
	}
	head.WriteByte('\n')
	if _, err := w.Write(head.Bytes()); err != nil {
		return err
	}
	_, err := w.Write(d.Buf)
	return err
}

// WriteNpy writes d to path as .npy, atomically.
func WriteNpy(path string, d *tensor.Dense) error {
	if _, ok := npyDescr[d.DType]; !ok {
		return errorf(path, Npy, "npy has no %v dtype (astype to float32 first)", d.DType)
	}
	return writeAtomic(path, func(w io.Writer) error { return encodeNpy(w, d) })
}
