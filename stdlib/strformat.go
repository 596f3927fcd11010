package stdlib

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/tref-lang/tref/lang/eval"
)

func init() {
	method("str", "format", `s.format(*args, **kwargs): s with each replacement field {} {0} {name} {x.field} {xs[0]} {!r} {:spec} replaced by its argument as print shows it (!r: quoted as in a list) or formatted by the spec, as Python's str.format; {{ and }} are braces; a spec may hold one level of fields itself ({:{width}.2f})`, strFormat)
}

// maxFormatFields bounds the replacement fields of one format call, so
// that a template cannot ask for work out of proportion to its size.
const maxFormatFields = 1 << 16

func strFormat(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	if len(args) == 0 {
		return nil, fmt.Errorf("format: needs the string to format (s.format(...))")
	}
	tmpl, ok := args[0].(eval.String)
	if !ok {
		return nil, fmt.Errorf("format: the template must be a string, not %s", eval.Describe(args[0]))
	}
	f := &templateFormat{th: th, args: args[1:], kwargs: kwargs, out: &hostText{th: th}}
	if err := f.expand(string(tmpl), 0); err != nil {
		return nil, fmt.Errorf("format: %v", err)
	}
	return eval.String(f.out.String()), nil
}

// templateFormat is one str.format call under way.
type templateFormat struct {
	th     *eval.Thread
	args   []eval.Value
	kwargs []eval.Kwarg
	out    *hostText
	// next is the next automatic field's argument; manual says fields
	// are numbered by hand (0: not known yet, 1: auto, 2: manual).
	next, numbering int
	fields          int
}

// expand writes t with its fields replaced to f.out; depth is 1 inside a
// field's spec, whose fields may not hold fields in turn.
func (f *templateFormat) expand(t string, depth int) error {
	for i := 0; i < len(t); {
		c := t[i]
		switch {
		case c == '{' && i+1 < len(t) && t[i+1] == '{':
			f.out.WriteByte('{')
			i += 2
		case c == '}' && i+1 < len(t) && t[i+1] == '}':
			f.out.WriteByte('}')
			i += 2
		case c == '}':
			return fmt.Errorf("single '}' at offset %d of the template (write }} for a brace)", i)
		case c == '{':
			end := fieldEnd(t, i)
			if end < 0 {
				return fmt.Errorf("the field at offset %d has no closing '}' (write {{ for a brace)", i)
			}
			if err := f.field(t[i+1:end], depth); err != nil {
				return err
			}
			i = end + 1
		default:
			j := i + 1
			for j < len(t) && t[j] != '{' && t[j] != '}' {
				j++
			}
			if err := f.out.write(t[i:j]); err != nil {
				return err
			}
			i = j
		}
	}
	return nil
}

// fieldEnd is the index of the '}' that closes the field opening at
// t[open], counting the braces of fields nested in its spec, or -1.
func fieldEnd(t string, open int) int {
	depth := 0
	for i := open; i < len(t); i++ {
		switch t[i] {
		case '{':
			depth++
		case '}':
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return -1
}

// hostText is a string being built whose size counts against the host
// memory limit, as the script's strings do.
type hostText struct {
	th *eval.Thread
	strings.Builder
}

// write appends s once the text may grow by it.
func (t *hostText) write(s string) error {
	if err := t.th.RT.HostPool().CheckValue(int64(t.Len()) + int64(len(s))); err != nil {
		return err
	}
	t.WriteString(s)
	return nil
}

// field writes one replacement field, name[!conversion][:spec], found at
// depth (1: in another field's spec).
func (f *templateFormat) field(text string, depth int) error {
	if f.fields++; f.fields > maxFormatFields {
		return fmt.Errorf("more than %d replacement fields", maxFormatFields)
	}
	name, conv, spec := splitField(text)
	v, err := f.lookup(name)
	if err != nil {
		return err
	}
	if strings.ContainsAny(spec, "{}") {
		// The spec's own fields first: {:{width}.{prec}f}.
		if depth > 0 {
			return fmt.Errorf("{%s}: fields nest too deeply (a spec may hold fields, theirs not)", text)
		}
		outer := f.out
		f.out = &hostText{th: f.th}
		err := f.expand(spec, depth+1)
		spec = f.out.String()
		f.out = outer
		if err != nil {
			return err
		}
	}
	var s string
	switch conv {
	case "":
		if spec == "" {
			s, err = f.th.Format(v)
		} else {
			s, err = formatBySpec(f.th, v, spec)
		}
	case "r", "a":
		s, err = f.th.Repr(v)
	case "s":
		s, err = f.th.Format(v)
	default:
		return fmt.Errorf("unknown conversion !%s in {%s} (!r, !s or !a)", conv, text)
	}
	if err == nil && conv != "" && spec != "" {
		s, err = formatBySpec(f.th, eval.String(s), spec)
	}
	if err != nil {
		return err
	}
	return f.out.write(s)
}

// splitField splits a field's text at the '!' and ':' that end its name
// (outside the name's [index] parts).
func splitField(text string) (name, conv, spec string) {
	end := len(text)
	inIndex := false
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c == '[' {
			inIndex = true
		} else if c == ']' {
			inIndex = false
		} else if !inIndex && (c == '!' || c == ':') {
			end = i
			break
		}
	}
	name, rest := text[:end], text[end:]
	if strings.HasPrefix(rest, "!") {
		rest = rest[1:]
		c := strings.IndexByte(rest, ':')
		if c < 0 {
			return name, rest, ""
		}
		return name, rest[:c], rest[c+1:]
	}
	return name, "", strings.TrimPrefix(rest, ":")
}

// lookup reads a field's value: its argument ("", an index or a keyword
// name), then each .field and [key] after it. The value is borrowed.
func (f *templateFormat) lookup(name string) (eval.Value, error) {
	head := name
	if i := strings.IndexAny(name, ".["); i >= 0 {
		head = name[:i]
	}
	rest := name[len(head):]
	var v eval.Value
	switch {
	case head == "":
		if f.numbering == 2 {
			return nil, fmt.Errorf("cannot switch from numbered fields ({0}) to automatic ones ({})")
		}
		f.numbering = 1
		if f.next >= len(f.args) {
			return nil, fmt.Errorf("field {} number %d has no argument (%d positional given)", f.next, len(f.args))
		}
		v = f.args[f.next]
		f.next++
	case isDigits(head):
		if f.numbering == 1 {
			return nil, fmt.Errorf("cannot switch from automatic fields ({}) to numbered ones ({%s})", head)
		}
		f.numbering = 2
		n, err := strconv.Atoi(head)
		if err != nil || n >= len(f.args) {
			return nil, fmt.Errorf("field {%s} has no argument (%d positional given)", head, len(f.args))
		}
		v = f.args[n]
	default:
		found := false
		for _, kw := range f.kwargs {
			if kw.Name == head {
				v, found = kw.Value, true
			}
		}
		if !found {
			return nil, fmt.Errorf("field {%s} has no keyword argument %q", name, head)
		}
	}
	for rest != "" {
		var key string
		if rest[0] == '.' {
			end := strings.IndexAny(rest[1:], ".[") + 1
			if end == 0 {
				end = len(rest)
			}
			key, rest = rest[1:end], rest[end:]
			r, ok := v.(*eval.Record)
			if !ok || key == "" {
				return nil, fmt.Errorf("field {%s}: %s has no field %q", name, eval.Describe(v), key)
			}
			fv, ok := r.Get(key)
			if !ok {
				return nil, fmt.Errorf("field {%s}: the record has no field %q", name, key)
			}
			v = fv
			continue
		}
		if rest[0] != '[' {
			return nil, fmt.Errorf("field {%s}: expected '.' or '[' after %q", name, name[:len(name)-len(rest)])
		}
		end := strings.IndexByte(rest, ']')
		if end < 0 {
			return nil, fmt.Errorf("field {%s}: '[' without ']'", name)
		}
		key, rest = rest[1:end], rest[end+1:]
		var err error
		if v, err = indexField(v, key); err != nil {
			return nil, fmt.Errorf("field {%s}: %v", name, err)
		}
	}
	return v, nil
}

// indexField is v[key] as a format field reads it: an int key (all
// digits) indexes a list or a record's int keys, any other a record's
// string keys.
func indexField(v eval.Value, key string) (eval.Value, error) {
	var k eval.Value = eval.String(key)
	if isDigits(key) {
		n, err := strconv.ParseInt(key, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("index %s is too large", key)
		}
		k = eval.Int(n)
	}
	switch x := v.(type) {
	case *eval.List:
		n, ok := k.(eval.Int)
		if !ok || int64(n) >= int64(len(x.Elems)) {
			return nil, fmt.Errorf("a list of %d elements has no element [%s]", len(x.Elems), key)
		}
		return x.Elems[n], nil
	case *eval.Record:
		if i := x.Find(k); i >= 0 {
			return x.Values[i], nil
		}
		return nil, fmt.Errorf("the record has no key [%s]", key)
	}
	return nil, fmt.Errorf("cannot index %s", eval.Describe(v))
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r > unicode.MaxASCII || !unicode.IsDigit(r) {
			return false
		}
	}
	return true
}
