package cuda

import (
	"strings"
	"testing"
)

// TestLoadMissing: without a CUDA runtime library Load names what it
// tried, in one line.
func TestLoadMissing(t *testing.T) {
	_, err := Load([]string{"libcudart-absent.so.99"})
	if err == nil || !strings.Contains(err.Error(), "libcudart-absent.so.99") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("got %v", err)
	}
}

// TestLoadWrongLibrary: a library without the runtime's functions (libc)
// is refused naming the first missing one.
func TestLoadWrongLibrary(t *testing.T) {
	_, err := Load([]string{"libc.so.6"})
	if err == nil || !strings.Contains(err.Error(), "has no cudaSetDevice") {
		t.Fatalf("got %v", err)
	}
}
