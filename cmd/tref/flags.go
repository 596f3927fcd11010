package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tref-lang/tref/runtime/device"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/safefile"
)

// Config is what the command line says about running scripts: the device,
// its budget, the placement strategy and what to report. run, trace, test
// and repl share it; the placement engine (trace*.go) reads it.
type Config struct {
	// Device is the normalised device: "auto", "cpu", "sim:N", "torch:cpu"
	// or "cuda:N".
	Device string
	// Mem is the accelerator's budget in bytes; 0 means the device's own.
	Mem int64
	// Pinned bounds the host memory a CUDA device pins in place
	// (--pinned): 0 the default, negative none.
	Pinned int64
	// Strategy is the placement strategy: flow, lru, genoa or none.
	Strategy string
	// Lookahead is the window of pending ops (refs.Options.Lookahead).
	Lookahead int
	// Seed seeds the random generators when SeedSet.
	Seed    int64
	SeedSet bool
	// Hooks is a tref file of placement middleware (on_evict, ...).
	Hooks string
	// MemStats prints memstats() per device at exit.
	MemStats bool
	// CheckLeaks tracks every ref and fails if any is alive at exit.
	CheckLeaks bool
	// NoLiveness turns off freeing variables at their last use.
	NoLiveness bool
	// Sim is the cost model of the simulated device; zero rates mean the
	// defaults of RUNTIME.md (the flags accept none), and so does a zero
	// latency unless set explicitly.
	Sim SimCost
	// Trace says where `tref trace` writes its events.
	Trace TraceOutput
	// Argv is what follows the script on tref run's command line: the
	// script's argv.
	Argv []string
	// Sandbox confines the files scripts import, load and save (and the
	// --hooks file) to the script's directory tree.
	Sandbox bool
	// sandbox is that tree once the command knows its script (confine).
	sandbox *safefile.Sandbox
	// stderr receives the notes of making the executor (why --device
	// auto passed over a GPU that is here); nil: none.
	stderr io.Writer
	// hooksOut receives print's output in the --hooks file: the run's
	// stdout (the script's output stream under trace).
	hooksOut io.Writer
	// GPU is the card `tref plan --gpu` predicts (a device.Profile name,
	// or "list").
	GPU string
	// trackRefs keeps every live ref findable by id (refs.Options), for
	// the plan's positions of the tensors it copies.
	trackRefs bool
	// asCUDA makes sim decide as a CUDA card does (the plan's card):
	// no op goes to the host by choice, and one that cannot fit is an
	// error (placement.Config.NoExactFallback).
	asCUDA bool
	// budgetName names the accelerator in budget errors: the plan's card
	// (placement.Config.BudgetName).
	budgetName string
}

// confine resolves --sandbox for the script at path (the REPL: "", the
// working directory): its directory becomes the tree that file access is
// confined to.
func (cfg *Config) confine(path string) error {
	if !cfg.Sandbox {
		return nil
	}
	dir := "."
	if path != "" {
		dir = filepath.Dir(path)
	}
	sb, err := safefile.NewSandbox(dir)
	if err != nil {
		return fmt.Errorf("--sandbox: %v", err)
	}
	cfg.sandbox = sb
	return nil
}

// SimCost parametrises the sim device's virtual clock.
type SimCost struct {
	// Bandwidth is host<->device bytes per second, each way.
	Bandwidth float64
	// Flops is the compute rate for matmul and conv, FLOP per second.
	Flops float64
	// MemBandwidth is device memory bytes per second, for memory-bound ops.
	MemBandwidth float64
	// Latency is the cost of one kernel launch and of one copy;
	// LatencySet tells an explicit --sim-latency 0 (no latency) from no
	// flag (the default).
	Latency    time.Duration
	LatencySet bool
	// StagingBandwidth is the host's bytes per second staging a copy
	// through pinned memory (a CUDA device's), 0 for none.
	StagingBandwidth float64
	// Issue is the host's time to issue one op, 0 for none.
	Issue time.Duration
}

// TraceOutput is the output of `tref trace`.
type TraceOutput struct {
	Format string // text, jsonl or chrome
	Out    string // file, "" for stdout
	SVG    string // memory timeline file, "" for none
	// Optimal adds the offline optimum to the summary (--optimal).
	Optimal bool
}

var (
	strategies   = []string{"flow", "lru", "genoa", "none"}
	traceFormats = []string{"text", "jsonl", "chrome"}
)

// flagDef is one command-line flag: registered on every command's flag
// set and printed by its help, so the set is written once. A flag without
// arg is a switch (--memstats, --memstats=false).
type flagDef struct {
	name, arg, help string
	group           string
	set             func(c *Config, value string) error
}

// The groups of flags in help output.
const (
	groupPlacement = "placement"
	groupReport    = "reporting"
	groupSim       = "cost model (the sim device's clock; every accelerator is planned with it; see tref calibrate)"
	groupTrace     = "trace output (tref trace)"
)

var flagDefs = []flagDef{
	{"device", "DEV", device.Usage() + " (default auto)", groupPlacement,
		setString(func(c *Config) *string { return &c.Device }, parseDevice)},
	{"mem", "SIZE", "accelerator memory budget, e.g. 512MiB, 2GB, 1e9", groupPlacement,
		func(c *Config, s string) (err error) { c.Mem, err = parseSize(s); return err }},
	{"pinned", "SIZE", "host memory a CUDA device may pin for copies straight from tensors (default half the host's; 0: stage every copy)", groupPlacement,
		func(c *Config, s string) (err error) {
			if strings.TrimSpace(s) == "0" {
				c.Pinned = -1
				return nil
			}
			c.Pinned, err = parseSize(s)
			return err
		}},
	{"strategy", "NAME", "placement strategy: flow|lru|genoa|none (default flow)", groupPlacement,
		setString(func(c *Config) *string { return &c.Strategy }, oneOf(strategies))},
	{"lookahead", "N", "window of pending ops the placement engine sees", groupPlacement,
		func(c *Config, s string) (err error) { c.Lookahead, err = parseCount(s); return err }},
	{"seed", "N", "seed the random generators", groupPlacement,
		func(c *Config, s string) (err error) { c.Seed, err = parseSeed(s); c.SeedSet = err == nil; return err }},
	{"hooks", "FILE", "tref file of placement middleware (on_evict, ...)", groupPlacement,
		setString(func(c *Config) *string { return &c.Hooks }, nonEmpty)},
	{"sandbox", "", "confine the files the script imports, loads and saves (and --hooks) to its directory tree", groupPlacement,
		setBool(func(c *Config) *bool { return &c.Sandbox })},
	{"no-liveness", "", "keep variables alive to the end of their block (to measure what liveness saves)", groupPlacement,
		setBool(func(c *Config) *bool { return &c.NoLiveness })},
	{"memstats", "", "print live tensors and bytes per device at exit", groupReport,
		setBool(func(c *Config) *bool { return &c.MemStats })},
	{"check-leaks", "", "fail if a tensor is alive at exit, naming where it was made", groupReport,
		setBool(func(c *Config) *bool { return &c.CheckLeaks })},
	{"sim-bw", "RATE", "host<->device bandwidth per direction, e.g. 25GB/s", groupSim,
		func(c *Config, s string) (err error) { c.Sim.Bandwidth, err = parseRate(s); return err }},
	{"sim-flops", "RATE", "compute rate in FLOP/s, e.g. 100T", groupSim,
		func(c *Config, s string) (err error) { c.Sim.Flops, err = parseSI(s); return err }},
	{"sim-membw", "RATE", "device memory bandwidth, e.g. 900GB/s", groupSim,
		func(c *Config, s string) (err error) { c.Sim.MemBandwidth, err = parseRate(s); return err }},
	{"sim-latency", "DUR", "cost of each kernel launch and copy, e.g. 5us (0 for none)", groupSim,
		func(c *Config, s string) (err error) {
			c.Sim.Latency, err = parseDuration(s)
			c.Sim.LatencySet = err == nil
			return err
		}},
	{"sim-staging-bw", "RATE", "host rate staging each copy through pinned memory (CUDA's), e.g. 7.6GB/s", groupSim,
		func(c *Config, s string) (err error) { c.Sim.StagingBandwidth, err = parseRate(s); return err }},
	{"sim-issue", "DUR", "host time to issue each op (interpreter, engine, launch), e.g. 30us (default 0: free)", groupSim,
		func(c *Config, s string) (err error) { c.Sim.Issue, err = parseDuration(s); return err }},
}

// setString sets a string field to the checked (and normalised) value.
func setString(field func(*Config) *string, check func(string) (string, error)) func(*Config, string) error {
	return func(c *Config, s string) error {
		v, err := check(s)
		if err == nil {
			*field(c) = v
		}
		return err
	}
}

// setBool sets a switch.
func setBool(field func(*Config) *bool) func(*Config, string) error {
	return func(c *Config, s string) error {
		b, err := strconv.ParseBool(s)
		if err != nil {
			return errors.New("want true or false")
		}
		*field(c) = b
		return nil
	}
}

// defaultConfig is the configuration before any flag.
func defaultConfig() *Config {
	return &Config{Device: "auto", Strategy: "flow", Lookahead: refs.DefaultLookahead, Trace: TraceOutput{Format: "text"}}
}

// command describes one subcommand for parsing and help.
type command struct {
	name    string
	summary string // its line in `tref -h`
	usage   string // the synopsis after "usage: "
	doc     string // what it does, one or more lines
	// flags says whether the command takes the shared flags; extra are
	// flags of this command alone, listed after them.
	flags bool
	extra []flagDef
	// hide names shared flags the command refuses with a message of its
	// own (plan's --device): they are left out of its help.
	hide []string
	// args bounds the positional arguments: min, and max (-1 for any).
	minArgs, maxArgs int
	// run runs the command with the flags and positional arguments that
	// parseCommand read, and returns the exit status.
	run func(c *cli, cfg *Config, args []string) int
}

// parseCommand parses args for cmd into a fresh Config and returns the
// positional arguments. When it returns done, the caller exits with code:
// 0 after printing help (to stdout), 2 after a usage error (to stderr).
// Flags may come before or after the positional arguments; "--" ends them.
func parseCommand(cmd *command, args []string, stdout, stderr io.Writer) (cfg *Config, pos []string, code int, done bool) {
	cfg = defaultConfig()
	fs := flag.NewFlagSet("tref "+cmd.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	if cmd.flags {
		for _, d := range cmd.flagDefs() {
			set := func(s string) error { return d.set(cfg, s) }
			if d.arg == "" {
				fs.BoolFunc(d.name, d.help, set)
			} else {
				fs.Func(d.name, d.help, set)
			}
		}
	}
	for {
		err := fs.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			printCommandHelp(stdout, cmd)
			return nil, nil, 0, true
		}
		if err != nil {
			// The flag package names flags with one dash; tref writes two.
			msg := strings.NewReplacer("flag -", "flag --", "argument: -", "argument: --", "defined: -", "defined: --").Replace(err.Error())
			if name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -"); ok {
				if other := flagOwner(name); other != "" {
					msg = fmt.Sprintf("%s is a flag of tref %s only", dashed(name), other)
				}
			}
			return nil, nil, usageError(stderr, cmd, "%s", msg), true
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		if args[0] == "--" {
			pos = append(pos, args[1:]...)
			break
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
	switch {
	case len(pos) < cmd.minArgs:
		return nil, nil, usageError(stderr, cmd, "missing %s", missingWhat(cmd)), true
	case cmd.maxArgs >= 0 && len(pos) > cmd.maxArgs:
		return nil, nil, usageError(stderr, cmd, "unexpected argument %q", pos[cmd.maxArgs]), true
	}
	return cfg, pos, 0, false
}

// flagOwner names the command whose own flag name is, "" if none.
func flagOwner(name string) string {
	for _, c := range commands {
		for _, d := range c.extra {
			if d.name == name {
				return c.name
			}
		}
	}
	return ""
}

// dashed is a flag's name as tref writes it: -o, --format.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// flagDefs are the flags cmd takes: the shared ones, then its own.
func (cmd *command) flagDefs() []flagDef {
	if len(cmd.extra) == 0 {
		return flagDefs
	}
	return append(slices.Clip(flagDefs), cmd.extra...)
}

func missingWhat(cmd *command) string {
	if strings.Contains(cmd.usage, "model.tr") {
		return "script file"
	}
	return "argument"
}

// usageError prints a usage error for cmd and returns exit status 2.
func usageError(stderr io.Writer, cmd *command, format string, args ...any) int {
	fmt.Fprintf(stderr, "tref %s: %s\nusage: %s\nRun 'tref %s -h' for help.\n", cmd.name, fmt.Sprintf(format, args...), cmd.usage, cmd.name)
	return 2
}

// printCommandHelp prints cmd's synopsis, description and flags.
func printCommandHelp(w io.Writer, cmd *command) {
	fmt.Fprintf(w, "usage: %s\n\n%s\n", cmd.usage, cmd.doc)
	if !cmd.flags {
		return
	}
	group := ""
	for _, d := range cmd.flagDefs() {
		if slices.Contains(cmd.hide, d.name) {
			continue
		}
		if d.group != group {
			group = d.group
			fmt.Fprintf(w, "\nFlags, %s:\n", group)
		}
		name := dashed(d.name)
		if d.arg != "" {
			name += " " + d.arg
		}
		fmt.Fprintf(w, "  %-20s %s\n", name, d.help)
	}
}

// parseDevice checks and normalises a --device value (device.Parse).
func parseDevice(s string) (string, error) {
	spec, err := device.Parse(s)
	if err != nil {
		return "", errors.New("want " + device.Choices())
	}
	return spec.Name, nil
}

var sizeUnits = map[string]float64{
	"": 1, "b": 1,
	"k": 1 << 10, "kb": 1e3, "kib": 1 << 10,
	"m": 1 << 20, "mb": 1e6, "mib": 1 << 20,
	"g": 1 << 30, "gb": 1e9, "gib": 1 << 30,
	"t": 1 << 40, "tb": 1e12, "tib": 1 << 40,
	"p": 1 << 50, "pb": 1e15, "pib": 1 << 50,
	"e": 1 << 60, "eb": 1e18, "eib": 1 << 60,
}

// parseSize reads a byte count: plain bytes (1000000, 1e9) or a number
// with a unit, decimal (KB, MB, GB, TB) or binary (KiB, MiB, GiB, TiB; a
// bare K, M, G, T is binary too), up to exabytes (EB, EiB). Case does not
// matter. 8 EiB, one more than an int64 holds, reads as the largest int64.
func parseSize(s string) (int64, error) {
	num, unit := splitNumber(s)
	f, err := strconv.ParseFloat(num, 64)
	if err != nil {
		return 0, errors.New("want a number of bytes such as 512MiB, 2GB or 1e9")
	}
	mult, ok := sizeUnits[strings.ToLower(unit)]
	if !ok {
		return 0, fmt.Errorf("unknown unit %q (want B, KB, MB, GB, TB, PB, EB, KiB, MiB, GiB, TiB, PiB or EiB)", unit)
	}
	b := f * mult
	if !(b >= 1) || b > 1<<63 {
		return 0, errors.New("want at least 1 byte and at most 8 EiB")
	}
	if b == 1<<63 {
		return math.MaxInt64, nil
	}
	return int64(b), nil
}

// parseRate reads bytes per second: a size, optionally followed by "/s".
func parseRate(s string) (float64, error) {
	n, err := parseSize(strings.TrimSuffix(s, "/s"))
	return float64(n), err
}

var siUnits = map[string]float64{"": 1, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15}

// parseSI reads a positive number with an optional SI multiplier: 100T,
// 1.5e13.
func parseSI(s string) (float64, error) {
	num, unit := splitNumber(s)
	mult, ok := siUnits[unit]
	f, err := strconv.ParseFloat(num, 64)
	if !ok || err != nil || !(f > 0) || math.IsInf(f, 0) {
		return 0, errors.New("want a positive number with an optional k, M, G, T or P")
	}
	return f * mult, nil
}

// splitNumber splits "512MiB" into "512" and "MiB", keeping exponents
// ("1e9") in the number.
func splitNumber(s string) (num, unit string) {
	s = strings.TrimSpace(s)
	i := len(s)
	for i > 0 {
		c := s[i-1]
		if c >= '0' && c <= '9' || c == '.' {
			break
		}
		i--
	}
	return s[:i], strings.TrimSpace(s[i:])
}

func oneOf(choices []string) func(string) (string, error) {
	return func(s string) (string, error) {
		if slices.Contains(choices, s) {
			return s, nil
		}
		return "", fmt.Errorf("want one of %s", strings.Join(choices, ", "))
	}
}

func nonEmpty(s string) (string, error) {
	if s == "" {
		return "", errors.New("empty file name")
	}
	return s, nil
}

// parseCount reads a non-negative int.
func parseCount(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, errors.New("want a whole number >= 0")
	}
	return n, nil
}

// parseSeed reads any int64.
func parseSeed(s string) (int64, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, errors.New("want an integer")
	}
	return n, nil
}

// parseDuration reads a non-negative duration such as 5us.
func parseDuration(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, errors.New("want a duration such as 5us or 1ms")
	}
	return d, nil
}
