package stdlib

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"github.com/tref-lang/tref/lang/eval"
)

// Python's string methods, called as methods (s.split(","), ", ".join(l))
// through uniform call syntax. Indexes count characters, as len and s[i]
// do. split on a tensor is torch's split.

func init() {
	register("join", `join(sep, iterable): the strings of iterable with sep between them, as Python's sep.join(iterable)`, strJoin)
	register("strip", `strip(s, chars=none): s without leading and trailing white space (or characters in chars), as Python's s.strip()`, strStrip(true, true))
	register("lstrip", `lstrip(s, chars=none): s without leading white space (or characters in chars), as Python's s.lstrip()`, strStrip(true, false))
	register("rstrip", `rstrip(s, chars=none): s without trailing white space (or characters in chars), as Python's s.rstrip()`, strStrip(false, true))
	register("lower", `lower(s): s in lower case, as Python's s.lower()`, strMap(strings.ToLower))
	register("upper", `upper(s): s in upper case, as Python's s.upper()`, strMap(strings.ToUpper))
	register("replace", `replace(s, old, new, count=-1): s with each old (the first count when count >= 0) replaced by new, as Python's s.replace()`, strReplace)
	register("startswith", `startswith(s, prefix): whether s starts with prefix (or with one of a list of prefixes), as Python's s.startswith()`, strAffix(strings.HasPrefix))
	register("endswith", `endswith(s, suffix): whether s ends with suffix (or with one of a list of suffixes), as Python's s.endswith()`, strAffix(strings.HasSuffix))
	register("removeprefix", `removeprefix(s, prefix): s without prefix where it starts with it, else s, as Python's s.removeprefix() (a state_dict's names under a module: {k.removeprefix("encoder."): v for k, v in sd.items() if k.startswith("encoder.")})`, strTrim(strings.TrimPrefix))
	register("removesuffix", `removesuffix(s, suffix): s without suffix where it ends with it, else s, as Python's s.removesuffix()`, strTrim(strings.TrimSuffix))
	register("find", `find(s, sub): the character index of the first sub in s, or -1, as Python's s.find()`, strFind)
}

// strSplit is Python's s.split(sep=none, maxsplit=-1): split at each sep,
// or, without one, at runs of white space with none at either end.
func strSplit(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var s string
	sep := eval.None
	maxsplit := -1
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "s", &s, "sep?", &sep, "maxsplit?", &maxsplit); err != nil {
		return nil, err
	}
	var parts []string
	switch sv := sep.(type) {
	case eval.NoneType:
		parts = splitFields(s, maxsplit)
	case eval.String:
		if sv == "" {
			return nil, fmt.Errorf("%s: empty separator", b.Name)
		}
		n := -1
		if maxsplit >= 0 {
			n = maxsplit + 1
		}
		parts = strings.SplitN(s, string(sv), n)
	default:
		return nil, fmt.Errorf("%s: argument \"sep\" must be a string or none, not %s", b.Name, eval.Describe(sep))
	}
	return stringList(th, b.Name, parts)
}

// splitFields splits s at runs of white space, at most maxsplit times
// (when maxsplit >= 0: the rest, its leading white space removed, is the
// last piece).
func splitFields(s string, maxsplit int) []string {
	var parts []string
	for {
		s = strings.TrimLeftFunc(s, unicode.IsSpace)
		if s == "" {
			return parts
		}
		if maxsplit >= 0 && len(parts) == maxsplit {
			return append(parts, s)
		}
		end := strings.IndexFunc(s, unicode.IsSpace)
		if end < 0 {
			return append(parts, s)
		}
		parts = append(parts, s[:end])
		s = s[end:]
	}
}

// stringList is parts as a list of strings, counted against the host
// limit.
func stringList(th *eval.Thread, fname string, parts []string) (eval.Value, error) {
	if err := th.RT.HostPool().CheckValue(int64(len(parts)) * int64(unsafe.Sizeof(eval.Value(nil)))); err != nil {
		return nil, fmt.Errorf("%s: %w", fname, err)
	}
	out := make([]eval.Value, len(parts))
	for i, p := range parts {
		out[i] = eval.String(p)
	}
	return eval.NewList(out), nil
}

func strJoin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var sep string
	var it eval.Value
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "sep", &sep, "iterable", &it); err != nil {
		return nil, err
	}
	vals, err := collect(th, b.Name, it)
	if err != nil {
		return nil, err
	}
	defer eval.Release(th.RT, eval.NewList(vals))
	strs := make([]string, len(vals))
	size := int64(len(sep)) * int64(max(len(vals)-1, 0))
	for i, v := range vals {
		s, ok := v.(eval.String)
		if !ok {
			return nil, fmt.Errorf("%s: element %d is %s, not a string; convert it with str()", b.Name, i, eval.Describe(v))
		}
		strs[i] = string(s)
		size += int64(len(s))
	}
	if err := th.RT.HostPool().CheckValue(size); err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name, err)
	}
	return eval.String(strings.Join(strs, sep)), nil
}

func strStrip(left, right bool) eval.BuiltinFunc {
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		var s string
		chars := eval.None
		if err := eval.UnpackArgs(th, b.Name, args, kwargs, "s", &s, "chars?", &chars); err != nil {
			return nil, err
		}
		cut := unicode.IsSpace
		switch c := chars.(type) {
		case eval.NoneType:
		case eval.String:
			cut = func(r rune) bool { return strings.ContainsRune(string(c), r) }
		default:
			return nil, fmt.Errorf("%s: argument \"chars\" must be a string or none, not %s", b.Name, eval.Describe(chars))
		}
		if left {
			s = strings.TrimLeftFunc(s, cut)
		}
		if right {
			s = strings.TrimRightFunc(s, cut)
		}
		return eval.String(s), nil
	}
}

func strMap(f func(string) string) eval.BuiltinFunc {
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		var s string
		if err := eval.UnpackArgs(th, b.Name, args, kwargs, "s", &s); err != nil {
			return nil, err
		}
		// Case mapping can lengthen a string (a few characters take
		// more bytes in the other case).
		if err := th.RT.HostPool().CheckValue(3 * int64(len(s))); err != nil {
			return nil, fmt.Errorf("%s: %w", b.Name, err)
		}
		return eval.String(f(s)), nil
	}
}

func strReplace(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var s, old, repl string
	count := -1
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "s", &s, "old", &old, "new", &repl, "count?", &count); err != nil {
		return nil, err
	}
	n := strings.Count(s, old)
	if count >= 0 {
		n = min(n, count)
	}
	if size := int64(len(s)) + int64(n)*(int64(len(repl))-int64(len(old))); size > int64(len(s)) {
		if err := th.RT.HostPool().CheckValue(size); err != nil {
			return nil, fmt.Errorf("%s: %w", b.Name, err)
		}
	}
	return eval.String(strings.Replace(s, old, repl, count)), nil
}

// strTrim is removeprefix or removesuffix, given strings' TrimPrefix or
// TrimSuffix (which remove the affix once, where it is there).
func strTrim(trim func(s, affix string) string) eval.BuiltinFunc {
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		var s, affix string
		if err := eval.UnpackArgs(th, b.Name, args, kwargs, "s", &s, "affix|prefix|suffix", &affix); err != nil {
			return nil, err
		}
		return eval.String(trim(s, affix)), nil
	}
}

func strAffix(has func(s, affix string) bool) eval.BuiltinFunc {
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		var s string
		var affix eval.Value
		if err := eval.UnpackArgs(th, b.Name, args, kwargs, "s", &s, "affix|prefix|suffix", &affix); err != nil {
			return nil, err
		}
		switch a := affix.(type) {
		case eval.String:
			return eval.Bool(has(s, string(a))), nil
		case *eval.List:
			for i, e := range a.Elems {
				x, ok := e.(eval.String)
				if !ok {
					return nil, fmt.Errorf("%s: element %d of the list is %s, not a string", b.Name, i, eval.Describe(e))
				}
				if has(s, string(x)) {
					return eval.Bool(true), nil
				}
			}
			return eval.Bool(false), nil
		}
		return nil, fmt.Errorf("%s: the affix must be a string or a list of strings, not %s", b.Name, eval.Describe(affix))
	}
}

func strFind(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var s, sub string
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "s", &s, "sub", &sub); err != nil {
		return nil, err
	}
	i := strings.Index(s, sub)
	if i < 0 {
		return eval.Int(-1), nil
	}
	return eval.Int(utf8.RuneCountInString(s[:i])), nil
}
