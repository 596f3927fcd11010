// Package formats reads and writes tensor files: safetensors, npy, npz, IDX
// (the MNIST format, optionally gzipped) and CSV of numbers, and reads
// PyTorch checkpoints (torch.save's zip format, .pt and .pth).
//
// Every file is untrusted input. Opening a file parses only its header (the
// safetensors JSON header, npy headers, the IDX dimensions, a checkpoint's
// zip directory and pickle) and checks the declared shapes and offsets
// against the file's size before anything is allocated; each tensor's data
// is read later, on demand, by its Entry's Load. A malformed file is an
// *Error naming the file and the problem, never a panic or an allocation
// sized by the file's claims.
//
// A checkpoint's pickle is read by a restricted unpickler that never
// imports or runs anything: it knows the opcodes torch.save writes and a
// fixed allow-list of globals (collections.OrderedDict, torch's tensor and
// parameter rebuilders, the storage classes), and any other global is an
// error naming it. The checkpoint must be a dict; its tensors, also those
// in nested dicts, lists and tuples, become entries named by their path
// of keys joined with "." (a checkpoint {"model": state_dict, "epoch": 3}
// gives "model.fc1.weight"; list items are named by index), and values
// that are not tensors (numbers, strings, None) are left out, with a
// note. Tensors that are strided views (a transpose, a slice at an
// offset, several tensors sharing one storage) are made contiguous on
// load.
//
// Writers are atomic: they write a temporary file in the target's
// directory and rename it over the target, so a failed or interrupted save
// never leaves a half-written file.
package formats

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/tref-lang/tref/runtime/safefile"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Kind is a file format.
type Kind uint8

// The formats Open understands.
const (
	Unknown Kind = iota
	Safetensors
	Npy
	Npz
	IDX
	CSV
	Torch
)

func (k Kind) String() string {
	return [...]string{"unknown", "safetensors", "npy", "npz", "idx", "csv", "torch"}[k]
}

// KindOf picks the format from a file name: .safetensors, .npy, .npz, .csv
// (also .csv.gz), .pt and .pth (PyTorch checkpoints), and IDX for names
// ending in -ubyte, .idx or idxN (the MNIST names, e.g.
// t10k-images-idx3-ubyte, optionally gzipped). A .bin name is Unknown
// here, because many formats use it; Open reads one as a checkpoint when
// its content is a zip archive (pytorch_model.bin).
func KindOf(path string) Kind {
	base := strings.ToLower(filepath.Base(path))
	switch {
	case strings.HasSuffix(base, ".safetensors"):
		return Safetensors
	case strings.HasSuffix(base, ".npy"):
		return Npy
	case strings.HasSuffix(base, ".npz"):
		return Npz
	case strings.HasSuffix(base, ".csv"), strings.HasSuffix(base, ".csv.gz"):
		return CSV
	case strings.HasSuffix(base, ".pt"), strings.HasSuffix(base, ".pth"):
		return Torch
	}
	base = strings.TrimSuffix(base, ".gz")
	if strings.HasSuffix(base, "-ubyte") || strings.HasSuffix(base, ".idx") {
		return IDX
	}
	if i := strings.LastIndex(base, "idx"); i >= 0 && len(base) == i+4 && base[i+3] >= '0' && base[i+3] <= '9' {
		return IDX
	}
	return Unknown
}

// Supported lists the file names Open accepts, for error messages.
const Supported = ".safetensors, .npz, .npy, .csv, .csv.gz, IDX (*-ubyte, *-ubyte.gz), PyTorch checkpoints (.pt, .pth, a zip .bin)"

// Options configure Open.
type Options struct {
	// Check, when set, is asked before any tensor buffer is allocated
	// (refs.HostPool.Check): a file declaring more data than the host may
	// hold fails before allocating.
	Check func(bytes int64) error
	// KeepHalf keeps float16 and bfloat16 tensors as they are stored;
	// otherwise they are converted to float32 on load, because the cpu
	// backend computes in float32.
	KeepHalf bool
	// MaxText bounds the decompressed text of a CSV file; 0 means
	// MaxCSVBytes.
	MaxText int64
}

func (o *Options) check(n int64) error {
	if o == nil || o.Check == nil {
		return nil
	}
	return o.Check(n)
}

// Entry is one tensor of an opened file.
type Entry struct {
	// Name is the tensor's key in the file ("fc1.weight"; a checkpoint's
	// nested keys joined with "."); empty for
	// single-tensor formats (npy, IDX, CSV).
	Name string
	// Meta is what Load returns, after any conversion (float16 stored,
	// float32 loaded).
	Meta tensor.Meta
	// Stored names the element type as the file stores it ("F16", "<i4",
	// "i16 big-endian", "HalfStorage"), for messages.
	Stored string
	// Bytes is the size of the tensor's data in the file.
	Bytes int64
	// load reads the data; see Load.
	load func() (*tensor.Dense, error)
}

// Load reads the entry's data from the file into a new, 8-byte aligned
// host tensor of exactly e.Meta. The File must not be closed yet.
func (e *Entry) Load() (*tensor.Dense, error) { return e.load() }

// File is an opened tensor file: its headers parsed, its data still on
// disk. It holds resources (a memory mapping) until Close; Retain and
// Release count additional holders, such as lazy refs.
type File struct {
	// Path is the name the file was opened by.
	Path string
	// Kind is its format.
	Kind Kind
	// Entries are its tensors in file order.
	Entries []Entry
	// Metadata is the safetensors __metadata__ map (nil otherwise).
	Metadata map[string]string
	// Notes describe conversions done on load ("float16 tensors are
	// loaded as float32"), one line each, for the user to see once.
	Notes []string

	mu       sync.Mutex
	holders  int
	closeRes func() error
}

// Single reports whether the format holds one unnamed tensor (npy, IDX,
// CSV) rather than a record of named tensors (safetensors, npz, torch).
func (f *File) Single() bool { return f.Kind == Npy || f.Kind == IDX || f.Kind == CSV }

// Retain adds a holder; each Retain needs one Release (or Close).
func (f *File) Retain() {
	f.mu.Lock()
	f.holders++
	f.mu.Unlock()
}

// Release drops a holder; the last one frees the file's resources (unmaps
// it). Entries must not be loaded afterwards.
func (f *File) Release() error {
	f.mu.Lock()
	f.holders--
	last := f.holders == 0
	res := f.closeRes
	if last {
		f.closeRes = nil
	}
	f.mu.Unlock()
	if last && res != nil {
		return res()
	}
	return nil
}

// Close is Release for the holder that opened the file.
func (f *File) Close() error { return f.Release() }

// open reports whether the file's resources are still held.
func (f *File) open() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.holders > 0
}

func (f *File) note(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	for _, n := range f.Notes {
		if n == msg {
			return
		}
	}
	f.Notes = append(f.Notes, msg)
}

// Open parses the header of the tensor file at path, choosing the format by
// its name (see KindOf; a .bin file is a PyTorch checkpoint if it is a zip
// archive). The returned File holds one reference: Close it.
func Open(path string, opts *Options) (*File, error) {
	switch KindOf(path) {
	case Safetensors:
		return OpenSafetensors(path, opts)
	case Npy:
		return OpenNpy(path, opts)
	case Npz:
		return OpenNpz(path, opts)
	case IDX:
		return OpenIDX(path, opts)
	case CSV:
		return OpenCSV(path, opts)
	case Torch:
		return OpenTorch(path, opts)
	}
	if strings.HasSuffix(strings.ToLower(path), ".bin") && isZip(path) {
		return OpenTorch(path, opts)
	}
	return nil, &Error{Path: path, Msg: "unknown file type (want " + Supported + ")"}
}

// isZip reports whether path is a regular file that starts with a zip
// archive's local header, as torch.load decides whether a file is a zip
// checkpoint.
func isZip(path string) bool {
	fh, _, err := safefile.Open(path)
	if err != nil {
		return false
	}
	defer fh.Close()
	var magic [4]byte
	_, err = io.ReadFull(fh, magic[:])
	return err == nil && string(magic[:]) == "PK\x03\x04"
}

func newFile(path string, kind Kind, closeRes func() error) *File {
	return &File{Path: path, Kind: kind, holders: 1, closeRes: closeRes}
}

// Error is a problem with a file: which file, which format, what is wrong.
type Error struct {
	Path   string
	Format Kind
	Msg    string
	Err    error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Path)
	b.WriteString(": ")
	if e.Format != Unknown {
		b.WriteString(e.Format.String())
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	if e.Err != nil {
		if e.Msg != "" {
			b.WriteString(": ")
		}
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

func errorf(path string, kind Kind, format string, args ...any) error {
	return &Error{Path: path, Format: kind, Msg: fmt.Sprintf(format, args...)}
}

// openRegular opens path for reading if it is a regular file (not a
// directory, device or pipe; see safefile.Open, which checks before
// opening so that a FIFO cannot block), returning its size. On error
// nothing stays open.
func openRegular(path string, kind Kind) (*os.File, int64, error) {
	fh, size, err := safefile.Open(path)
	var se *safefile.Error
	if errors.As(err, &se) {
		return nil, 0, errorf(path, kind, "%s", se.Msg)
	}
	return fh, size, err
}

// wrap attaches the file name to an underlying error (I/O, decompression).
func wrap(path string, kind Kind, msg string, err error) error {
	var fe *Error
	if errors.As(err, &fe) {
		return err
	}
	return &Error{Path: path, Format: kind, Msg: msg, Err: err}
}

// MaxEntries bounds the tensors of one file (safetensors, npz, torch):
// each costs memory for its header record however small its data, so a
// header of millions of empty tensors would take gigabytes. Published
// checkpoints hold a few thousand tensors per file.
const MaxEntries = 1 << 17

// maxDims bounds the rank of any tensor a file may declare.
const maxDims = 32

// checkedMeta validates a declared shape and returns its element count and
// byte size without overflow.
func checkedMeta(shape tensor.Shape, elemSize int) (numel int, bytes int64, err error) {
	if len(shape) > maxDims {
		return 0, 0, fmt.Errorf("rank %d exceeds the limit of %d", len(shape), maxDims)
	}
	n, err := tensor.CheckedNumel(shape)
	if err != nil {
		return 0, 0, err
	}
	return n, int64(n) * int64(elemSize), nil
}
