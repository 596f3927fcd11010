package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/placement"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/safefile"
	"github.com/tref-lang/tref/stdlib"
)

// scriptHooks calls the hook functions of a policy file (--hooks). The
// file is loaded as a module into an interpreter of its own, over its own
// runtime on the host: hooks see host numbers and strings, never the
// model's tensors, and cannot submit ops into the runtime they steer.
type scriptHooks struct {
	in *eval.Interpreter
	// fns are the hook functions the policy defines, by name (borrowed
	// from the module, which the interpreter keeps loaded).
	fns map[string]eval.Value
}

// loadHooks runs the policy file and finds which hooks it defines; sb,
// when set, confines it (and what it imports and loads) as it confines
// the script. Its print writes to stdout.
func loadHooks(path string, sb *safefile.Sandbox, stdout io.Writer) (*scriptHooks, error) {
	rt := refs.New(&cpu.Device{}, refs.Options{})
	h := &scriptHooks{in: eval.NewInterpreter(eval.Config{RT: rt, Universe: stdlib.Universe(), Sandbox: sb, Stdout: stdout}), fns: map[string]eval.Value{}}
	m, err := h.in.LoadModule(path)
	if err != nil {
		return nil, fmt.Errorf("--hooks %s: %w", path, err)
	}
	found := false
	for _, name := range placement.HookNames {
		v, ok := m.Member(name)
		if !ok {
			continue
		}
		if v.Type() != "function" {
			return nil, fmt.Errorf("--hooks %s: %s is a %s, want a function of one event record", path, name, v.Type())
		}
		h.fns[name], found = v, true
	}
	if !found {
		return nil, fmt.Errorf("--hooks %s defines none of the hook functions %s", path, strings.Join(placement.HookNames, ", "))
	}
	return h, nil
}

// Has reports whether the policy defines a hook.
func (h *scriptHooks) Has(name string) bool { return h.fns[name] != nil }

// Call calls a hook with the event record built from fields.
func (h *scriptHooks) Call(name string, fields []placement.HookField) (any, error) {
	fn := h.fns[name]
	if fn == nil {
		return nil, fmt.Errorf("internal: the policy defines no hook %s", name)
	}
	keys := make([]string, len(fields))
	vals := make([]eval.Value, len(fields))
	for i, f := range fields {
		keys[i] = f.Name
		switch v := f.Value.(type) {
		case string:
			vals[i] = eval.String(v)
		case int64:
			vals[i] = eval.Int(v)
		case bool:
			vals[i] = eval.Bool(v)
		case []int64:
			elems := make([]eval.Value, len(v))
			for j, n := range v {
				elems[j] = eval.Int(n)
			}
			vals[i] = eval.NewList(elems)
		default:
			return nil, fmt.Errorf("internal: hook field %s has type %T", f.Name, v)
		}
	}
	rt := h.in.Thread().RT
	ev := eval.NewRecord(keys, vals)
	defer eval.Release(rt, ev)
	v, err := h.in.Call(fn, ev)
	if err != nil {
		return nil, err
	}
	defer eval.Release(rt, v)
	switch v := v.(type) {
	case eval.NoneType:
		return nil, nil
	case eval.Bool:
		return bool(v), nil
	case eval.Int:
		return int64(v), nil
	case eval.Float32:
		return float64(v), nil
	case eval.Float64:
		return float64(v), nil
	case eval.String:
		return string(v), nil
	}
	return nil, fmt.Errorf("%s returned a %s: want none, a bool, a number or a string", name, v.Type())
}
