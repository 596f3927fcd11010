// Package safefile opens the files that scripts name — sources to import,
// hooks, tensor files to load or save — as untrusted input: only regular
// files are read, never a FIFO, a device or a directory, and never more
// than a stated number of bytes; a Sandbox confines every path to one
// directory tree.
//
// Every reader and writer of such files goes through here (the
// interpreter's import and --hooks via eval.ReadSource, runtime/formats
// for load and save, and through formats.Map the ONNX loader), so a new
// loader gets the same checks by calling Open (or ReadFile) before
// reading, CreateAtomic to write, and Sandbox.Check on every path a
// script names. RemoveTemps is for a signal handler: it discards the
// writes in flight.
package safefile

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// Error is a refused file: which one and why ("not a regular file (a
// named pipe)"). It is what Open, ReadFile and Sandbox.Check return for
// the problems they find themselves; errors of the system (no such file,
// permission denied) come as the os package gives them.
type Error struct {
	Path string
	Msg  string
}

func (e *Error) Error() string { return e.Path + ": " + e.Msg }

// Open opens path for reading if it is a regular file, and returns it
// with its size. It checks before opening (stat), so that a FIFO, whose
// open would wait for a writer, or a device is refused without blocking;
// it opens with O_NONBLOCK, so that a FIFO swapped in after the check
// does not block either; and it checks the opened file again (fstat), so
// that what it returns is the regular file it checked. On error nothing
// stays open.
func Open(path string) (*os.File, int64, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, 0, err
	}
	if !st.Mode().IsRegular() {
		return nil, 0, notRegular(path, st.Mode())
	}
	fh, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, 0, err
	}
	fst, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, 0, err
	}
	if !fst.Mode().IsRegular() {
		fh.Close()
		return nil, 0, notRegular(path, fst.Mode())
	}
	if !os.SameFile(st, fst) {
		fh.Close()
		return nil, 0, &Error{Path: path, Msg: "changed while being opened"}
	}
	return fh, fst.Size(), nil
}

// notRegular names what a path is instead of a regular file.
func notRegular(path string, m fs.FileMode) error {
	what := "a special file"
	switch {
	case m.IsDir():
		what = "a directory"
	case m&fs.ModeNamedPipe != 0:
		what = "a named pipe"
	case m&fs.ModeSocket != 0:
		what = "a socket"
	case m&fs.ModeCharDevice != 0:
		what = "a character device"
	case m&fs.ModeDevice != 0:
		what = "a device"
	}
	return &Error{Path: path, Msg: "not a regular file (" + what + ")"}
}

// ReadFile reads the regular file at path whole, refusing one of more
// than max bytes before reading it, and reading at most max bytes even if
// the file grows meanwhile.
func ReadFile(path string, max int64) ([]byte, error) {
	fh, size, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	if size > max {
		return nil, tooLarge(path, size, max)
	}
	buf := make([]byte, 0, size+1)
	for {
		if int64(len(buf)) > max {
			return nil, tooLarge(path, int64(len(buf)), max)
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := fh.Read(buf[len(buf):min(cap(buf), int(max)+1)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

func tooLarge(path string, size, max int64) error {
	return &Error{Path: path, Msg: fmt.Sprintf("file of %d bytes is larger than the limit of %d bytes", size, max)}
}
