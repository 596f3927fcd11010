package stdlib

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// The general builtins: printing, sizes and types, ranges, records,
// timing, memory statistics, forcing values, testing errors, and
// placement hints. spec/README.md describes each.

func init() {
	register("print", "print(a, b, ...): write the values separated by spaces, then a newline", builtinPrint)
	register("len", "len(x): elements of a list, fields of a record, characters of a string, first dimension of a tensor", builtinLen)
	register("str", "str(x): x as print shows it", builtinStr)
	register("type", `type(x): "tensor", "string", "list", "record", "function", "module", "range" or "none"`, builtinType)
	register("range", "range(stop) or range(start, stop, step=1): the ints from start up to (not including) stop", builtinRange)
	register("keys", "keys(r): a record's field names, in order", builtinKeys)
	register("values", "values(r): a record's values, in order", builtinValues)
	register("clock", "clock(): monotonic seconds (float64), for timing", builtinClock)
	register("memstats", "memstats(): per device, {live_refs, live_bytes, peak_bytes, cached_bytes}", builtinMemstats)
	register("item", "item(x): a one-element tensor as a host number (forces it)", builtinItem)
	register("assert_error", `assert_error(fn, "text"): call fn(); fail unless it fails with a message containing text`, builtinAssertError)
	register("hint_keep", "hint_keep(x): ask placement to keep x on the accelerator", builtinHint("keep"))
	register("hint_offload", "hint_offload(x): ask placement to move x off the accelerator when it can", builtinHint("offload"))
}

// noKwargs rejects keyword arguments for builtins that take none.
func noKwargs(name string, kwargs []eval.Kwarg) error {
	if len(kwargs) > 0 {
		return fmt.Errorf("%s: unexpected keyword argument %q", name, kwargs[0].Name)
	}
	return nil
}

func builtinPrint(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	if err := noKwargs("print", kwargs); err != nil {
		return nil, err
	}
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		s, err := th.Format(a)
		if err != nil {
			return nil, err
		}
		b.WriteString(s)
	}
	b.WriteByte('\n')
	w := th.Stdout
	if w == nil {
		w = io.Discard
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return nil, fmt.Errorf("print: %v", err)
	}
	return eval.None, nil
}

func builtinLen(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x eval.Value
	if err := eval.UnpackArgs(th, "len", args, kwargs, "x", &x); err != nil {
		return nil, err
	}
	switch x := x.(type) {
	case *eval.List:
		return eval.Int(len(x.Elems)), nil
	case *eval.Record:
		return eval.Int(len(x.Keys)), nil
	case eval.String:
		return eval.Int(utf8.RuneCountInString(string(x))), nil
	case eval.Range:
		return eval.Int(x.Len()), nil
	case eval.Tensor:
		if s := x.Ref.Shape(); len(s) > 0 {
			return eval.Int(s[0]), nil
		}
		return nil, errors.New("len: a 0-d tensor has no length")
	case eval.Bool, eval.Int, eval.Float32, eval.Float64:
		return nil, errors.New("len: a number (0-d tensor) has no length")
	}
	return nil, fmt.Errorf("len: %s has no length", eval.Describe(x))
}

func builtinStr(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x eval.Value
	if err := eval.UnpackArgs(th, "str", args, kwargs, "x", &x); err != nil {
		return nil, err
	}
	s, err := th.Format(x)
	if err != nil {
		return nil, err
	}
	return eval.String(s), nil
}

func builtinType(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x eval.Value
	if err := eval.UnpackArgs(th, "type", args, kwargs, "x", &x); err != nil {
		return nil, err
	}
	return eval.String(x.Type()), nil
}

func builtinRange(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	// range(n) is range(0, n): one positional argument is the stop,
	// unless stop is given by name too.
	var start, stop eval.Value
	step := 1
	if err := eval.UnpackArgs(th, "range", args, kwargs, "start?", &start, "stop?", &stop, "step?", &step); err != nil {
		return nil, err
	}
	switch {
	case stop == nil && len(args) == 1:
		start, stop = nil, start
	case stop == nil:
		return nil, errors.New(`range: missing argument "stop"`)
	}
	a, b := 0, 0
	for _, p := range []struct {
		name string
		v    eval.Value
		dst  *int
	}{{"start", start, &a}, {"stop", stop, &b}} {
		if p.v == nil {
			continue
		}
		n, ok := th.AsInt(p.v)
		if !ok {
			return nil, fmt.Errorf("range: argument %q must be an int, not %s", p.name, eval.Describe(p.v))
		}
		*p.dst = n
	}
	if step == 0 {
		return nil, errors.New("range: step must not be zero")
	}
	r := eval.Range{Start: int64(a), Stop: int64(b), Step: int64(step)}
	if r.Len() < 0 {
		return nil, fmt.Errorf("range(%d, %d, %d) has more than %d values", a, b, step, int64(math.MaxInt64))
	}
	return r, nil
}

func builtinKeys(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x eval.Value
	if err := eval.UnpackArgs(th, "keys", args, kwargs, "r", &x); err != nil {
		return nil, err
	}
	var names []string
	switch x := x.(type) {
	case *eval.Record:
		names = x.Keys
	case *eval.Module:
		names = x.Members()
	default:
		return nil, fmt.Errorf("keys: argument must be a record, not %s", eval.Describe(x))
	}
	out := make([]eval.Value, len(names))
	for i, k := range names {
		out[i] = eval.String(k)
	}
	return eval.NewList(out), nil
}

func builtinValues(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x eval.Value
	if err := eval.UnpackArgs(th, "values", args, kwargs, "r", &x); err != nil {
		return nil, err
	}
	r, ok := x.(*eval.Record)
	if !ok {
		return nil, fmt.Errorf("values: argument must be a record, not %s", eval.Describe(x))
	}
	out := make([]eval.Value, len(r.Values))
	for i, v := range r.Values {
		eval.Retain(th.RT, v)
		out[i] = v
	}
	return eval.NewList(out), nil
}

var start = time.Now()

func builtinClock(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	if err := eval.UnpackArgs(th, "clock", args, kwargs); err != nil {
		return nil, err
	}
	return eval.Float64(time.Since(start).Seconds()), nil
}

func builtinMemstats(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	if err := eval.UnpackArgs(th, "memstats", args, kwargs); err != nil {
		return nil, err
	}
	stats := th.RT.MemStats()
	keys := make([]string, 0, len(stats))
	vals := make([]eval.Value, 0, len(stats))
	for _, s := range stats {
		keys = append(keys, s.Device)
		vals = append(vals, eval.NewRecord(
			[]string{"live_refs", "live_bytes", "peak_bytes", "cached_bytes"},
			[]eval.Value{eval.Int(s.LiveRefs), eval.Int(s.LiveBytes), eval.Int(s.PeakBytes), eval.Int(s.CachedBytes)}))
	}
	return eval.NewRecord(keys, vals), nil
}

func builtinItem(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x eval.Value
	if err := eval.UnpackArgs(th, "item", args, kwargs, "x", &x); err != nil {
		return nil, err
	}
	switch v := x.(type) {
	case eval.Bool, eval.Int, eval.Float32, eval.Float64:
		return v, nil
	case eval.Tensor:
		if n := v.Ref.Shape().Numel(); n != 1 {
			return nil, fmt.Errorf("item: needs a tensor of one element, got shape %v", v.Ref.Shape())
		}
		d, err := th.RT.Read(v.Ref)
		if err != nil {
			return nil, err
		}
		switch d.DType {
		case tensor.Bool:
			return eval.Bool(d.Buf[0] != 0), nil
		case tensor.Int64, tensor.Uint8:
			return eval.Int(int64(d.At(0))), nil
		case tensor.Float64:
			return eval.Float64(d.At(0)), nil
		}
		return eval.Float32(float32(d.At(0))), nil
	}
	return nil, fmt.Errorf("item: argument must be a tensor, not %s", eval.Describe(x))
}

func builtinAssertError(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var fn eval.Value
	var want string
	if err := eval.UnpackArgs(th, "assert_error", args, kwargs, "fn", &fn, "text", &want); err != nil {
		return nil, err
	}
	switch fn.(type) {
	case *eval.Closure, *eval.Builtin:
	default:
		return nil, fmt.Errorf("assert_error: fn must be a function, not %s", eval.Describe(fn))
	}
	v, err := th.Call(fn, nil, nil)
	if err == nil {
		eval.Release(th.RT, v)
		return nil, fmt.Errorf("assert_error: expected an error containing %q, but the function returned normally", want)
	}
	msg := err.Error()
	var e *eval.Error
	if errors.As(err, &e) {
		msg = e.Msg
	}
	if !strings.Contains(msg, want) {
		return nil, fmt.Errorf("assert_error: the error %q does not contain %q", msg, want)
	}
	return eval.None, nil
}

// builtinHint passes a placement hint to the executor when it takes
// hints; with a plain device it does nothing. Hints never change results.
func builtinHint(hint string) eval.BuiltinFunc {
	name := "hint_" + hint
	return func(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		var x eval.Value
		if err := eval.UnpackArgs(th, name, args, kwargs, "x", &x); err != nil {
			return nil, err
		}
		t, ok := x.(eval.Tensor)
		if !ok {
			switch x.(type) {
			case eval.Bool, eval.Int, eval.Float32, eval.Float64:
				return eval.None, nil // numbers live on the host
			}
			return nil, fmt.Errorf("%s: argument must be a tensor, not %s", name, eval.Describe(x))
		}
		if h, ok := th.RT.Executor().(refs.Hinter); ok {
			if err := h.Hint(th.RT, t.Ref, hint); err != nil {
				return nil, fmt.Errorf("%s: %v", name, err)
			}
		}
		return eval.None, nil
	}
}
