package stdlib

import (
	"fmt"
	"math"
	"unicode/utf8"
	"unsafe"

	"github.com/tref-lang/tref/lang/eval"
)

// Small Python builtins that ported code reaches for: ord and chr for
// character vocabularies, divmod, and set, which (tref having no set
// type) gives the distinct values as a list, as sorted(set(text)) needs.

func init() {
	register("ord", "ord(c): the code point of a one-character string, as Python's ord", builtinOrd)
	register("chr", "chr(i): the one-character string of code point i, as Python's chr", builtinChr)
	register("divmod", "divmod(a, b): [a // b, a % b], as Python's divmod (numbers or tensors, with the script's // and %)", builtinDivmod)
	register("set", "set(iterable=[]): the distinct values of iterable as a list, in the order first seen (tref has no set type: sorted(set(text)), len(set(xs)) and v in set(xs) work as in Python); numbers and strings compare by value, tensors by identity (as Python hashes them), lists and records with ==", builtinSet)
}

func builtinOrd(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var s string
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "c", &s); err != nil {
		return nil, err
	}
	r, size := utf8.DecodeRuneInString(s)
	if n := utf8.RuneCountInString(s); n != 1 || r == utf8.RuneError && size <= 1 {
		return nil, fmt.Errorf("%s: expected a string of one character, got one of %d", b.Name, n)
	}
	return eval.Int(r), nil
}

func builtinChr(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var i int
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "i", &i); err != nil {
		return nil, err
	}
	if i < 0 || i > utf8.MaxRune || i >= 0xD800 && i <= 0xDFFF {
		return nil, fmt.Errorf("%s: %d is not a Unicode code point (0..0x10FFFF, surrogates excluded)", b.Name, i)
	}
	return eval.String(string(rune(i))), nil
}

func builtinDivmod(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x, y eval.Value
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "a", &x, "b", &y); err != nil {
		return nil, err
	}
	q, err := th.Binary("//", x, y)
	if err != nil {
		return nil, err
	}
	r, err := th.Binary("%", x, y)
	if err != nil {
		eval.Release(th.RT, q)
		return nil, err
	}
	return eval.NewList([]eval.Value{q, r}), nil
}

// setKey is a value's key for the distinct-value map: numbers by value
// across int and float (1 == 1.0), strings by text, and tensors by
// identity, as Python hashes them; ok is false for the others (lists,
// records, none), compared with ==.
func setKey(v eval.Value) (key any, ok bool) {
	switch x := v.(type) {
	case eval.Tensor:
		return x.Ref, true
	case eval.String:
		return "s" + string(x), true
	case eval.Int:
		return float64(x), true
	case eval.Bool:
		if x {
			return float64(1), true
		}
		return float64(0), true
	case eval.Float32:
		if math.IsNaN(float64(x)) {
			return nil, false
		}
		return float64(x), true
	case eval.Float64:
		if math.IsNaN(float64(x)) {
			return nil, false
		}
		return float64(x), true
	}
	return nil, false
}

func builtinSet(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	vals, err := optionalIterable(th, b, args, kwargs)
	if err != nil {
		return nil, err
	}
	seen := map[any]bool{}
	var out, others []eval.Value
	for i, v := range vals {
		if k, ok := setKey(v); ok {
			if seen[k] {
				eval.Release(th.RT, v)
				continue
			}
			seen[k] = true
			out = append(out, v)
			continue
		}
		dup := false
		for _, o := range others {
			c, err := th.Binary("==", v, o)
			if err == nil {
				dup, err = th.Truth(c)
				eval.Release(th.RT, c)
			}
			if err != nil {
				eval.Release(th.RT, eval.NewList(out))
				eval.Release(th.RT, eval.NewList(vals[i:]))
				return nil, err
			}
			if dup {
				break
			}
		}
		if dup {
			eval.Release(th.RT, v)
			continue
		}
		others = append(others, v)
		out = append(out, v)
	}
	if err := th.RT.HostPool().CheckValue(int64(len(out)) * int64(unsafe.Sizeof(eval.Value(nil)))); err != nil {
		eval.Release(th.RT, eval.NewList(out))
		return nil, fmt.Errorf("%s: %w", b.Name, err)
	}
	return eval.NewList(out), nil
}
