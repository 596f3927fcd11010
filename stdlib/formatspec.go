package stdlib

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tref-lang/tref/lang/eval"
)

// Python's format-spec mini-language, for format(value, spec):
//
//	[[fill]align][sign][z][#][0][width][grouping][.precision][type]
//
// over ints (types b c d o x X n and the float types), floats (e E f F g G
// n % and none) and strings (s and none), with Python 3.11's results
// (formatspec_test.go checks a table that python3 wrote).

// fspec is a parsed format spec.
type fspec struct {
	fill      rune
	align     byte // 0, '<', '>', '^', '='
	sign      byte // 0, '+', '-', ' '
	zneg      bool // 'z': negative zero formats as zero
	alt       bool // '#'
	width     int
	grouping  byte // 0, ',', '_'
	precision int  // -1 when absent
	typ       byte // 0 when absent
	bits32    bool // the value is a float32: repr uses its shortest digits
}

// maxFormatWidth bounds width and precision, so a spec cannot ask for
// gigabytes of padding.
const maxFormatWidth = 1 << 16

func parseFormatSpec(spec string) (fspec, error) {
	f := fspec{fill: ' ', precision: -1}
	s := spec
	isAlign := func(c byte) bool { return c == '<' || c == '>' || c == '^' || c == '=' }
	if r, n := utf8.DecodeRuneInString(s); n > 0 && len(s) > n && isAlign(s[n]) {
		f.fill, f.align, s = r, s[n], s[n+1:]
	} else if len(s) > 0 && isAlign(s[0]) {
		f.align, s = s[0], s[1:]
	}
	if len(s) > 0 && (s[0] == '+' || s[0] == '-' || s[0] == ' ') {
		f.sign, s = s[0], s[1:]
	}
	if len(s) > 0 && s[0] == 'z' {
		f.zneg, s = true, s[1:]
	}
	if len(s) > 0 && s[0] == '#' {
		f.alt, s = true, s[1:]
	}
	if len(s) > 0 && s[0] == '0' {
		if f.align == 0 {
			f.fill, f.align = '0', '='
		}
		s = s[1:]
	}
	num := func() (int, bool, error) {
		i := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == 0 {
			return 0, false, nil
		}
		n, err := strconv.Atoi(s[:i])
		s = s[i:]
		if err != nil || n > maxFormatWidth {
			return 0, true, fmt.Errorf("width or precision too large in %q (at most %d)", spec, maxFormatWidth)
		}
		return n, true, nil
	}
	w, _, err := num()
	if err != nil {
		return f, err
	}
	f.width = w
	if len(s) > 0 && (s[0] == ',' || s[0] == '_') {
		f.grouping, s = s[0], s[1:]
	}
	if len(s) > 0 && s[0] == '.' {
		s = s[1:]
		p, ok, err := num()
		if err != nil {
			return f, err
		}
		if !ok {
			return f, fmt.Errorf("format specifier missing precision in %q", spec)
		}
		f.precision = p
	}
	if len(s) == 1 {
		f.typ, s = s[0], ""
	}
	if s != "" {
		return f, fmt.Errorf("invalid format specifier %q", spec)
	}
	return f, nil
}

// formatValue formats an int64, a float64 or float32, a bool or a string
// by spec.
func formatValue(v any, spec string) (string, error) {
	f, err := parseFormatSpec(spec)
	if err != nil {
		return "", err
	}
	switch v := v.(type) {
	case string:
		return f.str(v)
	case bool:
		if f.typ == 0 && spec == "" {
			return strconv.FormatBool(v), nil
		}
		n := int64(0)
		if v {
			n = 1
		}
		if f.typ == 0 {
			return f.str(strconv.FormatBool(v))
		}
		return f.int(n, "bool")
	case int64:
		return f.int(v, "int")
	case float64:
		return f.float(v)
	case float32:
		// tref's default float: its repr is the shortest float32 digits
		// (0.1, not 0.10000000149011612), as print shows it.
		f.bits32 = true
		return f.float(float64(v))
	}
	return "", fmt.Errorf("cannot format %T", v)
}

func (f fspec) str(s string) (string, error) {
	if f.typ != 0 && f.typ != 's' {
		return "", fmt.Errorf("unknown format code '%c' for a string", f.typ)
	}
	switch {
	case f.sign != 0:
		return "", fmt.Errorf("sign not allowed in string format specifier")
	case f.alt:
		return "", fmt.Errorf("alternate form (#) not allowed in string format specifier")
	case f.grouping != 0:
		return "", fmt.Errorf("cannot specify '%c' with 's'", f.grouping)
	case f.align == '=':
		return "", fmt.Errorf("'=' alignment not allowed in string format specifier")
	}
	if f.precision >= 0 && utf8.RuneCountInString(s) > f.precision {
		s = string([]rune(s)[:f.precision])
	}
	return f.pad("", s, '<'), nil
}

func (f fspec) int(n int64, kind string) (string, error) {
	switch f.typ {
	case 'e', 'E', 'f', 'F', 'g', 'G', '%':
		return f.float(float64(n))
	case 0, 'd', 'n', 'b', 'o', 'x', 'X', 'c':
	default:
		return "", fmt.Errorf("unknown format code '%c' for an %s", f.typ, kind)
	}
	if f.precision >= 0 {
		return "", fmt.Errorf("precision not allowed in integer format specifier")
	}
	if f.typ == 'c' {
		if f.sign != 0 || f.alt || f.grouping != 0 {
			return "", fmt.Errorf("sign, # and grouping not allowed with integer format specifier 'c'")
		}
		if n < 0 || n > 0x10ffff {
			return "", fmt.Errorf("%%c arg not in range(0x110000)")
		}
		return f.pad("", string(rune(n)), '>'), nil
	}
	neg := n < 0
	u := uint64(n)
	if neg {
		u = -u
	}
	base, prefix, group := 10, "", 3
	switch f.typ {
	case 'b':
		base, prefix, group = 2, "0b", 4
	case 'o':
		base, prefix, group = 8, "0o", 4
	case 'x', 'X':
		base, prefix, group = 16, "0x", 4
	}
	if f.grouping == ',' && base != 10 {
		return "", fmt.Errorf("cannot specify ',' with '%c'", f.typ)
	}
	digits := strconv.FormatUint(u, base)
	if f.typ == 'X' {
		digits, prefix = strings.ToUpper(digits), "0X"
	}
	if !f.alt {
		prefix = ""
	}
	return f.number(neg, prefix, digits, "", group), nil
}

func (f fspec) float(v float64) (string, error) {
	switch f.typ {
	case 0, 'e', 'E', 'f', 'F', 'g', 'G', 'n', '%':
	default:
		return "", fmt.Errorf("unknown format code '%c' for a float", f.typ)
	}
	neg := math.Signbit(v)
	a := math.Abs(v)
	if f.zneg && neg && f.round(a) == 0 {
		neg = false
	}
	var body string
	switch {
	case math.IsNaN(a):
		neg = false
		body = "nan"
	case math.IsInf(a, 0):
		body = "inf"
	default:
		body = f.digits(a)
	}
	if math.IsNaN(a) || math.IsInf(a, 0) {
		if f.typ == 'E' || f.typ == 'F' || f.typ == 'G' {
			body = strings.ToUpper(body)
		}
		if f.typ == '%' {
			body += "%"
		}
	}
	// Split the integer digits from the rest for grouping.
	end := len(body)
	for i := 0; i < len(body); i++ {
		if body[i] < '0' || body[i] > '9' {
			end = i
			break
		}
	}
	return f.number(neg, "", body[:end], body[end:], 3), nil
}

// round is a in the spec's fixed or percent form, read back: whether it
// shows as zero decides 'z'.
func (f fspec) round(a float64) float64 {
	s := f.digits(a)
	s = strings.TrimSuffix(s, "%")
	r, _ := strconv.ParseFloat(s, 64)
	return r
}

// digits formats a finite non-negative float by the spec's type and
// precision, without sign, padding or grouping.
func (f fspec) digits(a float64) string {
	p := f.precision
	switch f.typ {
	case 'f', 'F':
		if p < 0 {
			p = 6
		}
		return f.point(strconv.FormatFloat(a, 'f', p, 64))
	case '%':
		if p < 0 {
			p = 6
		}
		return f.point(strconv.FormatFloat(a*100, 'f', p, 64)) + "%"
	case 'e', 'E':
		if p < 0 {
			p = 6
		}
		s := f.point(strconv.FormatFloat(a, 'e', p, 64))
		if f.typ == 'E' {
			s = strings.ToUpper(s)
		}
		return s
	case 'g', 'G', 'n':
		if p < 0 {
			p = 6
		}
		s := general(a, max(p, 1), f.alt, false)
		if f.typ == 'G' {
			s = strings.ToUpper(s)
		}
		return s
	}
	// No type: repr when no precision, else 'g' keeping a digit after
	// the point.
	if p < 0 {
		return repr(a, f.bits32)
	}
	return general(a, max(p, 1), f.alt, true)
}

// point adds the decimal point '#' asks for when there is none.
func (f fspec) point(s string) string {
	if !f.alt || strings.Contains(s, ".") {
		return s
	}
	if i := strings.IndexAny(s, "e%"); i >= 0 {
		return s[:i] + "." + s[i:]
	}
	return s + "."
}

// general is Python's 'g' with p significant digits: scientific when the
// exponent is below -4 or at least p, trailing zeros removed unless alt;
// keepPoint (the none type) keeps ".0" on integral fixed results.
func general(a float64, p int, alt, keepPoint bool) string {
	e := strconv.FormatFloat(a, 'e', p-1, 64)
	mant, exps, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(exps)
	// The none type switches one digit earlier: 99.995 to 3 digits is
	// 1e+02, not 100.0.
	limit := p
	if keepPoint {
		limit--
	}
	var s string
	if exp >= -4 && exp < limit {
		s = strconv.FormatFloat(a, 'f', p-1-exp, 64)
		if !alt {
			s = trimZeros(s)
		}
		if keepPoint && !strings.Contains(s, ".") {
			s += ".0"
		}
		if alt && !strings.Contains(s, ".") {
			s += "."
		}
		return s
	}
	if !alt {
		mant = trimZeros(mant)
	} else if !strings.Contains(mant, ".") {
		mant += "."
	}
	return mant + "e" + pyExp(exp)
}

// repr is Python's repr of a float: the shortest digits that read back,
// scientific below 1e-4 and from 1e16 up.
func repr(a float64, bits32 bool) string {
	if a == 0 {
		return "0.0"
	}
	bits := 64
	if bits32 {
		bits = 32
	}
	e := strconv.FormatFloat(a, 'e', -1, bits)
	mant, exps, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(exps)
	if exp >= -4 && exp < 16 {
		s := strconv.FormatFloat(a, 'f', -1, bits)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	return mant + "e" + pyExp(exp)
}

// pyExp writes an exponent as Python does: a sign and at least two
// digits.
func pyExp(exp int) string {
	sign := "+"
	if exp < 0 {
		sign, exp = "-", -exp
	}
	return fmt.Sprintf("%s%02d", sign, exp)
}

func trimZeros(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// number lays out a number: sign, prefix, integer digits grouped, the
// rest, then padding by the spec (zero padding goes inside the sign and
// is grouped too, as Python's).
func (f fspec) number(neg bool, prefix, intDigits, rest string, group int) string {
	sign := ""
	switch {
	case neg:
		sign = "-"
	case f.sign == '+':
		sign = "+"
	case f.sign == ' ':
		sign = " "
	}
	grouped := groupDigits(intDigits, f.grouping, group)
	if f.align == '=' && f.fill == '0' && f.grouping != 0 && intDigits != "" {
		need := f.width - len(sign) - len(prefix) - utf8.RuneCountInString(rest)
		for len(grouped) < need {
			intDigits = "0" + intDigits
			grouped = groupDigits(intDigits, f.grouping, group)
		}
	}
	return f.pad(sign+prefix, grouped+rest, '>')
}

func groupDigits(d string, sep byte, n int) string {
	if sep == 0 || len(d) <= n {
		return d
	}
	var b strings.Builder
	first := len(d) % n
	if first > 0 {
		b.WriteString(d[:first])
	}
	for i := first; i < len(d); i += n {
		if b.Len() > 0 {
			b.WriteByte(sep)
		}
		b.WriteString(d[i : i+n])
	}
	return b.String()
}

// pad fills to the width: head (sign and prefix) stays before '='
// padding; def is the alignment when the spec gives none.
func (f fspec) pad(head, body string, def byte) string {
	n := f.width - utf8.RuneCountInString(head) - utf8.RuneCountInString(body)
	if n <= 0 {
		return head + body
	}
	fill := strings.Repeat(string(f.fill), n)
	align := f.align
	if align == 0 {
		align = def
	}
	switch align {
	case '<':
		return head + body + fill
	case '^':
		l := n / 2
		return strings.Repeat(string(f.fill), l) + head + body + strings.Repeat(string(f.fill), n-l)
	case '=':
		return head + fill + body
	}
	return fill + head + body
}

func init() {
	register("format", `format(value, spec=""): value (a number, a one-element tensor, a bool or a string) formatted by Python's format-spec mini-language, [[fill]align][sign][z][#][0][width][grouping][.precision][type]: format(3.14159, ".2f") is "3.14", format(1234567, ",d") "1,234,567", format(0.25, ".0%") "25%", format("a", "^5") "  a  "`, builtinFormat)
}

func builtinFormat(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var v eval.Value
	spec := ""
	if err := eval.UnpackArgs(th, "format", args, kwargs, "value", &v, "spec?", &spec); err != nil {
		return nil, err
	}
	s, err := formatBySpec(th, v, spec)
	if err != nil {
		return nil, fmt.Errorf("format: %v", err)
	}
	return eval.String(s), nil
}

// formatBySpec is v (a number, a one-element tensor, a bool or a string)
// formatted by spec, Python's format(v, spec); its errors name no caller.
func formatBySpec(th *eval.Thread, v eval.Value, spec string) (string, error) {
	if t, ok := v.(eval.Tensor); ok {
		if n := t.Ref.Shape().Numel(); n != 1 {
			return "", fmt.Errorf("needs a number or a tensor of one element, got a tensor of shape %v", t.Ref.Shape())
		}
		d, err := th.RT.Read(t.Ref)
		if err != nil {
			return "", err
		}
		v = elementValue(d, 0)
	}
	var x any
	switch v := v.(type) {
	case eval.Int:
		x = int64(v)
	case eval.Float32:
		x = float32(v)
	case eval.Float64:
		x = float64(v)
	case eval.Bool:
		x = bool(v)
	case eval.String:
		x = string(v)
	default:
		return "", fmt.Errorf("cannot format %s: only numbers, tensors of one element, bools and strings", eval.Describe(v))
	}
	return formatValue(x, spec)
}
