package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/tref-lang/tref/runtime/safefile"
)

// exitOnSignal makes SIGINT (Ctrl-C) and SIGTERM end a run, a test or a
// trace without leaving half-written files: the writes in flight are
// discarded (safefile.RemoveTemps: each temporary file goes, each target
// — a saved tensor file, the trace — stays as it was, and nothing is
// renamed after), and the process exits 130 or 143, as a shell reports a
// process killed by the signal. The REPL keeps its own handling (Ctrl-C
// stops the evaluation and keeps the session). stop ends the watch.
func exitOnSignal(stderr io.Writer) (stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-ch:
			safefile.RemoveTemps()
			code := 130
			if sig == syscall.SIGTERM {
				code = 143
			}
			fmt.Fprintf(stderr, "tref: %v: stopped; files being written were left as they were\n", sig)
			os.Exit(code)
		case <-done:
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}

// output is a file that tref writes as a whole (a trace, its SVG): a
// regular file (or a new one) is replaced atomically on Commit, so a
// failed or interrupted write leaves the file that was there; a device, a
// pipe or a stream (-o /dev/stdout) is written directly.
type output struct {
	io.Writer
	atomic *safefile.Atomic
	direct *os.File
}

// createOutput starts writing path. Names under /dev and /proc
// (/dev/stdout, /proc/self/fd/1) are streams, written directly even when
// they lead to a regular file.
func createOutput(path string) (*output, error) {
	abs, _ := filepath.Abs(path)
	stream := strings.HasPrefix(abs, "/dev/") || strings.HasPrefix(abs, "/proc/")
	if st, err := os.Stat(path); err == nil && (stream || !st.Mode().IsRegular() && !st.IsDir()) {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return nil, err
		}
		return &output{Writer: f, direct: f}, nil
	}
	a, err := safefile.CreateAtomic(path)
	if err != nil {
		return nil, err
	}
	return &output{Writer: a, atomic: a}, nil
}

// Commit finishes the file: the new one replaces the old.
func (o *output) Commit() error {
	if o.direct != nil {
		return o.direct.Close()
	}
	return o.atomic.Commit()
}

// Abort gives up: the old file stays. After Commit it does nothing.
func (o *output) Abort() {
	if o.direct != nil {
		o.direct.Close()
		return
	}
	o.atomic.Abort()
}
