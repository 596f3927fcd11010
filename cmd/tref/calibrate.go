package main

import (
	_ "embed"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/device"
	"github.com/tref-lang/tref/runtime/placement"
	"github.com/tref-lang/tref/runtime/refs"
)

// calibrate is `tref calibrate`: measure an accelerator and print the
// cost-model flags that make --device sim predict it, and the engine plan
// with it on that device.
func (c *cli) calibrate(cfg *Config) int {
	spec, err := device.Parse(cfg.Device)
	if err != nil {
		return c.fail(err)
	}
	var dev device.Device
	switch spec.Kind {
	case device.Host:
		return c.fail(fmt.Errorf("calibrate measures an accelerator, and --device cpu is the host: use --device torch:cpu, cuda or sim"))
	case "auto":
		// The first GPU, else libtorch on the CPU.
		for _, name := range []string{"cuda:0", "torch:cpu"} {
			if spec, err = device.Parse(name); err == nil {
				if dev, err = device.Open(spec, device.Options{}); err == nil {
					break
				}
			}
		}
	default:
		dev, err = device.Open(spec, device.Options{})
	}
	if err != nil {
		return c.fail(err)
	}
	cal, err := device.Calibrate(dev, device.DefaultCalibrationSizes)
	if cerr := dev.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return c.fail(err)
	}
	if cal.Cost.IssueNs, err = c.measureIssue(spec.Name); err != nil {
		return c.fail(err)
	}
	writeCalibration(c.stdout, spec.Name, cal)
	return 0
}

// issueOps is the number of ops measureIssue times: two per iteration of
// issue.tr's loop (TestIssueScriptOps counts them).
const issueOps = 2000

// issueScript issues small ops on the device, as a model's layers of
// elementwise ops do: what it costs is the interpreter's, the engine's
// and the launch call's time, not the kernels'.
//
//go:embed issue.tr
var issueScript []byte

// measureIssue is the host's time to issue one op on dev through the
// interpreter and the placement engine (Cost.IssueNs): the faster of two
// runs of issueScript (the first loads the kernels), per op.
func (c *cli) measureIssue(dev string) (int64, error) {
	best := int64(math.MaxInt64)
	for range 2 {
		ex, err := placement.NewExecutor(placement.Config{Device: dev})
		if err != nil {
			return 0, err
		}
		rt := refs.New(ex, refs.Options{Lookahead: refs.DefaultLookahead})
		in := eval.NewInterpreter(eval.Config{RT: rt, Universe: c.universe, Stdout: io.Discard})
		t0 := time.Now()
		err = in.RunSource("issue.tr", issueScript)
		in.Close()
		if ferr := rt.Flush(); err == nil {
			err = ferr
		}
		ns := int64(time.Since(t0))
		if eng, ok := ex.(*placement.Engine); ok {
			if cerr := eng.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			return 0, fmt.Errorf("calibrate: timing an op's issue on %s: %w", dev, err)
		}
		best = min(best, ns)
	}
	return best / issueOps, nil
}

// writeCalibration prints what was measured as a comment line, then the
// flags, in the forms the flag parsers read back.
func writeCalibration(w io.Writer, dev string, cal device.Calibration) {
	staged := ""
	if cal.Staging > 0 {
		staged = "; the host stages copies at " + rate(cal.Staging)
	}
	issued := ""
	if cal.Cost.IssueNs > 0 {
		issued = fmt.Sprintf("; the host issues an op (interpreter, engine, launch) in %v", roundNs(cal.Cost.IssueNs))
	}
	fmt.Fprintf(w, "# %s: h2d %s, d2h %s, %v a copy; %v an op; matmul %sFLOP/s; add %s of memory traffic%s%s\n",
		dev, rate(cal.H2D), rate(cal.D2H), roundNs(cal.CopyNs), roundNs(cal.LaunchNs), si(cal.Flops), rate(cal.MemBandwidth), staged, issued)
	extra := ""
	if cal.Cost.StagingBandwidth > 0 {
		extra = " --sim-staging-bw " + rate(cal.Cost.StagingBandwidth)
	}
	if cal.Cost.IssueNs > 0 {
		extra += fmt.Sprintf(" --sim-issue %v", roundNs(cal.Cost.IssueNs))
	}
	fmt.Fprintf(w, "--sim-bw %s --sim-flops %s --sim-membw %s --sim-latency %v%s\n",
		rate(cal.Cost.H2D), si(cal.Cost.Flops), rate(cal.Cost.MemBandwidth), roundNs(cal.Cost.LatencyNs), extra)
}

// rate writes bytes per second as parseRate reads them: "12.3GB/s".
func rate(v float64) string { return siUnit(v, "B") + "/s" }

// si writes v as parseSI reads it: "45.6G".
func si(v float64) string { return siUnit(v, "") }

func siUnit(v float64, unit string) string {
	for _, u := range []struct {
		s string
		m float64
	}{{"T", 1e12}, {"G", 1e9}, {"M", 1e6}, {"k", 1e3}} {
		if v >= u.m {
			if unit == "B" && u.s == "k" {
				u.s = "K" // parseSize's units are KB, MB, GB, TB
			}
			return fmt.Sprintf("%.4g%s%s", v/u.m, u.s, unit)
		}
	}
	return fmt.Sprintf("%.4g%s", math.Max(v, 1), unit)
}

// roundNs is ns as a duration rounded to 100 ns (at least 100 ns).
func roundNs(ns int64) time.Duration {
	return max(time.Duration(ns).Round(100*time.Nanosecond), 100*time.Nanosecond)
}
