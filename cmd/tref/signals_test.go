package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startTref starts this test binary as tref (TestMain) in dir.
func startTref(t *testing.T, dir string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TREF_TEST_AS_TREF=1", "NO_COLOR=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
		if t.Failed() {
			t.Logf("stderr:\n%s", stderr.String())
		}
	})
	return cmd
}

// waitForTemp waits until a temporary file of an atomic write in dir has
// data (the write is in flight) and returns its name.
func waitForTemp(t *testing.T, dir string) string {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		// Mid-write: the temporary file has some of its data.
		for _, tmp := range temps(t, dir) {
			if st, err := os.Stat(filepath.Join(dir, tmp)); err == nil && st.Size() > 0 {
				return tmp
			}
		}
		time.Sleep(time.Millisecond)
	}
	t.Fatal("no write started within 60 s")
	return ""
}

func temps(t *testing.T, dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp-") {
			out = append(out, e.Name())
		}
	}
	return out
}

// stopAndCheck sends sig once a write is in flight and checks the exit
// status and that target holds what it held before, with no temporary
// file left.
func stopAndCheck(t *testing.T, cmd *exec.Cmd, dir, target string, sig syscall.Signal, wantCode int) {
	t.Helper()
	old, err := os.ReadFile(filepath.Join(dir, target))
	if err != nil {
		t.Fatal(err)
	}
	tmp := waitForTemp(t, dir)
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != wantCode {
		t.Fatalf("exit: %v, want status %d", err, wantCode)
	}
	if left := temps(t, dir); len(left) > 0 {
		t.Errorf("temporary files left: %v (the write in flight was %s)", left, tmp)
	}
	now, err := os.ReadFile(filepath.Join(dir, target))
	if err != nil || string(now) != string(old) {
		t.Errorf("%s changed: %d bytes, %v (was %d bytes)", target, len(now), err, len(old))
	}
}

// TestSignalDuringSave: SIGTERM while a 256 MB tensor is being saved
// leaves the old file and no temporary file, and tref exits 143.
func TestSignalDuringSave(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "big.npy"), []byte("the old file"), 0o644)
	os.WriteFile(filepath.Join(dir, "save.tr"), []byte(`let x = rand([64, 1024, 1024])
save("big.npy", x)
save("big.npy", x + 1)
`), 0o644)
	cmd := startTref(t, dir, "run", "save.tr")
	stopAndCheck(t, cmd, dir, "big.npy", syscall.SIGTERM, 143)
}

// TestSignalDuringTrace: Ctrl-C (SIGINT) during `tref trace -o` keeps
// the earlier good trace at that path (the new one is written to a
// temporary file and renamed only when complete), and tref exits 130.
func TestSignalDuringTrace(t *testing.T) {
	for _, format := range []string{"jsonl", "chrome"} {
		t.Run(format, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "t.out"), []byte(`{"kind": "summary"}`+"\n"), 0o644)
			os.WriteFile(filepath.Join(dir, "loop.tr"), []byte(`let w = rand([64, 64])
let x = rand([64, 64])
while true { x = relu(x @ w) / 64 }
`), 0o644)
			cmd := startTref(t, dir, "trace", "--device", "sim", "--mem", "1MiB", "--format", format, "-o", "t.out", "loop.tr")
			stopAndCheck(t, cmd, dir, "t.out", syscall.SIGINT, 130)
		})
	}
}

// TestTraceWritesAtomically: a finished trace replaces the old file and
// keeps its mode.
func TestTraceWritesAtomically(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "t.jsonl"), []byte("old"), 0o600)
	os.WriteFile(filepath.Join(dir, "s.tr"), []byte("let x = ones([4]) + 1\nprint(x.sum().item())\n"), 0o644)
	cmd := startTref(t, dir, "trace", "--device", "sim", "--format", "jsonl", "-o", "t.jsonl", "s.tr")
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "t.jsonl"))
	if err != nil || !strings.Contains(string(b), `"kind":"summary"`) {
		t.Fatalf("trace: %q, %v", b, err)
	}
	if st, _ := os.Stat(filepath.Join(dir, "t.jsonl")); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want the old file's -rw-------", st.Mode().Perm())
	}
	if left := temps(t, dir); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
