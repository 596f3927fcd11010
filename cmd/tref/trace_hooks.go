package main

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/placement"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/stdlib"
)

// scriptHooks calls the hook functions of a policy file (--hooks). The
// file is imported as a module into an interpreter of its own, over its
// own runtime on the host: hooks see host numbers and strings, never the
// model's tensors, and cannot submit ops into the runtime they steer.
type scriptHooks struct {
	in      *eval.Interpreter
	defined map[string]bool
}

// hookModule is the name the policy module is bound to.
const hookModule = "__placement_hooks"

// loadHooks runs the policy file and finds which hooks it defines.
func loadHooks(path string) (*scriptHooks, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	rt := refs.New(&cpu.Device{}, refs.Options{})
	h := &scriptHooks{in: eval.NewInterpreter(eval.Config{RT: rt, Universe: stdlib.Universe()}), defined: map[string]bool{}}
	v, err := h.in.EvalREPL(fmt.Sprintf("import %s as %s", hookQuote(abs), hookModule))
	if err != nil {
		return nil, fmt.Errorf("--hooks %s: %w", path, err)
	}
	eval.Release(rt, v)
	found := false
	for _, name := range placement.HookNames {
		v, err := h.in.EvalREPL(hookModule + "." + name)
		if err != nil {
			continue
		}
		if v.Type() != "function" {
			eval.Release(rt, v)
			return nil, fmt.Errorf("--hooks %s: %s is a %s, want a function of one event record", path, name, v.Type())
		}
		eval.Release(rt, v)
		h.defined[name], found = true, true
	}
	if !found {
		return nil, fmt.Errorf("--hooks %s defines none of the hook functions %s", path, strings.Join(placement.HookNames, ", "))
	}
	return h, nil
}

// Has reports whether the policy defines a hook.
func (h *scriptHooks) Has(name string) bool { return h.defined[name] }

// Call calls a hook with a record literal built from fields.
func (h *scriptHooks) Call(name string, fields []placement.HookField) (any, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "%s.%s({", hookModule, name)
	for i, f := range fields {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(f.Name + ": ")
		switch v := f.Value.(type) {
		case string:
			b.WriteString(hookQuote(v))
		case int64:
			b.WriteString(strconv.FormatInt(v, 10))
		case bool:
			b.WriteString(strconv.FormatBool(v))
		case []int64:
			b.WriteByte('[')
			for j, n := range v {
				if j > 0 {
					b.WriteString(", ")
				}
				b.WriteString(strconv.FormatInt(n, 10))
			}
			b.WriteByte(']')
		default:
			return nil, fmt.Errorf("internal: hook field %s has type %T", f.Name, v)
		}
	}
	b.WriteString("})")
	v, err := h.in.EvalREPL(b.String())
	if err != nil {
		return nil, err
	}
	defer eval.Release(h.in.Thread().RT, v)
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
