package formats

// Mapped is a read-only memory map of a whole regular file, for decoders
// outside this package (the ONNX frontend) that read tensors in place
// from the file, as the safetensors loader does.
type Mapped struct {
	m    *mapping
	size int64
}

// Map opens path, checks that it is a regular file and maps it read-only.
// Close unmaps it; the slices Data returned must not be used afterwards.
func Map(path string) (*Mapped, error) {
	fh, size, err := openRegular(path, Unknown)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	m, err := mapFile(fh, size)
	if err != nil {
		return nil, wrap(path, Unknown, "", err)
	}
	return &Mapped{m: m, size: size}, nil
}

// Size is the file's size in bytes.
func (m *Mapped) Size() int64 { return m.size }

// Data is the whole mapping (nil for an empty file). Reading it may fault
// if the file is truncated while mapped: parse headers from it, and read
// tensor data through Read, which turns such a fault into an error.
func (m *Mapped) Data() []byte { return m.m.data }

// Read passes the bytes [off, off+n) of the file to fn, turning a fault
// while reading them (the file was truncated under us) into an error.
func (m *Mapped) Read(off, n int64, fn func(src []byte) error) error { return m.m.read(off, n, fn) }

// Close unmaps the file.
func (m *Mapped) Close() error { return m.m.unmap() }
