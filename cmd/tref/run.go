package main

import (
	"fmt"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/refs"
)

// run runs one script and returns the exit status.
func (c *cli) run(cfg *Config, path string) int {
	if err := cfg.confine(path); err != nil {
		return c.fail(err)
	}
	defer exitOnSignal(c.stderr)()
	s, err := c.newSession(cfg)
	if err != nil {
		return c.fail(err)
	}
	code := s.runFile(path)
	if !s.closeDevice() {
		code = 1
	}
	return code
}

// check parses and resolves each script, reporting every static error.
func (c *cli) check(cfg *Config, paths []string) int {
	// Nothing runs, so of the flags only --sandbox matters (imports).
	code := 0
	for _, path := range paths {
		if err := cfg.confine(path); err != nil {
			return c.fail(err)
		}
		rt := refs.New(&cpu.Device{}, refs.Options{})
		s := &session{c: c, cfg: cfg, rt: rt, in: eval.NewInterpreter(eval.Config{RT: rt, Universe: c.universe, Sandbox: cfg.sandbox})}
		if err := s.in.CheckFile(path); err != nil {
			s.report(err)
			code = 1
		}
		s.in.Close()
	}
	return code
}

// fail reports an error that has no script position (a device that
// cannot start) and returns exit status 1.
func (c *cli) fail(err error) int {
	fmt.Fprintf(c.stderr, "tref: %v\n", err)
	return 1
}
