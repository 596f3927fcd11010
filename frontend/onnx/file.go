// Package onnx is tref's second frontend: it decodes ONNX model files and
// runs their graphs as ordinary runtime ops, so a model exported from any
// framework gets tref's placement, lifetime, traces and backends.
//
// Opening a file maps it and decodes its protobuf messages by hand
// (protowire); tensor data stays in the mapped file (or its external data
// files) until a ref is first read, as with safetensors. Every count,
// depth, shape and offset the file declares is checked before anything
// sized by it is allocated.
package onnx

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/tref-lang/tref/runtime/formats"
	"github.com/tref-lang/tref/runtime/tensor"
)

// File is an opened ONNX model: its decoded messages and the mapped file
// its tensors are read from. It holds the mappings until its last holder
// releases it (Retain and Release, as formats.File).
type File struct {
	// Path is the name the file was opened by.
	Path  string
	Model *Model
	dir   string
	// check is asked before a tensor's host buffer is allocated.
	check func(int64) error

	mu      sync.Mutex
	holders int
	mapped  source
	extern  map[string]*formats.Mapped
}

// source is where a file's bytes are read from: its memory mapping
// (formats.Mapped), or memory in tests.
type source interface {
	Read(off, n int64, fn func([]byte) error) error
	Close() error
}

// Options configure Open.
type Options struct {
	// Check, when set, is asked before any tensor buffer is allocated
	// (refs.HostPool.Check).
	Check func(bytes int64) error
}

// Open maps and decodes the model file at path. The File holds one
// reference: Close it.
func Open(path string, opts *Options) (*File, error) {
	m, err := formats.Map(path)
	if err != nil {
		return nil, err
	}
	var model *Model
	err = m.Read(0, m.Size(), func(b []byte) error {
		var err error
		model, err = Decode(b, 0)
		return err
	})
	if err != nil {
		m.Close()
		return nil, fmt.Errorf("%s: onnx: %w", path, err)
	}
	f := &File{Path: path, Model: model, dir: filepath.Dir(path), holders: 1, mapped: m}
	if opts != nil {
		f.check = opts.Check
	}
	return f, nil
}

// Retain adds a holder; each Retain needs one Release.
func (f *File) Retain() {
	f.mu.Lock()
	f.holders++
	f.mu.Unlock()
}

// Release drops a holder; the last one unmaps the model file and its
// external data files.
func (f *File) Release() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.holders--; f.holders > 0 || f.mapped == nil {
		return nil
	}
	err := f.mapped.Close()
	f.mapped = nil
	for _, x := range f.extern {
		err = errors.Join(err, x.Close())
	}
	f.extern = nil
	return err
}

// Close is Release for the holder that opened the file.
func (f *File) Close() error { return f.Release() }

// Load reads t's data (t is one of the file's tensors) into a new host
// tensor.
func (f *File) Load(t *Tensor) (*tensor.Dense, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.mapped == nil {
		return nil, fmt.Errorf("%s: tensor %q loaded after the model was closed", f.Path, t.Name)
	}
	d, err := t.load(f.mapped.Read, f.openExternal, f.check)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Path, err)
	}
	return d, nil
}

// openExternal maps an external data file, once per location. The
// location must name a file inside the model's folder: absolute paths,
// paths that climb out with "..", and symbolic links that lead out are
// refused.
func (f *File) openExternal(e *External) (reader, int64, error) {
	if x, ok := f.extern[e.Location]; ok {
		return x.Read, x.Size(), nil
	}
	p, err := localPath(f.dir, e.Location)
	if err != nil {
		return nil, 0, err
	}
	x, err := formats.Map(p)
	if err != nil {
		return nil, 0, err
	}
	if f.extern == nil {
		f.extern = map[string]*formats.Mapped{}
	}
	f.extern[e.Location] = x
	return x.Read, x.Size(), nil
}

// localPath resolves an external data location against the model's
// folder, refusing any that leads outside it.
func localPath(dir, loc string) (string, error) {
	if filepath.IsAbs(loc) || !filepath.IsLocal(filepath.FromSlash(loc)) {
		return "", fmt.Errorf("external data location %q is outside the model's folder", loc)
	}
	p := filepath.Join(dir, filepath.FromSlash(loc))
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("external data file %q: %w", loc, err)
		}
		return "", err
	}
	rel, err := filepath.Rel(realDir, real)
	if err != nil || !filepath.IsLocal(rel) || strings.HasPrefix(rel, "..") {
		return "", fmt.Errorf("external data location %q leads outside the model's folder", loc)
	}
	return p, nil
}

// ReadTensor reads a file holding one serialized TensorProto (the
// input_N.pb and output_N.pb files of ONNX test cases) into a host tensor.
func ReadTensor(path string) (*Tensor, *tensor.Dense, error) {
	m, err := formats.Map(path)
	if err != nil {
		return nil, nil, err
	}
	defer m.Close()
	var t *Tensor
	if err := m.Read(0, m.Size(), func(b []byte) error {
		var err error
		t, err = decodeTensor(b, 0)
		return err
	}); err != nil {
		return nil, nil, fmt.Errorf("%s: onnx: %w", path, err)
	}
	if t.External != nil {
		return nil, nil, fmt.Errorf("%s: onnx: tensor %q has external data", path, t.Name)
	}
	d, err := t.load(m.Read, nil, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: onnx: %w", path, err)
	}
	return t, d, nil
}
