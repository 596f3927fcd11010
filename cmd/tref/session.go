package main

import (
	"fmt"
	"io"

	"github.com/tref-lang/tref/lang/diag"
	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/rng"
)

// session is one interpreter over one runtime, configured by the flags:
// a script run, one test file, or a REPL.
type session struct {
	c   *cli
	cfg *Config
	rt  *refs.Runtime
	in  *eval.Interpreter
	ex  refs.Executor
}

// newSession makes the executor, the runtime and the interpreter cfg asks
// for.
func (c *cli) newSession(cfg *Config) (*session, error) {
	cfg.hooksOut, cfg.stderr = c.stdout, c.stderr
	ex, err := newExecutor(cfg)
	if err != nil {
		return nil, err
	}
	return c.newSessionWith(cfg, ex, c.stdout), nil
}

// newSessionWith is newSession over the executor ex, with the scripts'
// output going to stdout.
func (c *cli) newSessionWith(cfg *Config, ex refs.Executor, stdout io.Writer) *session {
	rt := refs.New(ex, refs.Options{Lookahead: cfg.Lookahead, TrackRefs: cfg.CheckLeaks || cfg.trackRefs})
	in := eval.NewInterpreter(eval.Config{
		RT:         rt,
		Universe:   c.universe,
		Stdout:     stdout,
		NoLiveness: cfg.NoLiveness,
		Sandbox:    cfg.sandbox,
		Argv:       cfg.Argv,
	})
	if cfg.SeedSet {
		in.Thread().RNG = rng.New(uint64(cfg.Seed))
	}
	return &session{c: c, cfg: cfg, rt: rt, in: in, ex: ex}
}

// sources finds the text of a file named in an error: what the
// interpreter read (REPL input included), or the file on disk.
func (s *session) sources(file string) []byte {
	if src := s.in.Source(file); src != nil {
		return src
	}
	src, _ := eval.ReadSource(file)
	return src
}

// report prints err with quoted source lines to stderr.
func (s *session) report(err error) {
	s.c.printer(s.sources).Print(s.c.stderr, err)
}

// runFile runs the script at path, reports its error, then finishes the
// session, and returns the exit status: 0, or 1 if either failed.
func (s *session) runFile(path string) int {
	code := 0
	if err := s.in.RunFile(path); err != nil {
		s.report(err)
		code = 1
	}
	if !s.finish() {
		code = 1
	}
	return code
}

// finish closes the interpreter, which drops every binding, then runs the
// exit checks the flags ask for. It reports whether they passed.
func (s *session) finish() bool {
	s.in.Close()
	ok := true
	if err := s.rt.Flush(); err != nil {
		s.report(err)
		ok = false
	}
	if s.cfg.CheckLeaks && !s.reportLeaks() {
		ok = false
	}
	if s.cfg.MemStats {
		writeMemStats(s.c.stderr, s.rt.MemStats())
	}
	return ok
}

// closeDevice gives the session's accelerator back (placement.Engine's
// Close: its streams and its staging and pinned host memory) once the
// session is finished and its trace written, and reports whether that
// went well. Each file of tref test opens its own device, so that
// without this their pinned memory would add up.
func (s *session) closeDevice() bool {
	c, ok := s.ex.(interface{ Close() error })
	if !ok {
		return true
	}
	if err := c.Close(); err != nil {
		fmt.Fprintf(s.c.stderr, "tref: closing %s: %v\n", s.cfg.Device, err)
		return false
	}
	return true
}

// reportLeaks prints every ref still alive, at the position that made it,
// and reports whether there were none.
func (s *session) reportLeaks() bool {
	leaks := s.rt.Leaks()
	if len(leaks) == 0 {
		return true
	}
	ds := make([]diag.Diagnostic, 0, len(leaks)+1)
	for _, r := range leaks {
		pos := r.Site().Pos
		ds = append(ds, diag.Diagnostic{Pos: pos, Msg: fmt.Sprintf(
			"leaked tensor ref#%d %v (%d bytes, %d references) made here is alive at exit",
			r.ID(), r.Meta(), r.Bytes(), r.Count())})
	}
	fmt.Fprintf(s.c.stderr, "tref: %d tensors leaked:\n", len(leaks))
	p := s.c.printer(s.sources)
	p.MaxErrors = len(ds)
	p.PrintDiagnostics(s.c.stderr, ds)
	return false
}

// writeMemStats prints memstats() as a table, one line per device.
func writeMemStats(w io.Writer, stats []refs.DeviceStats) {
	width := len("device")
	for _, d := range stats {
		width = max(width, len(d.Device))
	}
	fmt.Fprintln(w, "memstats:")
	fmt.Fprintf(w, "  %-*s %10s %12s %12s %12s\n", width, "device", "live_refs", "live_bytes", "peak_bytes", "cached_bytes")
	for _, d := range stats {
		fmt.Fprintf(w, "  %-*s %10d %12d %12d %12d\n", width, d.Device, d.LiveRefs, d.LiveBytes, d.PeakBytes, d.CachedBytes)
	}
}
