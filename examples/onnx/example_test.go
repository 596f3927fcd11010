// Package onnxexample runs examples/onnx/ocr.tr end to end: PaddleOCR's
// recognition model (fetched from npm by scripts/onnx-models/fetch.sh)
// must read the rendered line exactly.
package onnxexample

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tref-lang/tref/internal/scripttest"
	"github.com/tref-lang/tref/runtime/backend/cpu"
)

// recModel is where fetch.sh leaves the recognition model.
func recModel() string {
	dir := os.Getenv("TREF_ONNX_MODELS")
	if dir == "" {
		cache := os.Getenv("XDG_CACHE_HOME")
		if cache == "" {
			home, _ := os.UserHomeDir()
			cache = filepath.Join(home, ".cache")
		}
		dir = filepath.Join(cache, "tref", "onnx-models")
	}
	return filepath.Join(dir, "node_modules", "@gutenye", "ocr-models", "assets", "ch_PP-OCRv4_rec_infer.onnx")
}

func TestOCR(t *testing.T) {
	model := recModel()
	if _, err := os.Stat(model); err != nil {
		if os.Getenv("TREF_REQUIRE_ONNX_MODELS") != "" {
			t.Fatalf("the OCR model is not fetched (%v): run scripts/onnx-models/fetch.sh", err)
		}
		t.Skipf("the OCR model is not fetched (scripts/onnx-models/fetch.sh): %v", err)
	}
	// The script as a user runs it: beside its inputs, the model linked
	// into models/.
	dir := t.TempDir()
	for _, f := range []string{"ocr.tr", "ppocr_keys.tr", "line.npy"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "models"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(model, filepath.Join(dir, "models", "rec.onnx")); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(dir, "ocr.tr"))
	if err != nil {
		t.Fatal(err)
	}
	out, _ := scripttest.Run(t, &cpu.Device{}, filepath.Join(dir, "ocr.tr"), src)
	if !strings.Contains(out, "text: tref runs ONNX 2026\n") {
		t.Errorf("the OCR did not read the line:\n%s", out)
	}
}
