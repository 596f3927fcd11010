package formats

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/tref-lang/tref/runtime/tensor"
)

// IDX type codes (the third byte of the magic number).
var idxTypes = map[byte]struct {
	raw  raw
	name string
}{
	0x08: {rawU8, "u8"},
	0x09: {rawI8, "i8"},
	0x0B: {rawI16, "i16"},
	0x0C: {rawI32, "i32"},
	0x0D: {rawF32, "f32"},
	0x0E: {rawF64, "f64"},
}

// idxHeader is a parsed IDX header.
type idxHeader struct {
	raw     raw
	name    string
	shape   tensor.Shape
	dataOff int64
	bytes   int64
}

func readIDXHeader(r io.Reader) (idxHeader, error) {
	var h idxHeader
	var magic [4]byte
	if _, err := io.ReadFull(r, magic[:]); err != nil {
		return h, fmt.Errorf("reading the magic number: %w", noEOF(err))
	}
	if magic[0] != 0 || magic[1] != 0 {
		return h, fmt.Errorf("bad magic number %02x%02x%02x%02x (want 0000 followed by a type and a rank)", magic[0], magic[1], magic[2], magic[3])
	}
	t, ok := idxTypes[magic[2]]
	if !ok {
		return h, fmt.Errorf("unknown type code 0x%02x (want 08 u8, 09 i8, 0B i16, 0C i32, 0D f32, 0E f64)", magic[2])
	}
	ndim := int(magic[3])
	if ndim == 0 || ndim > maxDims {
		return h, fmt.Errorf("rank %d out of range (1 to %d)", ndim, maxDims)
	}
	dims := make([]byte, 4*ndim)
	if _, err := io.ReadFull(r, dims); err != nil {
		return h, fmt.Errorf("reading %d dimensions: %w", ndim, noEOF(err))
	}
	h.raw, h.name = t.raw, t.name
	h.shape = make(tensor.Shape, ndim)
	for i := range h.shape {
		h.shape[i] = int(binary.BigEndian.Uint32(dims[4*i:]))
	}
	_, b, err := checkedMeta(h.shape, t.raw.size())
	if err != nil {
		return h, err
	}
	h.dataOff, h.bytes = int64(4+4*ndim), b
	return h, nil
}

// OpenIDX parses the header of an IDX file (the MNIST format), gzipped or
// not (told by the gzip magic, not the name); the data is read and
// decompressed by the entry's Load.
func OpenIDX(path string, opts *Options) (*File, error) {
	bad := func(format string, args ...any) error { return errorf(path, IDX, format, args...) }
	fh, size, err := openRegular(path, IDX)
	if err != nil {
		return nil, err
	}
	var gz [2]byte
	n, _ := fh.ReadAt(gz[:], 0)
	zipped := n == 2 && gz[0] == 0x1f && gz[1] == 0x8b
	open := func() (io.Reader, func() error, error) {
		sr := io.NewSectionReader(fh, 0, size)
		if !zipped {
			return bufio.NewReaderSize(sr, 64<<10), func() error { return nil }, nil
		}
		zr, err := gzip.NewReader(bufio.NewReaderSize(sr, 64<<10))
		if err != nil {
			return nil, nil, fmt.Errorf("gzip: %w", err)
		}
		return zr, zr.Close, nil
	}
	r, done, err := open()
	if err != nil {
		fh.Close()
		return nil, bad("%v", err)
	}
	h, err := readIDXHeader(r)
	done()
	if err != nil {
		fh.Close()
		return nil, bad("%v", err)
	}
	if zipped {
		if h.dataOff+h.bytes > size*maxDeflateRatio+1024 {
			fh.Close()
			return nil, bad("%s%v needs %d bytes, more than %d gzipped bytes can hold", h.name, h.shape, h.bytes, size)
		}
	} else if avail := size - h.dataOff; avail != h.bytes {
		fh.Close()
		if avail < h.bytes {
			return nil, bad("%s%v needs %d bytes of data, but the file holds %d (truncated?)", h.name, h.shape, h.bytes, avail)
		}
		return nil, bad("%d unexpected bytes after the %d bytes of %s%v data", avail-h.bytes, h.bytes, h.name, h.shape)
	}
	f := newFile(path, IDX, fh.Close)
	dt := h.raw.natural(false)
	f.Entries = []Entry{{Meta: tensor.Meta{Shape: h.shape, DType: dt}, Stored: h.name + " big-endian", Bytes: h.bytes}}
	f.Entries[0].load = func() (*tensor.Dense, error) {
		if !f.open() {
			return nil, bad("loaded after the file was closed")
		}
		d, err := loadIDX(open, h, opts)
		if err != nil {
			return nil, wrap(path, IDX, "", err)
		}
		return d, nil
	}
	return f, nil
}

func loadIDX(open func() (io.Reader, func() error, error), h idxHeader, opts *Options) (*tensor.Dense, error) {
	m := tensor.Meta{Shape: h.shape, DType: h.raw.natural(false)}
	direct := h.raw == rawU8
	need := m.Bytes()
	if !direct {
		need += h.bytes
	}
	if err := opts.check(need); err != nil {
		return nil, err
	}
	r, done, err := open()
	if err != nil {
		return nil, err
	}
	defer done()
	if _, err := io.CopyN(io.Discard, r, h.dataOff); err != nil {
		return nil, noEOF(err)
	}
	d := tensor.NewDense(m)
	buf := d.Buf
	if !direct {
		buf = make([]byte, h.bytes)
	}
	if _, err := io.ReadFull(r, buf); err != nil {
		return nil, fmt.Errorf("reading %d bytes of data: %w", h.bytes, noEOF(err))
	}
	// Reading to the end makes gzip verify its checksum, and catches
	// trailing garbage.
	var one [1]byte
	if n, err := r.Read(one[:]); n != 0 || (err != nil && !errors.Is(err, io.EOF)) {
		if err == nil {
			err = errors.New("unexpected data after the declared tensor")
		}
		return nil, err
	}
	if !direct {
		if err := decode(d, buf, h.raw, true); err != nil {
			return nil, err
		}
	}
	return d, nil
}
