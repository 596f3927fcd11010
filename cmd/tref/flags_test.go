package main

import (
	"bytes"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tref-lang/tref/runtime/device"
)

func TestParseSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
	}{
		{"512MiB", 512 << 20},
		{"512mib", 512 << 20},
		{"2GB", 2e9},
		{"2G", 2 << 30},
		{"1e9", 1e9},
		{"1000000", 1000000},
		{"1.5KiB", 1536},
		{"64B", 64},
		{"3TB", 3e12},
		{"2PiB", 2 << 50},
		{"1EB", 1e18},
		{"1EiB", 1 << 60},
		{"7.5eib", 15 << 59},
		{"8EiB", 1<<63 - 1}, // the help's "at most 8 EiB"
		{"9223372036854775807", 1<<63 - 1},
	} {
		got, err := parseSize(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{"", "abc", "12XB", "-5MB", "0", "0.1", "MiB", "1e30TB", "nan", "inf", "8.01EiB", "9EiB", "1e19", "1ZiB"} {
		if got, err := parseSize(in); err == nil {
			t.Errorf("parseSize(%q) = %d, want an error", in, got)
		}
	}
}

func TestParseDevice(t *testing.T) {
	for in, want := range map[string]string{
		"auto": "auto", "cpu": "cpu", "sim": "sim:0", "sim:3": "sim:3",
		"torch:cpu": "torch:cpu", "cuda": "cuda:0", "cuda:1": "cuda:1",
	} {
		got, err := parseDevice(in)
		if err != nil || got != want {
			t.Errorf("parseDevice(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "gpu", "cpu:0", "sim:-1", "sim:x", "sim:+1", "torch", "torch:cuda", "auto:1", "cuda:1:2"} {
		if got, err := parseDevice(in); err == nil {
			t.Errorf("parseDevice(%q) = %q, want an error", in, got)
		}
	}
}

func TestParseRates(t *testing.T) {
	if f, err := parseRate("25GB/s"); err != nil || f != 25e9 {
		t.Errorf("parseRate(25GB/s) = %g, %v", f, err)
	}
	if f, err := parseSI("100T"); err != nil || f != 100e12 {
		t.Errorf("parseSI(100T) = %g, %v", f, err)
	}
	if f, err := parseSI("1.5e13"); err != nil || f != 1.5e13 {
		t.Errorf("parseSI(1.5e13) = %g, %v", f, err)
	}
	for _, in := range []string{"0", "-1T", "10X", "fast"} {
		if _, err := parseSI(in); err == nil {
			t.Errorf("parseSI(%q): want an error", in)
		}
	}
}

func TestParseCommandFlagsAnywhere(t *testing.T) {
	var stdout, stderr bytes.Buffer
	cfg, pos, _, done := parseCommand(findCommand("trace"), []string{
		"--device", "sim", "model.tr", "--mem=1GiB", "--memstats", "--check-leaks",
		"--strategy", "lru", "--lookahead", "0", "--seed", "7", "--sim-latency", "5us",
		"--sim-bw", "12GB/s", "--format", "jsonl", "-o", "t.jsonl", "--no-liveness",
	}, &stdout, &stderr)
	if done {
		t.Fatalf("parse failed: %s", stderr.String())
	}
	if !slices.Equal(pos, []string{"model.tr"}) {
		t.Errorf("positional = %q", pos)
	}
	want := Config{
		Device: "sim:0", Mem: 1 << 30, Strategy: "lru", Lookahead: 0, Seed: 7, SeedSet: true,
		MemStats: true, CheckLeaks: true, NoLiveness: true,
		Sim:   SimCost{Latency: 5 * time.Microsecond, LatencySet: true, Bandwidth: 12e9},
		Trace: TraceOutput{Format: "jsonl", Out: "t.jsonl"},
	}
	if !reflect.DeepEqual(*cfg, want) {
		t.Errorf("config = %+v\nwant     %+v", *cfg, want)
	}
}

func TestParseCommandDefaults(t *testing.T) {
	cfg, _, _, done := parseCommand(findCommand("test"), nil, &bytes.Buffer{}, &bytes.Buffer{})
	if done {
		t.Fatal("parse failed")
	}
	if cfg.Device != "auto" || cfg.Strategy != "flow" || cfg.Lookahead <= 0 || cfg.Trace.Format != "text" || cfg.SeedSet {
		t.Errorf("defaults = %+v", *cfg)
	}
}

func TestParseCommandErrors(t *testing.T) {
	for _, tc := range []struct {
		cmd  string
		args []string
		msg  string
	}{
		{"run", nil, "missing script file"},
		{"plan", []string{"--gpu", "t4", "a.tr", "b.tr"}, `unexpected argument "b.tr"`},
		{"run", []string{"--mem", "lots", "a.tr"}, `invalid value "lots" for flag --mem`},
		{"run", []string{"--strategy", "best", "a.tr"}, "want one of flow, lru, genoa, none"},
		{"run", []string{"--bogus", "a.tr"}, "flag provided but not defined: --bogus"},
		{"run", []string{"--svg", "m.svg", "a.tr"}, "--svg is a flag of tref trace only"},
		{"run", []string{"a.tr", "--mem"}, "flag needs an argument: --mem"},
		{"version", []string{"--memstats"}, "not defined"},
	} {
		var stdout, stderr bytes.Buffer
		_, _, code, done := parseCommand(findCommand(tc.cmd), tc.args, &stdout, &stderr)
		if !done || code != 2 {
			t.Errorf("%s %q: done=%v code=%d, want a usage error", tc.cmd, tc.args, done, code)
			continue
		}
		if !strings.Contains(stderr.String(), tc.msg) || !strings.Contains(stderr.String(), "usage: tref "+tc.cmd) {
			t.Errorf("%s %q: stderr %q, want %q and the usage line", tc.cmd, tc.args, stderr.String(), tc.msg)
		}
	}
}

func TestParseCommandHelp(t *testing.T) {
	for _, arg := range []string{"-h", "--help"} {
		var stdout, stderr bytes.Buffer
		_, _, code, done := parseCommand(findCommand("run"), []string{arg}, &stdout, &stderr)
		if !done || code != 0 || stderr.Len() != 0 {
			t.Errorf("%s: done=%v code=%d stderr=%q", arg, done, code, stderr.String())
		}
		for _, want := range []string{"usage: tref run", "--device DEV", "--check-leaks", "--sim-flops"} {
			if !strings.Contains(stdout.String(), want) {
				t.Errorf("%s: help lacks %q:\n%s", arg, want, stdout.String())
			}
		}
		if strings.Contains(stdout.String(), "-o FILE") {
			t.Errorf("%s: run's help lists trace's -o:\n%s", arg, stdout.String())
		}
	}
}

func TestDoubleDashEndsFlags(t *testing.T) {
	_, pos, _, done := parseCommand(findCommand("check"), []string{"a.tr", "--", "--memstats"}, &bytes.Buffer{}, &bytes.Buffer{})
	if done || !slices.Equal(pos, []string{"a.tr", "--memstats"}) {
		t.Errorf("positional = %q (done=%v)", pos, done)
	}
}

// TestSimFlagsZero: --sim-latency 0 means no latency, not the default;
// the rate flags refuse 0 rather than fall back to their default.
func TestSimFlagsZero(t *testing.T) {
	latency := func(args ...string) int64 {
		t.Helper()
		var stderr bytes.Buffer
		cfg, _, _, done := parseCommand(findCommand("trace"), append(args, "m.tr"), &bytes.Buffer{}, &stderr)
		if done {
			t.Fatalf("%q: %s", args, stderr.String())
		}
		return placementConfig(cfg, "sim:0").Cost.WithDefaults().LatencyNs
	}
	if got := latency("--sim-latency", "0"); got != 0 {
		t.Errorf("--sim-latency 0: latency %d ns, want 0", got)
	}
	if got := latency("--sim-latency=0s"); got != 0 {
		t.Errorf("--sim-latency=0s: latency %d ns, want 0", got)
	}
	if got := latency(); got != device.DefaultLatencyNs {
		t.Errorf("no --sim-latency: latency %d ns, want the default %d", got, device.DefaultLatencyNs)
	}
	if got := latency("--sim-latency", "2us"); got != 2000 {
		t.Errorf("--sim-latency 2us: latency %d ns, want 2000", got)
	}
	for _, flag := range []string{"--sim-bw", "--sim-flops", "--sim-membw"} {
		var stderr bytes.Buffer
		if _, _, _, done := parseCommand(findCommand("trace"), []string{flag, "0", "m.tr"}, &bytes.Buffer{}, &stderr); !done {
			t.Errorf("%s 0: accepted, want an error (a zero rate is not the default)", flag)
		}
	}
}

// TestParsePinned: --pinned takes a size, or 0 for none (which the
// device options carry as a negative bound); without it the device's
// default (0) stands; the placement config hands it on.
func TestParsePinned(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want int64
	}{
		{nil, 0},
		{[]string{"--pinned", "2GiB"}, 2 << 30},
		{[]string{"--pinned", "0"}, -1},
	} {
		cfg, _, code, done := parseCommand(findCommand("run"), append(tc.args, "a.tr"), &bytes.Buffer{}, &bytes.Buffer{})
		if done || code != 0 || cfg.Pinned != tc.want {
			t.Errorf("%v: pinned %d (done %v, code %d), want %d", tc.args, cfg.Pinned, done, code, tc.want)
			continue
		}
		if got := placementConfig(cfg, "cuda:0").Pinned; got != tc.want {
			t.Errorf("%v: placement config's pinned %d, want %d", tc.args, got, tc.want)
		}
	}
	var stderr bytes.Buffer
	if _, _, code, done := parseCommand(findCommand("run"), []string{"--pinned", "-1", "a.tr"}, &bytes.Buffer{}, &stderr); !done || code == 0 ||
		!strings.Contains(stderr.String(), `invalid value "-1" for flag --pinned`) {
		t.Errorf("--pinned -1: done %v, code %d, %q", done, code, stderr.String())
	}
}
