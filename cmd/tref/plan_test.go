package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tref-lang/tref/stdlib"
)

// TestPlanUnknownGPU: an unknown card is a usage error (exit 2) of one
// line that names the known cards.
func TestPlanUnknownGPU(t *testing.T) {
	var stdout, stderr bytes.Buffer
	c := &cli{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, universe: stdlib.Universe()}
	code := c.main([]string{"plan", "--gpu", "gtx480", "model.tr"})
	if code != 2 || stdout.Len() != 0 || strings.Count(stderr.String(), "\n") != 1 ||
		!strings.Contains(stderr.String(), "rtx4060, rtx3060") {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
}
