package stdlib

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// The general builtins: printing, sizes and types, ranges, records,
// timing, memory statistics, forcing values, testing errors, and
// placement hints. spec/README.md describes each.

func init() {
	register("print", `print(a, b, ..., sep=" ", end="\n", flush=false): write the values as str() writes them, separated by sep, then end, as Python's print (the output is unbuffered: flush is accepted and changes nothing)`, builtinPrint)
	register("len", "len(x): elements of a list, fields of a record, characters of a string, first dimension of a tensor", builtinLen)
	register("str", "str(x): x as print shows it", builtinStr)
	register("type", `type(x): "tensor", "string", "list", "record", "function", "module", "range" or "none"`, builtinType)
	register("range", "range(stop) or range(start, stop, step=1): the ints from start up to (not including) stop", builtinRange)
	register("keys", "keys(r): a record's keys (strings, and ints for int keys), in order", builtinKeys)
	register("values", "values(r): a record's values, in order", builtinValues)
	register("get", "get(r, key, default=none): the field key of a record, or default when it has none, as Python's d.get(key, default)", builtinGet)
	register("dict", "dict(pairs=none, **fields): a record from a list of [key, value] pairs (or a record), then the keyword arguments, later keys replacing earlier ones, as Python's dict(...)", builtinDict)
	register("items", "items(r): a record's [key, value] pairs, in order, as Python's d.items() (for [k, v] in items(r))", builtinItems)
	register("clock", "clock(): monotonic seconds (float64), for timing", builtinClock)
	register("memstats", "memstats(): per device, {live_refs, live_bytes, peak_bytes, cached_bytes}: the tensors whose data the device holds (one on two devices counts on both), their bytes, the most bytes held at once, and freed memory kept for reuse; the ops queued so far run first, so every tensor alive at that point is counted, as :mem counts after each REPL input", builtinMemstats)
	register("item", "item(x): a one-element tensor as a host number (forces it)", builtinItem)
	register("assert_error", `assert_error(fn, "text"): call fn(); fail unless it fails with a message containing text`, builtinAssertError)
	register("allclose", "allclose(a, b, rtol=1e-5, atol=1e-8, equal_nan=false): whether |a - b| <= atol + rtol * |b| everywhere (broadcasting), as torch.allclose", builtinAllclose)
	register("assert_close", "assert_close(a, b, rtol=1e-5, atol=1e-8, equal_nan=false): fail unless allclose(a, b), naming the worst element", builtinAssertClose)
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
	sep, end := " ", "\n"
	for _, k := range kwargs {
		var dst *string
		switch k.Name {
		case "sep":
			dst = &sep
		case "end":
			dst = &end
		case "flush":
			if _, ok := k.Value.(eval.Bool); !ok {
				return nil, fmt.Errorf("print: argument \"flush\" must be a bool, not %s", eval.Describe(k.Value))
			}
			continue
		default:
			return nil, fmt.Errorf("print: unknown keyword argument %q (print takes sep, end and flush)", k.Name)
		}
		switch v := k.Value.(type) {
		case eval.String:
			*dst = string(v)
		case eval.NoneType: // Python's default
		default:
			return nil, fmt.Errorf("print: argument %q must be a string or none, not %s", k.Name, eval.Describe(k.Value))
		}
	}
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteString(sep)
		}
		s, err := th.Format(a)
		if err != nil {
			return nil, err
		}
		b.WriteString(s)
	}
	b.WriteString(end)
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
	switch x := x.(type) {
	case *eval.Record:
		out := make([]eval.Value, len(x.Keys))
		for i := range x.Keys {
			out[i] = x.Key(i)
		}
		return eval.NewList(out), nil
	case *eval.Module:
		names := x.Members()
		out := make([]eval.Value, len(names))
		for i, k := range names {
			out[i] = eval.String(k)
		}
		return eval.NewList(out), nil
	}
	return nil, fmt.Errorf("keys: argument must be a record, not %s", eval.Describe(x))
}

// recordArg is x as the record argument of the builtin fname.
func recordArg(fname string, x eval.Value) (*eval.Record, error) {
	r, ok := x.(*eval.Record)
	if !ok {
		return nil, fmt.Errorf("%s: argument must be a record, not %s", fname, eval.Describe(x))
	}
	return r, nil
}

func builtinValues(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x eval.Value
	if err := eval.UnpackArgs(th, "values", args, kwargs, "r", &x); err != nil {
		return nil, err
	}
	r, err := recordArg("values", x)
	if err != nil {
		return nil, err
	}
	out := make([]eval.Value, len(r.Values))
	for i, v := range r.Values {
		eval.Retain(th.RT, v)
		out[i] = v
	}
	return eval.NewList(out), nil
}

func builtinGet(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x, key eval.Value
	dflt := eval.None
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "r", &x, "key", &key, "default?", &dflt); err != nil {
		return nil, err
	}
	r, err := recordArg(b.Name, x)
	if err != nil {
		return nil, err
	}
	if _, _, ok := eval.RecordKey(key); !ok {
		return nil, fmt.Errorf("%s: argument \"key\" must be a string or an int, not %s", b.Name, eval.Describe(key))
	}
	v := dflt
	if i := r.Find(key); i >= 0 {
		v = r.Values[i]
	}
	eval.Retain(th.RT, v)
	return v, nil
}

func builtinDict(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	if len(args) > 1 {
		return nil, fmt.Errorf("%s: takes at most one positional argument (a list of [key, value] pairs or a record), got %d", b.Name, len(args))
	}
	out := eval.NewRecord(nil, nil)
	set := func(k eval.Value, v eval.Value) {
		eval.Retain(th.RT, v)
		out.PutKey(th.RT, k, v)
	}
	fail := func(err error) (eval.Value, error) {
		eval.Release(th.RT, out)
		return nil, err
	}
	if len(args) == 1 {
		switch src := args[0].(type) {
		case *eval.Record:
			for i := range src.Keys {
				set(src.Key(i), src.Values[i])
			}
		default:
			pairs, err := collect(th, b.Name, src)
			if err != nil {
				return nil, err
			}
			defer eval.Release(th.RT, eval.NewList(pairs))
			for i, p := range pairs {
				l, ok := p.(*eval.List)
				if !ok || len(l.Elems) != 2 {
					return fail(fmt.Errorf("%s: element %d is %s, not a [key, value] pair", b.Name, i, eval.Describe(p)))
				}
				if _, _, ok := eval.RecordKey(l.Elems[0]); !ok {
					return fail(fmt.Errorf("%s: the key of pair %d is %s; record keys are strings or ints", b.Name, i, eval.Describe(l.Elems[0])))
				}
				set(l.Elems[0], l.Elems[1])
			}
		}
	}
	for _, kw := range kwargs {
		set(eval.String(kw.Name), kw.Value)
	}
	if err := th.RT.HostPool().CheckValue(int64(len(out.Keys)) * eval.RecordFieldBytes); err != nil {
		return fail(fmt.Errorf("%s: %w", b.Name, err))
	}
	return out, nil
}

func builtinItems(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x eval.Value
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "r", &x); err != nil {
		return nil, err
	}
	r, err := recordArg(b.Name, x)
	if err != nil {
		return nil, err
	}
	if err := th.RT.HostPool().CheckValue(int64(len(r.Values)) * 3 * int64(unsafe.Sizeof(x))); err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name, err)
	}
	out := make([]eval.Value, len(r.Values))
	for i, v := range r.Values {
		eval.Retain(th.RT, v)
		out[i] = eval.NewList([]eval.Value{r.Key(i), v})
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
	// The queued ops run first, so that every tensor alive at this point
	// of the script is counted where its data is (a queued result holds
	// no memory yet, and the operands it holds would be counted instead),
	// as the REPL's :mem sees the session after each input.
	if err := th.RT.Flush(); err != nil {
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
		return elementValue(d, 0), nil
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
	case *eval.Closure, *eval.Builtin, *eval.Bound:
	default:
		return nil, fmt.Errorf("assert_error: fn must be a function, not %s", eval.Describe(fn))
	}
	v, err := th.Call(fn, nil, nil)
	if err == nil {
		// Ops run lazily: the error of an op the function queued shows
		// when its result is computed, so compute what it returned.
		err = forceAll(th.RT, v, 0)
		eval.Release(th.RT, v)
	}
	if err == nil {
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

// forceAll computes the tensors in v (inside lists and records too, to
// a bounded depth) and returns the first failure.
func forceAll(rt *refs.Runtime, v eval.Value, depth int) error {
	if depth > 100 {
		return nil
	}
	switch v := v.(type) {
	case eval.Tensor:
		return rt.Force(v.Ref)
	case *eval.List:
		for _, e := range v.Elems {
			if err := forceAll(rt, e, depth+1); err != nil {
				return err
			}
		}
	case *eval.Record:
		for _, e := range v.Values {
			if err := forceAll(rt, e, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// closeness is the result of comparing two tensors elementwise.
type closeness struct {
	shape    tensor.Shape // the broadcast shape
	bad, n   int          // mismatched elements, of n
	worst    int          // flat index of the largest mismatch
	a, b     float64      // the values there
	diff     float64      // |a - b| there (+Inf where one is NaN)
	allowed  float64      // atol + rtol*|b| there
	hasWorst bool
	// dtypes of a and b, for printing their values.
	adt, bdt tensor.DType
}

// compareClose compares a and b as torch.allclose does: broadcasting,
// |a - b| <= atol + rtol*|b|, equal infinities are close, and NaN is close
// only to NaN and only with equalNaN. It forces both tensors.
func compareClose(th *eval.Thread, fname string, args []eval.Value, kwargs []eval.Kwarg) (closeness, error) {
	var a, b *refs.Ref
	rtol, atol, equalNaN := 1e-5, 1e-8, false
	if err := eval.UnpackArgs(th, fname, args, kwargs, "a|input", &a, "b|other", &b, "rtol?", &rtol, "atol?", &atol, "equal_nan?", &equalNaN); err != nil {
		return closeness{}, err
	}
	if rtol < 0 || atol < 0 {
		return closeness{}, fmt.Errorf("%s: rtol and atol must not be negative, got rtol=%g atol=%g", fname, rtol, atol)
	}
	shape, err := tensor.Broadcast(a.Shape(), b.Shape())
	if err != nil {
		return closeness{}, fmt.Errorf("%s: %v", fname, err)
	}
	da, err := th.RT.Read(a)
	if err != nil {
		return closeness{}, err
	}
	db, err := th.RT.Read(b)
	if err != nil {
		return closeness{}, err
	}
	c := closeness{shape: shape, n: shape.Numel(), adt: a.DType(), bdt: b.DType()}
	ia, ib := broadcastIndex(a.Shape(), shape), broadcastIndex(b.Shape(), shape)
	for i := range c.n {
		x, y := da.At(ia(i)), db.At(ib(i))
		diff, allowed := math.Abs(x-y), atol+rtol*math.Abs(y)
		switch {
		case math.IsNaN(x) || math.IsNaN(y):
			if equalNaN && math.IsNaN(x) && math.IsNaN(y) {
				continue
			}
			diff = math.Inf(1)
		case x == y || diff <= allowed:
			continue
		}
		c.bad++
		if !c.hasWorst || diff > c.diff {
			c.hasWorst, c.worst, c.a, c.b, c.diff, c.allowed = true, i, x, y, diff, allowed
		}
	}
	return c, nil
}

// broadcastIndex maps a flat index of the broadcast shape out to the flat
// index of the element of a tensor of shape in that it reads.
func broadcastIndex(in, out tensor.Shape) func(int) int {
	if in.Equal(out) {
		return func(i int) int { return i }
	}
	inStrides := in.Strides()
	return func(i int) int {
		j := 0
		for d := len(out) - 1; d >= 0; d-- {
			k := i % out[d]
			i /= out[d]
			if e := d - (len(out) - len(in)); e >= 0 && in[e] != 1 {
				j += k * inStrides[e]
			}
		}
		return j
	}
}

// unflatten writes flat index i of shape s as [i0, i1, ...].
func unflatten(i int, s tensor.Shape) string {
	idx := make([]string, len(s))
	for d := len(s) - 1; d >= 0; d-- {
		idx[d] = fmt.Sprint(i % s[d])
		i /= s[d]
	}
	return "[" + strings.Join(idx, ", ") + "]"
}

func builtinAllclose(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	c, err := compareClose(th, "allclose", args, kwargs)
	if err != nil {
		return nil, err
	}
	return eval.Bool(c.bad == 0), nil
}

func builtinAssertClose(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	c, err := compareClose(th, "assert_close", args, kwargs)
	if err != nil {
		return nil, err
	}
	if c.bad == 0 {
		return eval.None, nil
	}
	return nil, fmt.Errorf("assert_close: %d of %d elements differ; the worst, at %s, is %s against %s (difference %.4g, allowed %.4g)",
		c.bad, c.n, unflatten(c.worst, c.shape), formatElem(c.a, c.adt), formatElem(c.b, c.bdt), c.diff, c.allowed)
}

// formatElem prints an element of a tensor of dtype dt as print would.
func formatElem(x float64, dt tensor.DType) string {
	switch {
	case dt == tensor.Float64:
		return eval.FormatFloat(x, 64)
	case dt.IsFloat():
		return eval.FormatFloat(x, 32)
	case dt == tensor.Bool:
		return fmt.Sprint(x != 0)
	}
	return fmt.Sprint(int64(x))
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
			if err := h.Hint(th.RT, t.Ref, hint, th.Site()); err != nil {
				return nil, fmt.Errorf("%s: %v", name, err)
			}
		}
		return eval.None, nil
	}
}
