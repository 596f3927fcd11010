package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"

	"github.com/peterh/liner"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/lang/parser"
	"github.com/tref-lang/tref/runtime/safefile"
	"github.com/tref-lang/tref/stdlib"
)

// The prompts: a fresh statement, and a continuation while brackets are
// open.
const (
	promptFirst = "tref> "
	promptMore  = "...   "
)

// repl is a read-eval-print loop over one session. Input accumulates in
// pending until it parses as complete statements.
type repl struct {
	c       *cli
	s       *session
	pending strings.Builder
	// evaluating is set while an input runs, so SIGINT interrupts it.
	evaluating atomic.Bool
	// failed records that some input failed (the exit status when piped).
	failed bool
	quit   bool
}

// repl runs the REPL: interactive on a terminal, else reading stdin to
// its end without prompts.
func (c *cli) repl(cfg *Config) int {
	if err := cfg.confine(""); err != nil {
		return c.fail(err)
	}
	s, err := c.newSession(cfg)
	if err != nil {
		return c.fail(err)
	}
	r := &repl{c: c, s: s}
	f, ok := c.stdin.(*os.File)
	interactive := ok && isTerminal(f.Fd())
	if interactive {
		r.interactive()
	} else {
		r.stream(c.stdin)
	}
	// Errors typed at a terminal were seen and answered there; only a
	// stream's errors decide the exit status.
	if !s.finish() || !s.closeDevice() || r.failed && !interactive {
		return 1
	}
	return 0
}

// stream evaluates all of in, statement by statement; errors go to
// stderr and make the exit status 1.
func (r *repl) stream(in io.Reader) {
	br := bufio.NewReader(in)
	for !r.quit {
		line, err := br.ReadString('\n')
		if line != "" || err == nil {
			r.feed(strings.TrimSuffix(line, "\n"))
		}
		if err != nil {
			if err != io.EOF {
				fmt.Fprintf(r.c.stderr, "tref: reading stdin: %v\n", err)
				r.failed = true
			}
			break
		}
	}
	if r.pending.Len() > 0 && !r.quit {
		// Input ended inside brackets: evaluate to report where.
		r.eval(r.pending.String(), true)
	}
}

// interactive reads lines with editing, history and completion.
func (r *repl) interactive() {
	ln := liner.NewLiner()
	defer ln.Close()
	ln.SetCtrlCAborts(true)
	ln.SetTabCompletionStyle(liner.TabPrints)
	ln.SetWordCompleter(r.complete)
	hist := historyPath()
	loadHistory(ln, hist)
	defer saveHistory(ln, hist, r.c.stderr)

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	defer signal.Stop(sig)
	done := make(chan struct{})
	defer close(done)
	go func() {
		for {
			select {
			case <-sig:
				if r.evaluating.Load() {
					r.s.in.Interrupt()
				}
			case <-done:
				return
			}
		}
	}()

	fmt.Fprintln(r.c.stdout, "tref REPL — :help for help, Ctrl-D to leave.")
	// lines are the current input's lines, one history entry when it is
	// complete.
	var lines []string
	for !r.quit {
		prompt := promptFirst
		if r.pending.Len() > 0 {
			prompt = promptMore
		}
		line, err := ln.Prompt(prompt)
		switch {
		case errors.Is(err, liner.ErrPromptAborted):
			r.pending.Reset()
			lines = lines[:0]
			continue
		case err == io.EOF:
			fmt.Fprintln(r.c.stdout)
			return
		case err != nil:
			fmt.Fprintf(r.c.stderr, "tref: reading input: %v\n", err)
			return
		}
		if strings.TrimSpace(line) != "" {
			lines = append(lines, line)
		}
		r.feed(line)
		if r.pending.Len() == 0 {
			for _, h := range historyEntries(lines) {
				ln.AppendHistory(h)
			}
			lines = lines[:0]
		}
	}
}

// historyEntries is what the history keeps of an input typed as lines:
// one entry, its lines joined into one that parses the same (a function
// or a block typed over several lines is recalled whole), or the lines
// as typed where they cannot be joined.
func historyEntries(lines []string) []string {
	if len(lines) <= 1 {
		return lines
	}
	if one, ok := parser.OneLine(strings.Join(lines, "\n")); ok {
		return []string{one}
	}
	return lines
}

// feed adds one line of input and evaluates what is complete. A line
// starting with ':' outside a statement is a REPL command.
func (r *repl) feed(line string) {
	if r.pending.Len() == 0 {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" {
			return
		}
		if strings.HasPrefix(trimmed, ":") {
			r.command(trimmed)
			return
		}
	}
	r.pending.WriteString(line)
	r.pending.WriteByte('\n')
	r.eval(r.pending.String(), false)
}

// eval evaluates src as one REPL input. Unless final, an input that ends
// inside open brackets is kept for the next line.
func (r *repl) eval(src string, final bool) {
	r.evaluating.Store(true)
	v, err := r.s.in.EvalREPL(src)
	r.evaluating.Store(false)
	if err != nil && !final && parser.Incomplete(err) {
		return
	}
	r.pending.Reset()
	if err != nil {
		r.s.report(err)
		r.failed = true
		return
	}
	if v == nil {
		return
	}
	defer eval.Release(r.s.rt, v)
	if _, none := v.(eval.NoneType); none {
		return
	}
	text, err := r.s.in.Thread().Format(v)
	if err != nil {
		r.s.report(err)
		r.failed = true
		return
	}
	fmt.Fprintln(r.c.stdout, text)
}

const replHelp = `Enter statements (let x = ...) or expressions; an expression's value is
printed. Input continues on the next line while brackets are open.
Ctrl-C abandons the current input or stops a running evaluation (at the
next op: the ops it queued fail with "interrupted", and so does a
variable it was assigning); the session and its other variables stay.
Up recalls earlier inputs (one typed over several lines as one line).
Ctrl-D leaves.

Commands:
  :help [name]    this help, or what a builtin does
  :mem            memstats() as a table: per device, the live tensors
                  whose data it holds and their bytes, the peak, the cache
  :trace on|off   print placement events as ops run
  :quit           leave (also Ctrl-D)
`

// command runs a REPL command (":help").
func (r *repl) command(line string) {
	fields := strings.Fields(line)
	out := r.c.stdout
	switch fields[0] {
	case ":help", ":h":
		if len(fields) > 1 {
			doc, ok := r.builtinDoc(fields[1])
			if !ok {
				r.commandError("no builtin named %q", fields[1])
				return
			}
			fmt.Fprintln(out, doc)
			return
		}
		fmt.Fprint(out, replHelp)
		fmt.Fprintf(out, "\nBuiltins (:help name for one):\n%s", wrapWords(stdlib.Names(), "  ", 76))
	case ":quit", ":q", ":exit":
		r.quit = true
	case ":mem":
		writeMemStats(out, r.s.rt.MemStats())
	case ":trace":
		if len(fields) != 2 || fields[1] != "on" && fields[1] != "off" {
			r.commandError("usage: :trace on|off")
			return
		}
		if err := setREPLTracing(r.s.rt.Executor(), fields[1] == "on", out); err != nil {
			r.commandError("trace: %v", err)
			return
		}
		fmt.Fprintf(out, "trace: %s\n", fields[1])
	default:
		r.commandError("unknown command %s (type :help)", fields[0])
	}
}

func (r *repl) commandError(format string, args ...any) {
	fmt.Fprintf(r.c.stderr, format+"\n", args...)
	r.failed = true
}

// historyPath is where the REPL keeps its history: $TREF_HISTORY, else
// $XDG_STATE_HOME/tref/history, else ~/.local/state/tref/history on Linux,
// else the user's cache directory.
func historyPath() string {
	if p := os.Getenv("TREF_HISTORY"); p != "" {
		return p
	}
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "tref", "history")
	}
	if home, err := os.UserHomeDir(); err == nil && runtime.GOOS == "linux" {
		return filepath.Join(home, ".local", "state", "tref", "history")
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "tref", "history")
	}
	return ""
}

func loadHistory(ln *liner.State, path string) {
	if path == "" {
		return
	}
	f, err := os.Open(path)
	if err != nil {
		return // no history yet
	}
	defer f.Close()
	ln.ReadHistory(f)
}

// saveHistory writes the history back; a failure is worth a warning, not
// an error exit.
func saveHistory(ln *liner.State, path string, warn io.Writer) {
	if path == "" {
		return
	}
	err := os.MkdirAll(filepath.Dir(path), 0o700)
	if err == nil {
		err = writeHistory(ln, path)
	}
	if err != nil {
		fmt.Fprintf(warn, "tref: warning: saving history: %v\n", err)
	}
}

// writeHistory replaces the history file with ln's history atomically (a
// temporary file renamed over it, so a crash or a second session saving at
// the same time never leaves it half written); a new file is private to
// the user (0600), an existing one keeps its mode.
func writeHistory(ln *liner.State, path string) error {
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		if f != nil {
			f.Close()
		}
	}
	a, err := safefile.CreateAtomic(path)
	if err != nil {
		return err
	}
	defer a.Abort()
	if _, err := ln.WriteHistory(a); err != nil {
		return err
	}
	return a.Commit()
}

// wrapWords joins words into lines of at most width characters, each
// starting with indent.
func wrapWords(words []string, indent string, width int) string {
	var b strings.Builder
	n := 0
	for _, w := range words {
		if n > 0 && n+1+len(w) > width {
			b.WriteByte('\n')
			n = 0
		}
		if n == 0 {
			b.WriteString(indent)
			n = len(indent)
		} else {
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += len(w)
	}
	if n > 0 {
		b.WriteByte('\n')
	}
	return b.String()
}

// builtinDoc is the doc of a builtin, or of a member of a namespace
// builtin (math.sqrt: its doc after its full name).
func (r *repl) builtinDoc(name string) (string, bool) {
	if b, ok := r.c.universe[name]; ok {
		return b.Doc, true
	}
	ns, member, dotted := strings.Cut(name, ".")
	if b, ok := r.c.universe[ns]; ok && dotted {
		if m, ok := b.Methods[member]; ok {
			return m.Doc, true
		}
		switch m := b.Members[member].(type) {
		case *eval.Builtin:
			return name + ": " + m.Doc, true
		case nil:
		default:
			return name + " = " + eval.Format(m), true
		}
	}
	return "", false
}
