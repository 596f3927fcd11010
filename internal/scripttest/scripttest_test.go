package scripttest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tref-lang/tref/runtime/backend/cpu"
)

func TestRunReturnsOutputAndStats(t *testing.T) {
	out, stats := Run(t, &cpu.Device{}, "t.tr", []byte("print(argv, (ones(4) * 2).sum())"), "a", "b")
	if out != "[\"a\", \"b\"] 8.0\n" {
		t.Errorf("output %q", out)
	}
	if p := Peak(t, stats, "cpu"); p <= 0 {
		t.Errorf("cpu peak %d, want the bytes of the tensors", p)
	}
}

func TestRunReadsTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.tr")
	if err := os.WriteFile(path, []byte("print(1 + 1)"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, _ := Run(t, &cpu.Device{}, path, nil); out != "2\n" {
		t.Errorf("output %q", out)
	}
}
