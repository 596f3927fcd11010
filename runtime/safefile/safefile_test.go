package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// mustFail runs fn with a deadline: refusing a FIFO must not block in open.
func mustFail(t *testing.T, want string, fn func() error) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("err = %v, want one containing %q", err, want)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("blocked (want an error containing %q)", want)
	}
}

func TestOpenRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	mustFail(t, "not a regular file (a named pipe)", func() error { _, _, err := Open(fifo); return err })
	mustFail(t, "not a regular file (a named pipe)", func() error { _, err := ReadFile(fifo, 10); return err })
	mustFail(t, "not a regular file (a directory)", func() error { _, _, err := Open(dir); return err })
	mustFail(t, "not a regular file (a character device)", func() error { _, err := ReadFile("/dev/zero", 1<<20); return err })
	var fe *Error
	_, _, err := Open(fifo)
	if !errors.As(err, &fe) || fe.Path != fifo {
		t.Errorf("err = %#v, want a *Error naming the FIFO", err)
	}
	if _, _, err := Open(filepath.Join(dir, "missing")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: err = %v, want ErrNotExist", err)
	}
}

func TestReadFileLimit(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := os.WriteFile(p, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, max := range []int64{10, 11, 1 << 20} {
		b, err := ReadFile(p, max)
		if err != nil || string(b) != "0123456789" {
			t.Errorf("ReadFile(max %d) = %q, %v", max, b, err)
		}
	}
	if _, err := ReadFile(p, 9); err == nil || !strings.Contains(err.Error(), "file of 10 bytes is larger than the limit of 9 bytes") {
		t.Errorf("over the limit: err = %v", err)
	}
	empty := filepath.Join(dir, "e")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(empty, 0); err != nil || len(b) != 0 {
		t.Errorf("empty file: %q, %v", b, err)
	}
}

// TestReadFileGrowing reads a file that claims size 0 but has content
// (as /proc files do): the limit still holds.
func TestReadFileGrowing(t *testing.T) {
	b, err := ReadFile("/proc/self/status", 1<<20)
	if err != nil || !strings.Contains(string(b), "VmSize") {
		t.Fatalf("ReadFile(/proc/self/status) = %d bytes, %v", len(b), err)
	}
	if _, err := ReadFile("/proc/self/status", 16); err == nil || !strings.Contains(err.Error(), "larger than the limit of 16 bytes") {
		t.Errorf("err = %v, want the limit", err)
	}
}

func TestSandbox(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "root")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(root, "sub"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(p string) {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(root, "sub", "in.tr"))
	write(filepath.Join(outside, "secret"))
	link := func(target, name string) {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	link(filepath.Join(outside, "secret"), "abs-out")
	link("../outside/secret", "rel-out")
	link("sub/in.tr", "rel-in")
	link(outside, "dir-out")
	link(filepath.Join(outside, "new"), "dangling-out")
	link("sub/new", "dangling-in")
	link("dangling-out", "chain-out")

	s, err := NewSandbox(root)
	if err != nil {
		t.Fatal(err)
	}
	ok := []string{
		filepath.Join(root, "sub", "in.tr"),
		filepath.Join(root, "sub", "..", "sub", "in.tr"),
		filepath.Join(root, "new.npy"), // does not exist yet
		filepath.Join(root, "rel-in"),
		filepath.Join(root, "dangling-in"),
		root,
	}
	for _, p := range ok {
		if err := s.Check(p); err != nil {
			t.Errorf("Check(%s) = %v, want allowed", p, err)
		}
	}
	bad := []string{
		filepath.Join(root, "..", "outside", "secret"),
		filepath.Join(root, "abs-out"),
		filepath.Join(root, "rel-out"),
		filepath.Join(root, "dir-out", "secret"),
		filepath.Join(root, "dir-out", "new.npy"),
		filepath.Join(root, "dangling-out"),
		filepath.Join(root, "chain-out"),
		"/proc/self/environ",
		base,
		filepath.Join(base, "rootx"), // a sibling sharing the prefix
	}
	for _, p := range bad {
		err := s.Check(p)
		var fe *Error
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), "outside the sandbox") {
			t.Errorf("Check(%s) = %v, want outside the sandbox", p, err)
		}
	}
	if err := s.Check(filepath.Join(root, "nodir", "x.npy")); err == nil {
		t.Errorf("a file in a missing directory: want an error")
	}
	var none *Sandbox
	if err := none.Check("/proc/self/environ"); err != nil || none.Root() != "" {
		t.Errorf("nil sandbox: %v %q", err, none.Root())
	}
}

func TestSandboxRelative(t *testing.T) {
	root := t.TempDir()
	t.Chdir(root)
	if err := os.Mkdir("d", 0o755); err != nil {
		t.Fatal(err)
	}
	s, err := NewSandbox("d")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Check("d/x.npy"); err != nil {
		t.Errorf("d/x.npy: %v", err)
	}
	if err := s.Check("x.npy"); err == nil {
		t.Errorf("x.npy beside d: want outside the sandbox")
	}
}
