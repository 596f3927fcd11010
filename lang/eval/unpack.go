package eval

import (
	"fmt"
	"math"
	"strings"

	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// OptInt is an int argument that may be absent or none.
type OptInt struct {
	Set bool
	V   int
}

// UnpackArgs binds a builtin's positional and keyword arguments to Go
// variables, the one argument parser every builtin uses. pairs alternates a
// parameter name and a pointer; a name ending in "?" is optional (its
// variable keeps its preset default), and "x|input" also accepts the
// keyword input (torch's name for a parameter tref spells x; messages use
// the first name). Supported pointer types:
//
//	*Value            any value, borrowed
//	**refs.Ref        a tensor; numbers become temporary refs released after the call
//	*[]*refs.Ref      a list of tensors
//	*int, *float64, *bool, *string
//	*OptInt           an int or none
//	*tensor.Shape     a list of ints, or one int
//	*[]int            one int or a list of ints (dims)
//	*tensor.DType     a dtype name ("float32")
//	*[]Value          a list's elements, borrowed
func UnpackArgs(th *Thread, fname string, args []Value, kwargs []Kwarg, pairs ...any) error {
	if th != nil && th.describe != nil {
		return th.described(pairs)
	}
	nparams := len(pairs) / 2
	if len(args) > nparams {
		return fmt.Errorf("%s: %s", fname, tooManyArgs(len(args), nparams))
	}
	set := make([]bool, nparams)
	spec := func(i int) string { return strings.TrimSuffix(pairs[2*i].(string), "?") }
	name := func(i int) string {
		n, _, _ := strings.Cut(spec(i), "|")
		return n
	}
	for i, a := range args {
		if err := unpackOne(th, fname, name(i), a, pairs[2*i+1]); err != nil {
			return err
		}
		set[i] = true
	}
kw:
	for _, kv := range kwargs {
		for i := range nparams {
			if hasName(spec(i), kv.Name) {
				if set[i] {
					return fmt.Errorf("%s: got multiple values for argument %q", fname, kv.Name)
				}
				if err := unpackOne(th, fname, kv.Name, kv.Value, pairs[2*i+1]); err != nil {
					return err
				}
				set[i] = true
				continue kw
			}
		}
		var names []string
		for i := range nparams {
			names = append(names, name(i))
		}
		return fmt.Errorf("%s: unexpected keyword argument %q (parameters: %s)", fname, kv.Name, strings.Join(names, ", "))
	}
	for i := range nparams {
		if !set[i] && !strings.HasSuffix(pairs[2*i].(string), "?") {
			return fmt.Errorf("%s: missing argument %q", fname, name(i))
		}
	}
	return nil
}

// hasName reports whether kw is one of the |-separated names of spec.
func hasName(spec, kw string) bool {
	for spec != "" {
		var n string
		n, spec, _ = strings.Cut(spec, "|")
		if n == kw {
			return true
		}
	}
	return false
}

// tooManyArgs says that a call passed got positional arguments to a
// function taking at most want.
func tooManyArgs(got, want int) string {
	if want == 0 {
		return fmt.Sprintf("takes no arguments, got %d", got)
	}
	return fmt.Sprintf("got %d positional arguments, want at most %d", got, want)
}

func unpackOne(th *Thread, fname, param string, v Value, ptr any) error {
	bad := func(want string) error {
		return fmt.Errorf("%s: argument %q must be %s, not %s", fname, param, want, Describe(v))
	}
	switch p := ptr.(type) {
	case *Value:
		*p = v
	case **refs.Ref:
		r, err := th.ToRef(v)
		if err != nil {
			return bad("a tensor or a number")
		}
		*p = r
	case *[]*refs.Ref:
		l, ok := v.(*List)
		if !ok {
			return bad("a list of tensors")
		}
		out := make([]*refs.Ref, len(l.Elems))
		for i, e := range l.Elems {
			r, err := th.ToRef(e)
			if err != nil {
				return fmt.Errorf("%s: element %d of %q must be a tensor, not %s", fname, i, param, Describe(e))
			}
			out[i] = r
		}
		*p = out
	case *int:
		n, ok := th.AsInt(v)
		if !ok {
			return bad("an int")
		}
		*p = n
	case *OptInt:
		if _, none := v.(NoneType); none {
			*p = OptInt{}
			return nil
		}
		n, ok := th.AsInt(v)
		if !ok {
			return bad("an int or none")
		}
		*p = OptInt{Set: true, V: n}
	case *float64:
		f, ok := th.AsFloat(v)
		if !ok {
			return bad("a number")
		}
		*p = f
	case *bool:
		f, ok := th.AsFloat(v)
		if !ok || ScalarDType(v) != tensor.Bool && ScalarDType(v) != tensor.Int64 {
			if b, isB := v.(Bool); isB {
				*p = bool(b)
				return nil
			}
			return bad("a bool")
		}
		*p = f != 0
	case *string:
		s, ok := v.(String)
		if !ok {
			return bad("a string")
		}
		*p = string(s)
	case *tensor.DType:
		s, ok := v.(String)
		if !ok {
			return bad("a dtype name")
		}
		d, ok := tensor.ParseDType(string(s))
		if !ok {
			return fmt.Errorf("%s: unknown dtype %q (%s)", fname, s, tensor.DTypeList)
		}
		*p = d
	case *tensor.Shape, *[]int:
		var ints []int
		if n, ok := th.AsInt(v); ok {
			ints = []int{n}
		} else if l, ok := v.(*List); ok {
			ints = make([]int, len(l.Elems))
			for i, e := range l.Elems {
				n, ok := th.AsInt(e)
				if !ok {
					return fmt.Errorf("%s: element %d of %q must be an int, not %s", fname, i, param, Describe(e))
				}
				ints[i] = n
			}
		} else {
			return bad("an int or a list of ints")
		}
		if s, ok := p.(*tensor.Shape); ok {
			*s = ints
		} else {
			*p.(*[]int) = ints
		}
	case *[]Value:
		l, ok := v.(*List)
		if !ok {
			return bad("a list")
		}
		*p = l.Elems
	default:
		panic(fmt.Sprintf("UnpackArgs: unsupported pointer type %T for %s", ptr, param))
	}
	return nil
}

// Describe names a value's kind for error messages ("string", "a tensor of
// shape [3]").
func Describe(v Value) string {
	switch v := v.(type) {
	case Tensor:
		return fmt.Sprintf("%s tensor of shape %v", article(v.Ref.DType().String()), v.Ref.Shape())
	case Bool, Int, Float32, Float64:
		return article(ScalarDType(v).String()) + " number"
	case nil:
		return "nothing"
	case NoneType:
		return "none"
	case *Module:
		return "module " + v.Name
	case *Closure:
		return "function " + v.Name()
	case *Builtin:
		if v.Members != nil {
			return "module " + v.Name
		}
		return "builtin " + v.Name
	case Object:
		return v.String()
	case *Bound:
		return "function " + v.Name
	}
	return v.Type()
}

// article puts "a" or "an" before a dtype name, as it is read aloud:
// "an int64", "a uint8", "a float32".
func article(dtype string) string {
	if strings.HasPrefix(dtype, "int") {
		return "an " + dtype
	}
	return "a " + dtype
}

// toInt converts an unboxed scalar holding a whole number to int.
func toInt(v Value) (int, bool) {
	switch v := v.(type) {
	case Int:
		return int(v), true
	case Bool:
		if v {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

// toFloat converts an unboxed scalar to float64.
func toFloat(v Value) (float64, bool) {
	switch v := v.(type) {
	case Int:
		return float64(v), true
	case Float32:
		return float64(v), true
	case Float64:
		return float64(v), true
	case Bool:
		if v {
			return 1, true
		}
		return 0, true
	}
	return math.NaN(), false
}
