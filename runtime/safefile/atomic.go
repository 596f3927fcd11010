package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
)

// Atomic is a file being written in place of another: the data goes to a
// temporary file in the target's directory, and Commit renames it over
// the target, so a failed or interrupted write never leaves a
// half-written file, and readers see the old file or the new one.
//
// It writes where numpy's np.save would (which opens the path for
// writing): through a symbolic link to the file it names, keeping the
// link; an existing target keeps its permission bits; a target that
// cannot be opened for writing (read-only) is refused with the system's
// permission error before anything is written; a target that is not a
// regular file (a device, a FIFO, a directory) is refused, and so is one
// without any write permission bit, even for root (who np.save lets
// write it). Unlike
// np.save it replaces the file rather than writing into it, so other hard
// links to the old file keep the old data, and it needs write permission
// on the directory.
type Atomic struct {
	f      *os.File
	target string // the file the rename replaces, links resolved
	mode   fs.FileMode
	done   bool
}

// inflight holds the temporary files of writes in progress, so that a
// signal handler can remove them (RemoveTemps) before the process exits.
var (
	inflightMu sync.Mutex
	inflight   = map[string]bool{}
	stopped    atomic.Bool
)

// errStopped is what writes get once RemoveTemps ran.
var errStopped = errors.New("interrupted: the process is exiting")

// CreateAtomic starts writing path (see Atomic). The caller writes to the
// returned file and then calls Commit, or Abort on failure; Abort after
// Commit does nothing, so it may be deferred.
func CreateAtomic(path string) (*Atomic, error) {
	target, err := writeTarget(path, 0)
	if err != nil {
		return nil, err
	}
	mode := fs.FileMode(0o644)
	if st, err := os.Stat(target); err == nil {
		if !st.Mode().IsRegular() {
			return nil, notRegular(path, st.Mode())
		}
		// Ask the system whether the file may be written, as opening it
		// for writing (np.save) would; O_NONBLOCK keeps a FIFO swapped in
		// from blocking, and nothing is truncated. A file without any
		// write bit is refused even where the system would allow it
		// (root).
		if st.Mode().Perm()&0o222 == 0 {
			return nil, &Error{Path: path, Msg: "read-only file (" + st.Mode().Perm().String() + "): not replaced"}
		}
		fh, err := os.OpenFile(target, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			return nil, err
		}
		fh.Close()
		mode = st.Mode().Perm()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	inflightMu.Lock()
	defer inflightMu.Unlock()
	if stopped.Load() {
		return nil, errStopped
	}
	tmp, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".tmp-*")
	if err != nil {
		return nil, err
	}
	inflight[tmp.Name()] = true
	return &Atomic{f: tmp, target: target, mode: mode}, nil
}

// writeTarget follows path's symbolic links to the file a write through
// it would create or replace.
func writeTarget(path string, links int) (string, error) {
	st, err := os.Lstat(path)
	if err != nil || st.Mode()&fs.ModeSymlink == 0 {
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		return path, nil
	}
	dest, err := followLink(path, links)
	if err != nil {
		return "", err
	}
	return writeTarget(dest, links+1)
}

// followLink reads the symbolic link at path, the links+1st followed, and
// returns where it points (relative to the link's directory).
func followLink(path string, links int) (string, error) {
	if links >= 40 {
		return "", &Error{Path: path, Msg: "too many levels of symbolic links"}
	}
	dest, err := os.Readlink(path)
	if err != nil {
		return "", err
	}
	if !filepath.IsAbs(dest) {
		dest = filepath.Join(filepath.Dir(path), dest)
	}
	return dest, nil
}

// Write writes to the temporary file; after RemoveTemps it fails.
func (a *Atomic) Write(p []byte) (int, error) {
	if stopped.Load() {
		return 0, errStopped
	}
	return a.f.Write(p)
}

// Name is the temporary file's name.
func (a *Atomic) Name() string { return a.f.Name() }

// Commit syncs the temporary file, gives it the target's mode and renames
// it over the target. On error the temporary file is removed and the
// target is as it was.
func (a *Atomic) Commit() error {
	if a.done {
		return errors.New("safefile: Commit after Commit or Abort")
	}
	err := a.f.Sync()
	if err == nil {
		err = a.f.Chmod(a.mode) // CreateTemp made it 0600
	}
	if cerr := a.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		a.Abort()
		return err
	}
	inflightMu.Lock()
	defer inflightMu.Unlock()
	a.done = true
	delete(inflight, a.f.Name())
	if stopped.Load() {
		os.Remove(a.f.Name())
		return errStopped
	}
	if err := os.Rename(a.f.Name(), a.target); err != nil {
		os.Remove(a.f.Name())
		return err
	}
	return nil
}

// Abort discards the write: the temporary file is removed, the target
// stays as it was.
func (a *Atomic) Abort() {
	if a.done {
		return
	}
	a.done = true
	a.f.Close()
	inflightMu.Lock()
	delete(inflight, a.f.Name())
	inflightMu.Unlock()
	os.Remove(a.f.Name())
}

// RemoveTemps removes the temporary files of every write in progress and
// makes writes fail from then on, so that no rename happens after it: a
// signal handler calls it just before the process exits, leaving each
// target as it was (or as a write that committed before left it).
func RemoveTemps() {
	inflightMu.Lock()
	defer inflightMu.Unlock()
	stopped.Store(true)
	for name := range inflight {
		os.Remove(name)
		delete(inflight, name)
	}
}
