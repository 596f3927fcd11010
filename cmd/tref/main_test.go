package main

import (
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/backend/sim"
	"github.com/tref-lang/tref/runtime/backend/torch"
	"github.com/tref-lang/tref/runtime/device"
)

var update = flag.Bool("update", false, "rewrite the expected output in testdata/script/*.txtar")

// TestMain lets the test binary act as the tref command inside scripts
// (testscript installs it in $PATH under each name below).
func TestMain(m *testing.M) {
	if os.Getenv("TREF_TEST_AS_TREF") == "1" {
		// Go tests that start tref as a process of their own (signals).
		os.Exit(newCLI().main(os.Args[1:]))
	}
	testscript.Main(m, map[string]func(){
		"tref": func() { os.Exit(newCLI().main(os.Args[1:])) },
		// tref-debug has builtins and a device that exist only in tests,
		// to reach the paths that a correct tref never takes (panics,
		// leaks, a device that fails to close).
		"tref-debug": func() {
			c := newCLI()
			c.universe = maps.Clone(c.universe)
			for _, b := range debugBuiltins {
				c.universe[b.Name] = b
			}
			registerCloseFail()
			os.Exit(c.main(os.Args[1:]))
		},
		// tref-broken-stdout panics on every write to stdout, outside any
		// builtin, so the top-level recovery is what reports it.
		"tref-broken-stdout": func() {
			c := newCLI()
			c.stdout = panicWriter{}
			os.Exit(c.main(os.Args[1:]))
		},
	})
}

var debugBuiltins = []*eval.Builtin{
	{Name: "debug_panic", Doc: "panics (tests only)", Fn: func(*eval.Thread, *eval.Builtin, []eval.Value, []eval.Kwarg) (eval.Value, error) {
		var xs []int
		return eval.Int(xs[3]), nil // index out of range
	}},
	{Name: "debug_leak", Doc: "keeps a reference to its tensor argument forever (tests only)", Fn: func(th *eval.Thread, _ *eval.Builtin, args []eval.Value, _ []eval.Kwarg) (eval.Value, error) {
		t, ok := args[0].(eval.Tensor)
		if !ok {
			return nil, errors.New("debug_leak: want a tensor")
		}
		th.RT.Retain(t.Ref)
		return eval.None, nil
	}},
}

// closeRefused is sim, except that Close fails: tref-debug's --device
// closefail, for close_device.txtar.
type closeRefused struct{ *sim.Device }

func (closeRefused) Close() error { return errors.New("closefail refuses to close") }

func registerCloseFail() {
	device.Register(device.Kind{Name: "closefail", Indexed: true, Open: func(spec device.Spec, opts device.Options) (device.Device, error) {
		return closeRefused{sim.New(spec.Name, true)}, nil
	}})
}

type panicWriter struct{}

func (panicWriter) Write([]byte) (int, error) { panic("stdout exploded") }

func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		UpdateScripts:       *update,
		RequireExplicitExec: true,
		// [gpu]: the machine has an NVIDIA GPU (cuda_errors.txtar).
		Condition: func(cond string) (bool, error) {
			if cond == "gpu" {
				return torch.GPUPresent(), nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Setup: func(env *testscript.Env) error {
			env.Setenv("NO_COLOR", "1")
			env.Setenv("TREF_HISTORY", env.WorkDir+"/.tref_history")
			// ONNX models for onnx.txtar (written by frontend/onnx's
			// TestFixtures).
			for _, name := range []string{"mlp.onnx", "unsupported.onnx"} {
				b, err := os.ReadFile(filepath.Join("..", "..", "spec", "testdata", name))
				if err != nil {
					return err
				}
				if err := os.WriteFile(filepath.Join(env.WorkDir, name), b, 0o644); err != nil {
					return err
				}
			}
			// The offload examples, for plan.txtar.
			return copyExamples(filepath.Join("..", "..", "examples", "offload"), filepath.Join(env.WorkDir, "offload"))
		},
	})
}

// copyExamples copies the .tr files of dir into a new directory to.
func copyExamples(dir, to string) error {
	names, err := filepath.Glob(filepath.Join(dir, "*.tr"))
	if err != nil {
		return err
	}
	if err := os.Mkdir(to, 0o755); err != nil {
		return err
	}
	for _, name := range names {
		b, err := os.ReadFile(name)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(to, filepath.Base(name)), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}
