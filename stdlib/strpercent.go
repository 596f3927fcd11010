package stdlib

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tref-lang/tref/lang/eval"
)

func init() {
	method("str", "__mod__", `s.__mod__(args): s % args, printf-style formatting as Python's: %s %r %d %i %u %c %f %F %e %E %g %G %x %X %o %% with flags -+ #0, a width and a .precision (either may be *); args is one value, a list of values (a tuple, which is a list: "%d/%d" % (i, n); to format a list itself wrap it, "%s" % [xs]) or a record for %(name)s`, strPercent)
}

func strPercent(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var s string
	var v eval.Value
	if err := eval.UnpackArgs(th, "%", args, kwargs, "s", &s, "args", &v); err != nil {
		return nil, err
	}
	p := &percentFormat{th: th, out: hostText{th: th}}
	switch x := v.(type) {
	case *eval.List:
		p.args = x.Elems
	case *eval.Record:
		// %(name)s reads its fields; a %s without a name, the record.
		p.named, p.args = x, []eval.Value{v}
	default:
		p.args = []eval.Value{v}
	}
	out, err := p.format(s)
	if err != nil {
		return nil, fmt.Errorf("string %% formatting: %v", err)
	}
	return eval.String(out), nil
}

// percentFormat is one s % args under way.
type percentFormat struct {
	th    *eval.Thread
	args  []eval.Value
	named *eval.Record // for %(name)s; args is then the record itself
	next  int
	out   hostText
}

// format expands every conversion of s.
func (p *percentFormat) format(s string) (string, error) {
	fields := 0
	for i := 0; i < len(s); {
		j := strings.IndexByte(s[i:], '%')
		if j < 0 {
			j = len(s) - i
		}
		if err := p.out.write(s[i : i+j]); err != nil {
			return "", err
		}
		i += j
		if i == len(s) {
			break
		}
		if fields++; fields > maxFormatFields {
			return "", fmt.Errorf("more than %d conversions", maxFormatFields)
		}
		n, err := p.conversion(s, i)
		if err != nil {
			return "", err
		}
		i = n
	}
	if p.named == nil && p.next < len(p.args) {
		return "", fmt.Errorf("not all arguments converted: %d given, %d used", len(p.args), p.next)
	}
	return p.out.String(), nil
}

// conversion writes the conversion starting at s[at] (a '%') and returns
// the index after it.
func (p *percentFormat) conversion(s string, at int) (int, error) {
	i := at + 1
	var key *string
	if i < len(s) && s[i] == '(' {
		end := strings.IndexByte(s[i:], ')')
		if end < 0 {
			return 0, fmt.Errorf("%%( at index %d has no closing )", at)
		}
		k := s[i+1 : i+end]
		key, i = &k, i+end+1
	}
	flags := ""
	for i < len(s) && strings.IndexByte("-+ #0", s[i]) >= 0 {
		flags += s[i : i+1]
		i++
	}
	width, _, i, err := p.number(s, i)
	if err != nil {
		return 0, err
	}
	if width < 0 { // from *: a negative width aligns left
		flags, width = flags+"-", -width
	}
	prec := -1
	if i < len(s) && s[i] == '.' {
		if prec, _, i, err = p.number(s, i+1); err != nil {
			return 0, err
		}
		prec = max(prec, 0) // "%.f" is "%.0f"
	}
	if i == len(s) {
		return 0, fmt.Errorf("incomplete format at index %d", at)
	}
	typ := s[i]
	i++
	if typ == '%' {
		p.out.WriteByte('%')
		return i, nil
	}
	v, err := p.arg(key)
	if err != nil {
		return 0, err
	}
	text, err := p.convert(typ, flags, width, prec, v, at)
	if err != nil {
		return 0, err
	}
	if err := p.out.write(text); err != nil {
		return 0, err
	}
	return i, nil
}

// number reads a width or precision at s[i]: digits, or a '*' (the next
// argument, an int, which may be negative); given is false (n 0) when
// there is neither. next is the index after it.
func (p *percentFormat) number(s string, i int) (n int, given bool, next int, err error) {
	if i < len(s) && s[i] == '*' {
		v, err := p.arg(nil)
		if err != nil {
			return 0, false, 0, err
		}
		n, ok := p.th.AsInt(v)
		if !ok {
			return 0, false, 0, fmt.Errorf("* wants an int, not %s", eval.Describe(v))
		}
		if n > maxFormatWidth || n < -maxFormatWidth {
			return 0, false, 0, fmt.Errorf("width or precision %d too large (at most %d)", n, maxFormatWidth)
		}
		return n, true, i + 1, nil
	}
	j := i
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j == i {
		return 0, false, i, nil
	}
	n, err = strconv.Atoi(s[i:j])
	if err != nil || n > maxFormatWidth {
		return 0, false, 0, fmt.Errorf("width or precision %s too large (at most %d)", s[i:j], maxFormatWidth)
	}
	return n, true, j, nil
}

// arg is the next argument, or the record's field key.
func (p *percentFormat) arg(key *string) (eval.Value, error) {
	if key != nil {
		if p.named == nil {
			return nil, fmt.Errorf("%%(%s) needs a record of arguments", *key)
		}
		v, ok := p.named.Get(*key)
		if !ok {
			return nil, fmt.Errorf("the record has no field %q", *key)
		}
		return v, nil
	}
	if p.next >= len(p.args) {
		return nil, fmt.Errorf("not enough arguments: %d given", len(p.args))
	}
	p.next++
	return p.args[p.next-1], nil
}

// convert formats v for the conversion %[flags][width][.prec]typ at index
// at of the template, with Python's rules.
func (p *percentFormat) convert(typ byte, flags string, width, prec int, v eval.Value, at int) (string, error) {
	align := ">"
	if strings.Contains(flags, "-") {
		align = "<"
	}
	pad := func(s string) string {
		if n := width - len([]rune(s)); n > 0 {
			if align == "<" {
				return s + strings.Repeat(" ", n)
			}
			return strings.Repeat(" ", n) + s
		}
		return s
	}
	switch typ {
	case 's', 'r', 'a':
		var s string
		var err error
		if typ == 's' {
			s, err = p.th.Format(v)
		} else {
			s, err = p.th.Repr(v)
		}
		if err != nil {
			return "", err
		}
		if prec >= 0 && prec < len([]rune(s)) {
			s = string([]rune(s)[:prec])
		}
		return pad(s), nil
	case 'c':
		switch x := v.(type) {
		case eval.String:
			if len([]rune(string(x))) != 1 {
				return "", fmt.Errorf("%%c wants one character, not %q", string(x))
			}
			return pad(string(x)), nil
		default:
			n, ok := p.th.AsInt(v)
			if !ok || n < 0 || n > 0x10FFFF {
				return "", fmt.Errorf("%%c wants a character or a code point, not %s", eval.Describe(v))
			}
			return pad(string(rune(n))), nil
		}
	case 'd', 'i', 'u', 'x', 'X', 'o':
		// Python truncates a float for the int conversions.
		if f, isFloat := asFloatArg(p.th, v); isFloat {
			v = eval.Int(int64(f))
		}
		code := map[byte]string{'d': "d", 'i': "d", 'u': "d", 'x': "x", 'X': "X", 'o': "o"}[typ]
		if prec > 0 {
			// %.3d pads the digits with zeros to 3.
			flags += "0"
			width = max(width, prec)
		}
		return formatBySpec(p.th, v, percentSpec(flags, align, width, -1, code))
	case 'e', 'E', 'f', 'F', 'g', 'G':
		if prec < 0 {
			prec = 6
		}
		return formatBySpec(p.th, v, percentSpec(flags, align, width, prec, string(typ)))
	}
	return "", fmt.Errorf("unsupported format character %q at index %d", typ, at)
}

// asFloatArg reads v as a float when it is a float (or a float tensor of
// one element).
func asFloatArg(th *eval.Thread, v eval.Value) (float64, bool) {
	switch x := v.(type) {
	case eval.Float32, eval.Float64:
		f, _ := th.AsFloat(v)
		return f, true
	case eval.Tensor:
		if x.Ref.DType().IsFloat() && x.Ref.Shape().Numel() == 1 {
			f, ok := th.AsFloat(v)
			return f, ok
		}
	}
	return 0, false
}

// percentSpec is the format spec of a printf conversion.
func percentSpec(flags, align string, width, prec int, code string) string {
	var b strings.Builder
	zero := strings.Contains(flags, "0") && align != "<"
	if !zero {
		b.WriteString(align)
	}
	switch {
	case strings.Contains(flags, "+"):
		b.WriteByte('+')
	case strings.Contains(flags, " "):
		b.WriteByte(' ')
	}
	if strings.Contains(flags, "#") {
		b.WriteByte('#')
	}
	if zero {
		b.WriteByte('0')
	}
	if width > 0 {
		b.WriteString(strconv.Itoa(width))
	}
	if prec >= 0 {
		b.WriteString("." + strconv.Itoa(prec))
	}
	b.WriteString(code)
	return b.String()
}
