package formats

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
)

// writeAtomic writes path through fn: into a temporary file in the same
// directory, flushed and synced, then renamed over path. On any failure
// the temporary file is removed and path is left as it was.
func writeAtomic(path string, fn func(w io.Writer) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return &Error{Path: path, Msg: "cannot create a temporary file", Err: err}
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	bw := bufio.NewWriterSize(tmp, 1<<20)
	if err = fn(bw); err != nil {
		return wrap(path, KindOf(path), "write", err)
	}
	if err = bw.Flush(); err != nil {
		return wrap(path, KindOf(path), "write", err)
	}
	if err = tmp.Sync(); err != nil {
		return wrap(path, KindOf(path), "sync", err)
	}
	if err = tmp.Close(); err != nil {
		return wrap(path, KindOf(path), "close", err)
	}
	// CreateTemp makes the file 0600; saved tensors are ordinary files.
	if err = os.Chmod(tmp.Name(), 0o644); err != nil {
		return wrap(path, KindOf(path), "chmod", err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return wrap(path, KindOf(path), "rename", err)
	}
	return nil
}
