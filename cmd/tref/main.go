// Command tref runs tref scripts: tensor models whose tensors the runtime
// places on devices by itself.
//
//	tref run [flags] model.tr     run a script
//	tref                          interactive REPL (also `tref repl`)
//	tref test [paths...]          run the test blocks of .tr files
//	tref check model.tr...        parse and resolve only
//	tref trace [flags] model.tr   run and dump every placement decision
//	tref plan --gpu NAME model.tr will it fit that card, and how fast?
//	tref version                  print the version
//
// Exit status: 0 ok, 1 script error, 2 usage error.
package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/tref-lang/tref/lang/diag"
	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/stdlib"
)

func main() {
	if os.Getenv("GOGC") == "" {
		// Tensor storage lives in the runtime's own pools, so the Go heap
		// holds only small interpreter objects (about 0.2 MB live); the
		// default GOGC=100 then collects every few thousand ops. 400 cuts
		// the CPU per small op by about a quarter (bench/RESULTS.md,
		// elementwise section) at a few MB of extra heap.
		debug.SetGCPercent(400)
	}
	os.Exit(newCLI().main(os.Args[1:]))
}

// newCLI is the command on the process's standard streams with the
// standard builtins.
func newCLI() *cli {
	return &cli{
		stdin:    os.Stdin,
		stdout:   os.Stdout,
		stderr:   os.Stderr,
		universe: stdlib.Universe(),
		color:    colorAllowed(os.Stderr),
	}
}

// cli is one invocation of the command: its streams and the builtins its
// scripts see. Tests build one with extra builtins.
type cli struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	universe       map[string]*eval.Builtin
	// color allows ANSI colour in error output.
	color bool
	// cmd is the command being run, for its usage errors.
	cmd *command
}

// colorAllowed reports whether errors written to f may be coloured: f is a
// terminal and NO_COLOR is unset (https://no-color.org).
func colorAllowed(f *os.File) bool {
	if _, set := os.LookupEnv("NO_COLOR"); set || os.Getenv("TERM") == "dumb" {
		return false
	}
	return isTerminal(f.Fd())
}

// commands is the command table, in the order `tref -h` lists them.
var commands = []*command{
	{name: "run", summary: "run a script",
		usage: "tref run [flags] model.tr [args...]", flags: true, minArgs: 1, maxArgs: -1,
		doc: "Run a script. Test blocks are skipped. The arguments after the script are the\n" +
			"script's list of strings argv (Python's sys.argv[1:]); tref's own flags may\n" +
			"still come among them, so put -- before arguments that start with a dash.",
		run: func(c *cli, cfg *Config, args []string) int {
			cfg.Argv = args[1:]
			return c.run(cfg, args[0])
		}},
	{name: "repl", summary: "interactive REPL (the default with no command)",
		usage: "tref repl [flags]", flags: true, minArgs: 0, maxArgs: 0,
		doc: "Start the interactive REPL (the same as plain `tref`). Type :help inside it.\n" +
			"With stdin not a terminal, reads and runs all of it without prompts.",
		run: func(c *cli, cfg *Config, _ []string) int { return c.repl(cfg) }},
	{name: "test", summary: "run the test blocks of .tr files",
		usage: "tref test [flags] [paths...]", flags: true, minArgs: 0, maxArgs: -1,
		doc: "Run the test blocks of .tr files. A directory means every .tr file under it;\n" +
			"no path means the current directory. Prints one line per test and a closing\n" +
			"line \"N passed, N failed\"; exits 1 if any test failed.",
		run: (*cli).test},
	{name: "check", summary: "parse and resolve scripts only",
		usage: "tref check [flags] model.tr...", flags: true, minArgs: 1, maxArgs: -1,
		doc: "Parse and resolve scripts without running them; report every static error.",
		run: (*cli).check},
	{name: "trace", summary: "run a script and dump every placement decision",
		usage: "tref trace [flags] model.tr [args...]", flags: true, extra: traceFlags, minArgs: 1, maxArgs: -1,
		doc: "Run a script and dump every placement decision (ops, copies, evictions).\n" +
			"--device auto (the default) traces the first GPU; with none it traces the simulated\n" +
			"accelerator sim:0 (budget --mem, else 8GiB) and says so on stderr. Without -o the\n" +
			"trace goes to stdout and the script's own output to stderr. --optimal adds the\n" +
			"offline optimum of the same op stream and budget to the summary (opt_ns, opt_lower_ns).\n" +
			"The arguments after the script are its argv, as for tref run.",
		run: func(c *cli, cfg *Config, args []string) int {
			cfg.Argv = args[1:]
			return c.trace(cfg, args[0])
		}},
	{name: "calibrate", summary: "measure a device and print the cost-model flags for it",
		usage: "tref calibrate [--device DEV]", flags: true, minArgs: 0, maxArgs: 0,
		doc: "Measure an accelerator (copy bandwidth, op latency, matmul and memory throughput,\n" +
			"the host's time to issue an op) and print the cost-model flags (--sim-bw,\n" +
			"--sim-flops, --sim-membw, --sim-latency, --sim-staging-bw, --sim-issue) that make\n" +
			"--device sim predict it; given to run or trace on that device, the placement\n" +
			"engine plans with them. auto means the first GPU, else torch:cpu.",
		run: func(c *cli, cfg *Config, _ []string) int { return c.calibrate(cfg) }},
	{name: "plan", summary: "predict whether a script fits a GPU and how fast it runs there",
		usage: "tref plan --gpu NAME [flags] model.tr", flags: true, extra: planFlags, minArgs: 0, maxArgs: 1,
		hide: []string{"device", "sim-bw", "sim-flops", "sim-membw"},
		doc: "Run a script on the simulated device given a card's memory and datasheet rates\n" +
			"(PCIe bandwidth, FP32 FLOP/s, memory bandwidth) and print whether it fits the card or\n" +
			"offloads, its peak memory, the predicted time and its bound, the bytes moved and the\n" +
			"three tensors whose copies take the longest. --gpu list names the cards and the\n" +
			"datasheets their figures come from. --mem plans for part of the card's memory.",
		run: (*cli).plan},
	{name: "onnx", summary: "inspect an ONNX model (tref onnx inspect model.onnx)",
		usage: "tref onnx inspect model.onnx", minArgs: 2, maxArgs: 2,
		doc: "Describe an ONNX model: opset, inputs, outputs, op counts, parameter bytes\n" +
			"and the ops tref cannot run.",
		run: func(c *cli, _ *Config, args []string) int { return c.onnxCommand(args) }},
	{name: "version", summary: "print the version",
		usage: "tref version", minArgs: 0, maxArgs: 0,
		doc: "Print tref's version.",
		run: func(c *cli, _ *Config, _ []string) int { return c.version() }},
}

// findCommand finds a command of the table by name; nil if there is none.
func findCommand(name string) *command {
	for _, cmd := range commands {
		if cmd.name == name {
			return cmd
		}
	}
	return nil
}

// topUsage is `tref -h`: the commands of the table with their summaries.
func topUsage() string {
	width := 0
	for _, cmd := range commands {
		width = max(width, len(cmd.name))
	}
	var b strings.Builder
	b.WriteString("tref runs tensor scripts and places their tensors on devices by itself.\n\n" +
		"usage: tref <command> [flags] [arguments]\n\nCommands:\n")
	for _, cmd := range commands {
		fmt.Fprintf(&b, "  %-*s  %s\n", width, cmd.name, cmd.summary)
	}
	b.WriteString("\nRun 'tref <command> -h' for a command's flags.\n")
	return b.String()
}

// main runs the command line args and returns the exit status. A Go panic
// never reaches the user as a Go trace: it becomes "internal error".
func (c *cli) main(args []string) (code int) {
	defer func() {
		if r := recover(); r != nil {
			code = c.internalError(r)
		}
	}()
	if len(args) == 0 {
		return c.repl(defaultConfig())
	}
	name := args[0]
	switch {
	case name == "-h" || name == "--help" || name == "help":
		fmt.Fprint(c.stdout, topUsage())
		return 0
	case name == "--version":
		return c.version()
	case strings.HasPrefix(name, "-"):
		// Flags without a command configure the REPL.
		name, args = "repl", append([]string{"repl"}, args...)
	}
	cmd := findCommand(name)
	if cmd == nil {
		hint := ""
		if strings.HasSuffix(name, ".tr") {
			hint = fmt.Sprintf(" (to run a script: tref run %s)", name)
		}
		fmt.Fprintf(c.stderr, "tref: unknown command %q%s\n\n%s", name, hint, topUsage())
		return 2
	}
	cfg, pos, code, done := parseCommand(cmd, args[1:], c.stdout, c.stderr)
	if done {
		return code
	}
	c.cmd = cmd
	return cmd.run(c, cfg, pos)
}

// internalError reports a recovered Go panic the way a user should see it,
// and returns exit status 1. TREF_DEBUG=1 adds the Go stack for developers.
func (c *cli) internalError(r any) int {
	fmt.Fprintf(c.stderr, "internal error: %v\n", r)
	if os.Getenv("TREF_DEBUG") != "" {
		c.stderr.Write(debug.Stack())
	} else {
		fmt.Fprintln(c.stderr, "This is a bug in tref; please report it with the script that caused it (TREF_DEBUG=1 shows the Go stack).")
	}
	return 1
}

// printer renders errors for this invocation, quoting lines from sources.
func (c *cli) printer(sources diag.Sources) *diag.Printer {
	return &diag.Printer{Color: c.color, Sources: sources}
}
