// Command tref runs tref scripts: tensor models whose tensors the runtime
// places on devices by itself.
//
//	tref run [flags] model.tr     run a script
//	tref                          interactive REPL (also `tref repl`)
//	tref test [paths...]          run the test blocks of .tr files
//	tref check model.tr...        parse and resolve only
//	tref trace [flags] model.tr   run and dump every placement decision
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
}

// colorAllowed reports whether errors written to f may be coloured: f is a
// terminal and NO_COLOR is unset (https://no-color.org).
func colorAllowed(f *os.File) bool {
	if _, set := os.LookupEnv("NO_COLOR"); set || os.Getenv("TERM") == "dumb" {
		return false
	}
	return isTerminal(f.Fd())
}

var commands = map[string]*command{
	"run": {name: "run", usage: "tref run [flags] model.tr", flags: true, minArgs: 1, maxArgs: 1,
		doc: "Run a script. Test blocks are skipped."},
	"check": {name: "check", usage: "tref check [flags] model.tr...", flags: true, minArgs: 1, maxArgs: -1,
		doc: "Parse and resolve scripts without running them; report every static error."},
	"test": {name: "test", usage: "tref test [flags] [paths...]", flags: true, minArgs: 0, maxArgs: -1,
		doc: "Run the test blocks of .tr files. A directory means every .tr file under it;\n" +
			"no path means the current directory. Prints one line per test and a closing\n" +
			"line \"N passed, N failed\"; exits 1 if any test failed."},
	"repl": {name: "repl", usage: "tref repl [flags]", flags: true, minArgs: 0, maxArgs: 0,
		doc: "Start the interactive REPL (the same as plain `tref`). Type :help inside it.\n" +
			"With stdin not a terminal, reads and runs all of it without prompts."},
	"trace": {name: "trace", usage: "tref trace [flags] model.tr", flags: true, minArgs: 1, maxArgs: 1,
		doc: "Run a script and dump every placement decision (ops, copies, evictions)."},
	"onnx": {name: "onnx", usage: "tref onnx inspect model.onnx", minArgs: 2, maxArgs: 2,
		doc: "Describe an ONNX model: opset, inputs, outputs, op counts, parameter bytes\n" +
			"and the ops tref cannot run."},
	"calibrate": {name: "calibrate", usage: "tref calibrate [--device DEV]", flags: true, minArgs: 0, maxArgs: 0,
		doc: "Measure an accelerator (copy bandwidth, op latency, matmul and memory throughput)\n" +
			"and print the cost-model flags (--sim-bw, --sim-flops, --sim-membw, --sim-latency)\n" +
			"that make --device sim predict it; given to run or trace on that device, the\n" +
			"placement engine plans with them. auto means the first GPU, else torch:cpu."},
	"version": {name: "version", usage: "tref version", minArgs: 0, maxArgs: 0,
		doc: "Print tref's version."},
}

const topUsage = `tref runs tensor scripts and places their tensors on devices by itself.

usage: tref <command> [flags] [arguments]

Commands:
  run        run a script
  repl       interactive REPL (the default with no command)
  test       run the test blocks of .tr files
  check      parse and resolve scripts only
  trace      run a script and dump every placement decision
  calibrate  measure a device and print the cost-model flags for it
  onnx       inspect an ONNX model (tref onnx inspect model.onnx)
  version    print the version

Run 'tref <command> -h' for a command's flags.
`

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
		fmt.Fprint(c.stdout, topUsage)
		return 0
	case name == "--version":
		return c.version()
	case strings.HasPrefix(name, "-"):
		// Flags without a command configure the REPL.
		name, args = "repl", append([]string{"repl"}, args...)
	}
	cmd, ok := commands[name]
	if !ok {
		hint := ""
		if strings.HasSuffix(name, ".tr") {
			hint = fmt.Sprintf(" (to run a script: tref run %s)", name)
		}
		fmt.Fprintf(c.stderr, "tref: unknown command %q%s\n\n%s", name, hint, topUsage)
		return 2
	}
	if name == "trace" {
		return traceCommand(args[1:], c.stdout, c.stderr)
	}
	if name == "onnx" {
		return c.onnxCommand(args[1:])
	}
	cfg, pos, code, done := parseCommand(cmd, args[1:], c.stdout, c.stderr)
	if done {
		return code
	}
	switch name {
	case "run":
		return c.run(cfg, pos[0])
	case "check":
		return c.check(cfg, pos)
	case "test":
		return c.test(cfg, pos)
	case "repl":
		return c.repl(cfg)
	case "calibrate":
		return c.calibrate(cfg)
	case "version":
		return c.version()
	}
	panic("tref: command without a body: " + name)
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
