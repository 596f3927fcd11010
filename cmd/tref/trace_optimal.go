package main

import (
	"github.com/tref-lang/tref/runtime/placement"
	"github.com/tref-lang/tref/runtime/placement/optimal"
	"github.com/tref-lang/tref/runtime/placement/trace"
)

// traceFlags are trace's own flags.
var traceFlags = []flagDef{
	{"format", "FMT", "text|jsonl|chrome (default text)", groupTrace,
		setString(func(c *Config) *string { return &c.Trace.Format }, oneOf(traceFormats))},
	{"o", "FILE", "write the trace to FILE instead of stdout", groupTrace,
		setString(func(c *Config) *string { return &c.Trace.Out }, nonEmpty)},
	{"svg", "FILE", "draw bytes resident per device over time", groupTrace,
		setString(func(c *Config) *string { return &c.Trace.SVG }, nonEmpty)},
	{"optimal", "", "add the offline optimum (opt_ns, opt_lower_ns) to the summary", groupTrace,
		setBool(func(c *Config) *bool { return &c.Trace.Optimal })},
}

// optimizeTrace makes rec's summary carry the offline optimum of the op
// stream on eng's accelerator (its cost model, the run's budget).
func optimizeTrace(rec *trace.Recorder, eng *placement.Engine) {
	model := eng.Model()
	if model == nil {
		rec.SetOptimizer(func([]trace.Step, int64) (trace.Optimum, error) {
			return trace.Optimum{}, nil // the budget is 0: the recorder says so
		})
		return
	}
	cost := model.Cost()
	rec.SetOptimizer(func(steps []trace.Step, budget int64) (trace.Optimum, error) {
		res, err := optimal.Solve(optimal.Problem{Steps: steps, Capacity: budget, Cost: cost}, optimal.Options{})
		if err != nil {
			return trace.Optimum{}, err
		}
		return trace.Optimum{BestNs: res.OptNs, LowerNs: res.LowerNs, Status: res.Status()}, nil
	})
}
