package torch

import (
	"os/exec"
	"strings"
	"testing"
)

// TestSourceHash: scripts/build-torch.sh hashes the plugin's sources as
// SourceHash does (the shell's sha256sum of the header, then the source),
// and a plugin reporting another hash is refused with the rebuild hint.
func TestSourceHash(t *testing.T) {
	out, err := exec.Command("sh", "-c", "cat csrc/tref_torch.h csrc/tref_torch.cpp | sha256sum | cut -c1-16").Output()
	if err != nil {
		t.Skipf("no sha256sum here: %v", err)
	}
	if got := strings.TrimSpace(string(out)); got != SourceHash() {
		t.Fatalf("the build script's hash %q, SourceHash %q", got, SourceHash())
	}
	if err := checkSource("libtref_torch.so", SourceHash()); err != nil {
		t.Fatal(err)
	}
	for _, stale := range []string{"", "0123456789abcdef"} {
		err := checkSource("libtref_torch.so", stale)
		if err == nil || !strings.Contains(err.Error(), "scripts/build-torch.sh") {
			t.Errorf("a plugin reporting %q: %v", stale, err)
		}
	}
}
