package formats

import (
	"fmt"
	"os"
	"runtime/debug"
	"syscall"
)

// mapping is a read-only memory map of a whole file.
type mapping struct {
	data []byte
}

// mapFile maps f (of the given size) read-only and shared, so its pages
// come from the page cache on demand and cost no heap memory.
func mapFile(f *os.File, size int64) (*mapping, error) {
	if size <= 0 {
		return &mapping{}, nil
	}
	if int64(int(size)) != size {
		return nil, fmt.Errorf("file of %d bytes is too large to map", size)
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("mmap: %w", err)
	}
	return &mapping{data: data}, nil
}

func (m *mapping) unmap() error {
	if m.data == nil {
		return nil
	}
	err := syscall.Munmap(m.data)
	m.data = nil
	return err
}

// read passes m.data[off:off+n] to fn, turning a fault while
// reading the mapping (the file was truncated under us: SIGBUS) into an
// error instead of a crash.
func (m *mapping) read(off, n int64, fn func(src []byte) error) (err error) {
	if off < 0 || n < 0 || off > int64(len(m.data)) || n > int64(len(m.data))-off {
		return fmt.Errorf("range [%d, %d) outside the %d-byte mapping", off, off+n, len(m.data))
	}
	src := m.data[off : off+n]
	if n > 0 {
		// Ask the kernel to read ahead: first touch of a cold file then
		// streams instead of faulting page by page. Advice only.
		_ = syscall.Madvise(src, syscall.MADV_WILLNEED)
	}
	old := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(old)
		if r := recover(); r != nil {
			err = fmt.Errorf("reading the mapped file failed (was it truncated while open?): %v", r)
		}
	}()
	return fn(src)
}
