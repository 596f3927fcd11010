package main

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/device"
	"github.com/tref-lang/tref/runtime/placement"
	"github.com/tref-lang/tref/runtime/placement/trace"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/stdlib"
)

// TestCalibratePrintsFlagsThatParseBack calibrates the simulated device
// and reads the printed flags back with the command line's parser: the
// cost model they give is the one measured, to the printed precision.
func TestCalibratePrintsFlagsThatParseBack(t *testing.T) {
	var stdout, stderr bytes.Buffer
	c := &cli{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, universe: stdlib.Universe()}
	if code := c.main([]string{"calibrate", "--device", "sim"}); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "# sim:0: h2d ") || !strings.HasPrefix(lines[1], "--sim-bw ") {
		t.Fatalf("output %q", stdout.String())
	}
	cost := flagsCost(t, lines[1])
	if err := cost.WithDefaults().Validate(); err != nil || cost.H2D <= 0 || cost.Flops <= 0 || cost.MemBandwidth <= 0 {
		t.Fatalf("cost %+v from %q: %v", cost, lines[1], err)
	}
	if cost == (device.Cost{}) || cost.LatencyNs < 100 {
		t.Fatalf("latency %d ns from %q", cost.LatencyNs, lines[1])
	}
	// The interpreter and the engine take some time per op.
	if cost.IssueNs < 100 || !strings.Contains(lines[0], "the host issues an op") {
		t.Fatalf("issue time %d ns from %q", cost.IssueNs, stdout.String())
	}
}

func TestCalibrateRefusesTheHost(t *testing.T) {
	var stdout, stderr bytes.Buffer
	c := &cli{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, universe: stdlib.Universe()}
	if code := c.main([]string{"calibrate", "--device", "cpu"}); code != 1 || !strings.Contains(stderr.String(), "measures an accelerator") {
		t.Fatalf("exit %d: %q", code, stderr.String())
	}
}

// TestCalibrationStagingFlag: a calibration with a staging rate (a CUDA
// plane's) and an issue time prints --sim-staging-bw and --sim-issue,
// which parse back to them.
func TestCalibrationStagingFlag(t *testing.T) {
	cal := device.Calibration{H2D: 50e9, D2H: 50e9, Flops: 30e12, MemBandwidth: 1e12, LaunchNs: 20000, Staging: 7.6e9}
	cal.Cost = device.Cost{H2D: cal.H2D, D2H: cal.D2H, Flops: cal.Flops, MemBandwidth: cal.MemBandwidth,
		LatencyNs: cal.LaunchNs, StagingBandwidth: cal.Staging, IssueNs: 42300}
	var out bytes.Buffer
	writeCalibration(&out, "cuda:0", cal)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "the host stages copies at 7.6GB/s") || !strings.HasSuffix(lines[1], "--sim-staging-bw 7.6GB/s --sim-issue 42.3µs") {
		t.Fatalf("output %q", out.String())
	}
	if got := flagsCost(t, lines[1]); got.StagingBandwidth != 7.6e9 || got.IssueNs != 42300 {
		t.Fatalf("staging bandwidth %v, issue %d ns from %q", got.StagingBandwidth, got.IssueNs, lines[1])
	}
}

// flagsCost reads the flags of line back with tref run's parser and
// returns the cost model they give.
func flagsCost(t *testing.T, line string) device.Cost {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cfg, _, _, done := parseCommand(findCommand("run"), append(strings.Fields(line), "m.tr"), &stdout, &stderr)
	if done {
		t.Fatalf("the flags %q do not parse: %s", line, stderr.String())
	}
	return placementConfig(cfg, "sim:0").Cost
}

// TestIssueScriptOps: issue.tr submits issueOps ops in its loop, besides
// ones and the x[0] it reads, so measureIssue's time per op is per op.
func TestIssueScriptOps(t *testing.T) {
	rec := trace.NewRecorder()
	ex, err := placement.NewExecutor(placement.Config{Device: "sim", Trace: rec})
	if err != nil {
		t.Fatal(err)
	}
	rt := refs.New(ex, refs.Options{Lookahead: refs.DefaultLookahead})
	in := eval.NewInterpreter(eval.Config{RT: rt, Universe: stdlib.Universe(), Stdout: io.Discard})
	err = in.RunSource("issue.tr", issueScript)
	in.Close()
	if ferr := rt.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		t.Fatal(err)
	}
	eng := ex.(*placement.Engine)
	tot, err := eng.Finish()
	if err != nil {
		t.Fatal(err)
	}
	if err := eng.Close(); err != nil {
		t.Fatal(err)
	}
	if want := int64(issueOps + 2); tot.Ops != want {
		t.Errorf("issue.tr ran %d ops, want %d (issueOps and two)", tot.Ops, want)
	}
}
