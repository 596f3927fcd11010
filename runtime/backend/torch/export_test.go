package torch

import "testing"

// Plugin is plugin for the package's external tests (examples_test.go):
// the loaded plugin, or the test skipped (failed under
// TREF_REQUIRE_TORCH).
func Plugin(t testing.TB) *Lib { return plugin(t) }
