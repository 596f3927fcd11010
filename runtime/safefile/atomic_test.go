package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func writeAll(t *testing.T, path, data string) error {
	t.Helper()
	a, err := CreateAtomic(path)
	if err != nil {
		return err
	}
	defer a.Abort()
	if _, err := a.Write([]byte(data)); err != nil {
		return err
	}
	return a.Commit()
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// noTemps fails if a temporary file is left in dir.
func noTemps(t *testing.T, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

func TestAtomicNewAndReplace(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "x.npy")
	if err := writeAll(t, p, "one"); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(p)
	if got := read(t, p); got != "one" || st.Mode().Perm() != 0o644 {
		t.Errorf("new file: %q mode %v, want \"one\" -rw-r--r--", got, st.Mode().Perm())
	}
	// An existing file keeps its mode.
	if err := os.Chmod(p, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := writeAll(t, p, "two"); err != nil {
		t.Fatal(err)
	}
	st, _ = os.Stat(p)
	if got := read(t, p); got != "two" || st.Mode().Perm() != 0o640 {
		t.Errorf("replaced: %q mode %v, want \"two\" -rw-r-----", got, st.Mode().Perm())
	}
	noTemps(t, dir)
}

func TestAtomicAbortKeepsOld(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "x.npy")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := CreateAtomic(p)
	if err != nil {
		t.Fatal(err)
	}
	a.Write([]byte("partial"))
	a.Abort()
	a.Abort()
	if err := a.Commit(); err == nil {
		t.Error("Commit after Abort succeeded")
	}
	if got := read(t, p); got != "old" {
		t.Errorf("after Abort: %q, want old", got)
	}
	noTemps(t, dir)
}

// TestAtomicReadOnly: np.save opens the path for writing, so a read-only
// file is a permission error and stays as it was.
func TestAtomicReadOnly(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "x.npy")
	if err := os.WriteFile(p, []byte("old"), 0o444); err != nil {
		t.Fatal(err)
	}
	err := writeAll(t, p, "new")
	if err == nil || !strings.Contains(err.Error(), "read-only file (-r--r--r--)") {
		t.Errorf("err = %v, want read-only", err)
	}
	st, _ := os.Stat(p)
	if got := read(t, p); got != "old" || st.Mode().Perm() != 0o444 {
		t.Errorf("read-only file changed: %q %v", got, st.Mode().Perm())
	}
	noTemps(t, dir)
	if os.Geteuid() != 0 {
		// A write bit for others, but not for the owner (this user).
		if err := os.Chmod(p, 0o406); err != nil {
			t.Fatal(err)
		}
		if err := writeAll(t, p, "new"); !errors.Is(err, fs.ErrPermission) {
			t.Errorf("owner without write permission: err = %v, want permission denied", err)
		}
	}
}

// TestAtomicSymlink: np.save writes through a link to its target; the
// link stays a link.
func TestAtomicSymlink(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "data"), 0o755); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(dir, "data", "w.npy")
	if err := os.WriteFile(target, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "w.npy")
	if err := os.Symlink("data/w.npy", link); err != nil {
		t.Fatal(err)
	}
	chain := filepath.Join(dir, "w2.npy")
	if err := os.Symlink("w.npy", chain); err != nil {
		t.Fatal(err)
	}
	if err := writeAll(t, chain, "new"); err != nil {
		t.Fatal(err)
	}
	for _, l := range []string{link, chain} {
		if st, err := os.Lstat(l); err != nil || st.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("%s is no longer a link", l)
		}
	}
	st, _ := os.Stat(target)
	if got := read(t, target); got != "new" || st.Mode().Perm() != 0o600 {
		t.Errorf("target: %q %v, want new -rw-------", got, st.Mode().Perm())
	}
	// A dangling link: the write creates the file it names.
	dangling := filepath.Join(dir, "d.npy")
	if err := os.Symlink("data/made.npy", dangling); err != nil {
		t.Fatal(err)
	}
	if err := writeAll(t, dangling, "made"); err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(dir, "data", "made.npy")); got != "made" {
		t.Errorf("through a dangling link: %q", got)
	}
	noTemps(t, dir)
	noTemps(t, filepath.Join(dir, "data"))
	loop := filepath.Join(dir, "loop.npy")
	if err := os.Symlink("loop.npy", loop); err != nil {
		t.Fatal(err)
	}
	if err := writeAll(t, loop, "x"); err == nil || !strings.Contains(err.Error(), "too many levels") {
		t.Errorf("link loop: err = %v", err)
	}
}

func TestAtomicSpecialTargets(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe.npy")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	mustFail(t, "not a regular file (a named pipe)", func() error { return writeAll(t, fifo, "x") })
	mustFail(t, "not a regular file (a directory)", func() error { return writeAll(t, dir, "x") })
	mustFail(t, "not a regular file (a character device)", func() error { return writeAll(t, "/dev/null", "x") })
	noTemps(t, dir)
}

// TestRemoveTemps is what a signal handler does: temporary files of
// writes in flight go, their targets stay, and nothing commits after.
// It runs last in this package's order of use: it stops every later
// write of the process.
func TestRemoveTemps(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "x.npy")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := CreateAtomic(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Write([]byte("partial")); err != nil {
		t.Fatal(err)
	}
	RemoveTemps()
	defer stopped.Store(false)
	noTemps(t, dir)
	if _, err := a.Write([]byte("more")); err == nil {
		t.Error("Write after RemoveTemps succeeded")
	}
	if err := a.Commit(); err == nil {
		t.Error("Commit after RemoveTemps succeeded")
	}
	if _, err := CreateAtomic(p); err == nil {
		t.Error("CreateAtomic after RemoveTemps succeeded")
	}
	if got := read(t, p); got != "old" {
		t.Errorf("target after RemoveTemps: %q, want old", got)
	}
	noTemps(t, dir)
}
