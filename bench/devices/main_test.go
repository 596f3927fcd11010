package main

import (
	"os"
	"testing"

	"github.com/tref-lang/tref/runtime/backend/torch"
)

// TestCostliestOps: the ops that took the host the most time between two
// counts, costliest first, with their calls and mean times; ops that did
// not run between the counts are left out.
func TestCostliestOps(t *testing.T) {
	before := map[string]torch.IntoStats{
		"matmul": {Direct: 10, OpNs: 100_000},
		"exp":    {Direct: 5, OpNs: 5_000},
	}
	after := map[string]torch.IntoStats{
		"matmul": {Direct: 14, OpNs: 300_000},                      // 4 calls, 50 µs each
		"relu":   {Copied: 2, OpNs: 20_000, CopyNs: 8_000},         // 2 calls, 10 µs + 4 µs
		"exp":    {Direct: 5, OpNs: 5_000},                         // none since
		"add":    {Direct: 1, OpNs: 1_000},                         // 1 µs
		"mul":    {Direct: 1, Copied: 1, OpNs: 1_000, CopyNs: 500}, // 0.5 µs + copy 0.5 µs
	}
	want := "; the costliest: matmul 4 x 50.0 µs, relu 2 x 10.0 µs + copy 4.0 µs, mul 2 x 0.5 µs + copy 0.5 µs"
	if got := costliestOps(before, after, 3); got != want {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
	if got := costliestOps(after, after, 3); got != "" {
		t.Fatalf("no op ran, got %q", got)
	}
}

// TestWithEnv: a variable set for one run gets its value back after it,
// set or unset: the sweep's TREF_CUDA_STAGE=sync lasted no longer than
// the first run staged on the engine's thread when the runs unset it.
func TestWithEnv(t *testing.T) {
	const name = "TREF_BENCH_TEST_WITH_ENV"
	for _, before := range []*string{nil, ptr("sync"), ptr("")} {
		if before != nil {
			t.Setenv(name, *before)
		} else {
			os.Unsetenv(name)
		}
		var during string
		withEnv(name, "inside", func() { during = os.Getenv(name) })
		after, had := os.LookupEnv(name)
		if during != "inside" || had != (before != nil) || before != nil && after != *before {
			t.Fatalf("before %v: %q inside, after %q (set %v)", before, during, after, had)
		}
	}
	os.Unsetenv(name)
}

func ptr(s string) *string { return &s }
