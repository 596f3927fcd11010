package formats

import (
	"bufio"
	"errors"
	"io"
	"io/fs"

	"github.com/tref-lang/tref/runtime/safefile"
)

// writeAtomic writes path through fn: into a temporary file in the same
// directory, flushed and synced, then renamed over path (safefile.Atomic:
// through a symbolic link to its target, keeping an existing file's
// mode, refusing a read-only or special file). On any failure the
// temporary file is removed and path is left as it was.
func writeAtomic(path string, fn func(w io.Writer) error) (err error) {
	kind := KindOf(path)
	a, err := safefile.CreateAtomic(path)
	if err != nil {
		var se *safefile.Error
		if errors.As(err, &se) {
			return errorf(path, kind, "%s", se.Msg)
		}
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the path is named already
		}
		return &Error{Path: path, Format: kind, Msg: "cannot write", Err: err}
	}
	defer a.Abort()
	bw := bufio.NewWriterSize(a, 1<<20)
	if err = fn(bw); err != nil {
		return wrap(path, kind, "write", err)
	}
	if err = bw.Flush(); err != nil {
		return wrap(path, kind, "write", err)
	}
	if err = a.Commit(); err != nil {
		return wrap(path, kind, "", err)
	}
	return nil
}
