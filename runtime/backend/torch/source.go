package torch

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
)

// The plugin's sources: a plugin built from them reports their hash
// (tt_source, passed in by scripts/build-torch.sh), and Load refuses a
// plugin built from other sources, a stale build that may lack ops or
// lay out their attributes otherwise.
var (
	//go:embed csrc/tref_torch.h
	pluginHeader []byte
	//go:embed csrc/tref_torch.cpp
	pluginSource []byte
)

// SourceHash is what tt_source returns in a plugin built from this
// tref's plugin sources: the first 16 hex digits of the SHA-256 of the
// header and the source, one after the other.
func SourceHash() string {
	h := sha256.New()
	h.Write(pluginHeader)
	h.Write(pluginSource)
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// checkSource is nil when the plugin at path reports (tt_source) this
// tref's plugin sources, else why it is refused.
func checkSource(path, got string) error {
	if want := SourceHash(); got != want {
		return fmt.Errorf("torch backend: %s was built from other plugin sources than this tref's (%q, this tref's %q); rebuild it with scripts/build-torch.sh", path, got, want)
	}
	return nil
}
