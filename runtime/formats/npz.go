package formats

import (
	"archive/zip"
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/tref-lang/tref/runtime/tensor"
)

// maxDeflateRatio bounds how much deflate can expand data (1032:1 is its
// theoretical maximum), so a member's declared size can be checked against
// its compressed size before anything is allocated.
const maxDeflateRatio = 1032

// OpenNpz reads an .npz archive's directory and each member's npy header.
// Members are decompressed by their entry's Load.
func OpenNpz(path string, opts *Options) (*File, error) {
	bad := func(format string, args ...any) error { return errorf(path, Npz, format, args...) }
	fh, size, err := openRegular(path, Npz)
	if err != nil {
		return nil, err
	}
	zr, err := zip.NewReader(fh, size)
	// Member names are only record keys, never paths, so names that
	// would be unsafe to extract are harmless here.
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		fh.Close()
		return nil, wrap(path, Npz, "not a valid zip archive", err)
	}
	if len(zr.File) > MaxEntries {
		fh.Close()
		return nil, bad("%d members, more than the limit of %d tensors", len(zr.File), MaxEntries)
	}
	f := newFile(path, Npz, fh.Close)
	keepHalf := opts != nil && opts.KeepHalf
	seen := map[string]bool{}
	for _, zf := range zr.File {
		e, err := npzEntry(zf, size, seen, keepHalf, f)
		if err != nil {
			fh.Close()
			return nil, wrap(path, Npz, "", err)
		}
		h := e.hdr
		ent := Entry{Name: e.name, Meta: h.meta(keepHalf), Stored: h.descr, Bytes: h.bytes}
		ent.load = func() (*tensor.Dense, error) {
			if !f.open() {
				return nil, bad("member %q loaded after the file was closed", zf.Name)
			}
			d, err := loadNpzMember(zf, h, keepHalf, opts)
			if err != nil {
				return nil, wrap(path, Npz, fmt.Sprintf("member %q", zf.Name), err)
			}
			return d, nil
		}
		f.Entries = append(f.Entries, ent)
	}
	return f, nil
}

type npzMember struct {
	name string
	hdr  npyHeader
}

// npzEntry validates one member and reads its npy header.
func npzEntry(zf *zip.File, size int64, seen map[string]bool, keepHalf bool, f *File) (npzMember, error) {
	var m npzMember
	if !strings.HasSuffix(zf.Name, ".npy") {
		return m, fmt.Errorf("member %q is not a .npy array", zf.Name)
	}
	m.name = strings.TrimSuffix(zf.Name, ".npy")
	if m.name == "" {
		return m, fmt.Errorf("member %q has an empty name", zf.Name)
	}
	if seen[m.name] {
		return m, fmt.Errorf("duplicate member %q", zf.Name)
	}
	seen[m.name] = true
	if err := checkZipMember(zf, size); err != nil {
		return m, err
	}
	rc, err := zf.Open()
	if err != nil {
		return m, fmt.Errorf("member %q: %w", zf.Name, err)
	}
	defer rc.Close()
	m.hdr, err = readNpyHeader(bufio.NewReaderSize(rc, 512))
	if err != nil {
		return m, fmt.Errorf("member %q: %v", zf.Name, err)
	}
	if want := uint64(m.hdr.dataOff) + uint64(m.hdr.bytes); zf.UncompressedSize64 != want {
		return m, fmt.Errorf("member %q holds %d bytes, but its header declares %s%v: %d bytes with the header",
			zf.Name, zf.UncompressedSize64, m.hdr.descr, m.hdr.shape, want)
	}
	m.hdr.noteConversions(f, keepHalf)
	return m, nil
}

// loadNpzMember decompresses a member's data and checks its CRC.
func loadNpzMember(zf *zip.File, h npyHeader, keepHalf bool, opts *Options) (*tensor.Dense, error) {
	rc, err := zf.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	if _, err := io.CopyN(io.Discard, rc, h.dataOff); err != nil {
		return nil, noEOF(err)
	}
	d, err := h.load(rc, keepHalf, opts)
	if err != nil {
		return nil, err
	}
	// Reading to the end makes the zip reader verify size and CRC-32.
	var one [1]byte
	if n, err := rc.Read(one[:]); n != 0 || !errors.Is(err, io.EOF) {
		if err == nil || errors.Is(err, io.EOF) {
			err = errors.New("data continues past the declared size")
		}
		return nil, err
	}
	return d, nil
}

// WriteNpz writes tensors under names as an .npz archive (as numpy.savez;
// compress deflates the members, as numpy.savez_compressed), atomically.
func WriteNpz(path string, names []string, ts []*tensor.Dense, compress bool) error {
	if err := checkNames(path, Npz, names, ts); err != nil {
		return err
	}
	for i, n := range names {
		if _, ok := npyDescr[ts[i].DType]; !ok {
			return errorf(path, Npz, "tensor %q: npy has no %v dtype (astype to float32 first)", n, ts[i].DType)
		}
	}
	method := zip.Store
	if compress {
		method = zip.Deflate
	}
	return writeAtomic(path, func(w io.Writer) error {
		zw := zip.NewWriter(w)
		for i, n := range names {
			mw, err := zw.CreateHeader(&zip.FileHeader{Name: n + ".npy", Method: method})
			if err != nil {
				return err
			}
			if err := encodeNpy(mw, ts[i]); err != nil {
				return fmt.Errorf("tensor %q: %w", n, err)
			}
		}
		return zw.Close()
	})
}

// checkZipMember refuses compression methods tref cannot read and sizes
// that the compressed data, which must fit in the archive of size bytes,
// cannot produce, so a member's declared size can be trusted before
// anything is allocated for it.
func checkZipMember(zf *zip.File, size int64) error {
	if zf.CompressedSize64 > uint64(size) {
		return fmt.Errorf("member %q claims %d compressed bytes, more than the %d-byte file holds", zf.Name, zf.CompressedSize64, size)
	}
	switch zf.Method {
	case zip.Store:
		if zf.UncompressedSize64 != zf.CompressedSize64 {
			return fmt.Errorf("member %q is stored but its sizes differ (%d vs %d)", zf.Name, zf.CompressedSize64, zf.UncompressedSize64)
		}
	case zip.Deflate:
		if zf.CompressedSize64 > (1<<63-1)/maxDeflateRatio ||
			zf.UncompressedSize64 > zf.CompressedSize64*maxDeflateRatio+1024 {
			return fmt.Errorf("member %q claims %d bytes from %d compressed bytes, more than deflate can produce", zf.Name, zf.UncompressedSize64, zf.CompressedSize64)
		}
	default:
		return fmt.Errorf("member %q uses compression method %d (want stored or deflated)", zf.Name, zf.Method)
	}
	return nil
}
