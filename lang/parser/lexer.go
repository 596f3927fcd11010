package parser

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/tref-lang/tref/lang/ast"
)

// keywords are reserved: they never lex as identifiers.
var keywords = []string{
	"let", "fn", "return", "if", "else", "for", "in", "while", "break",
	"continue", "test", "assert", "import", "as", "del", "true", "false",
	"none", "and", "or", "not", "is",
	// Python's spellings of true, false and none, read as tref's.
	"True", "False", "None",
}

// Keywords lists the reserved words, for completion.
func Keywords() []string { return slices.Clone(keywords) }

// isTrue, isFalse and isNone read the constants' keywords in either
// spelling.
func isTrue(v string) bool  { return v == "true" || v == "True" }
func isFalse(v string) bool { return v == "false" || v == "False" }
func isNone(v string) bool  { return v == "none" || v == "None" }

// lexDef is the tokenizer. Rules are tried in order and the first match
// wins, so longer operators precede their prefixes, keywords precede
// identifiers, and a number like .5 precedes the '.' operator. The rules
// are deliberately generous (BadString, Bad, a number with trailing
// letters): scan turns those tokens into positioned errors instead of the
// lexer's "invalid input text".
var lexDef = lexer.MustSimple([]lexer.SimpleRule{
	{Name: "comment", Pattern: `#[^\r\n]*`},
	{Name: "whitespace", Pattern: `[ \t\r\n]+`},
	{Name: "String", Pattern: `f?(?:"(?:\\[^\r\n]|[^"\\\r\n])*"|'(?:\\[^\r\n]|[^'\\\r\n])*')`},
	{Name: "BadString", Pattern: `f?(?:"(?:\\[^\r\n]|[^"\\\r\n])*|'(?:\\[^\r\n]|[^'\\\r\n])*)\\?`},
	{Name: "Number", Pattern: `(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9][0-9_]*)(?:[eE][+-]?[0-9_]*)?[A-Za-z0-9_]*`},
	{Name: "Keyword", Pattern: `(?:` + strings.Join(keywords, "|") + `)\b`},
	{Name: "Ident", Pattern: `[A-Za-z_][A-Za-z0-9_]*`},
	{Name: "Op", Pattern: `\.\.\.|//=|\*\*=|==|!=|<=|>=|//|\*\*|\+=|-=|\*=|/=|%=|@=|=>|[-+*/%@<>=()\[\]{},:;.]`},
	{Name: "Bad", Pattern: `.|\n`},
})

// Token types of lexDef.
var (
	tokString    = lexDef.Symbols()["String"]
	tokBadString = lexDef.Symbols()["BadString"]
	tokNumber    = lexDef.Symbols()["Number"]
	tokKeyword   = lexDef.Symbols()["Keyword"]
	tokIdent     = lexDef.Symbols()["Ident"]
	tokOp        = lexDef.Symbols()["Op"]
	tokBad       = lexDef.Symbols()["Bad"]
)

// scan splits src into tokens, ending with an EOF token. String tokens
// keep their quoted source text (unquote gives the value). It reports
// every lexical error: unterminated strings, unknown escapes, malformed
// numbers, integers that overflow int64, and stray characters.
//
// scan is a hand-written scanner over the whole file that produces
// exactly the tokens, types and positions lexDef would (lexer_test.go
// checks this against lexDef on every test input and FuzzScan on
// arbitrary ones): the regexp engine behind lexDef costs microseconds per
// token, a large share of a parse.
func scan(path string, src []byte, first int) ([]lexer.Token, errorList) {
	// A byte order mark is invisible in editors; skipping it keeps the
	// columns of the first line what the user sees.
	src = bytes.TrimPrefix(src, []byte("\ufeff"))
	s := scanner{path: path, src: string(src), line: first, col: 1}
	// Most tokens are a few bytes long; this spares regrowing the slice.
	s.toks = make([]lexer.Token, 0, len(src)/4+1)
	for s.i < len(s.src) {
		s.next()
	}
	end := lexer.Position{Filename: path, Offset: len(s.src), Line: s.line, Column: s.col}
	return append(s.toks, lexer.EOFToken(end)), s.errs
}

// scanner is the state of scan: the position of the next byte.
type scanner struct {
	path string
	src  string
	i    int
	line int
	col  int // in runes, from 1
	toks []lexer.Token
	errs errorList
}

// next consumes one token, or a run of white space or a comment.
func (s *scanner) next() {
	src, start := s.src, s.i
	c := src[start]
	switch {
	case c == '\n' || c == '\r' && (start+1 == len(src) || src[start+1] != '\n'):
		// A line ends at \n, \r\n or a lone \r (old Mac files).
		s.i++
		s.line++
		s.col = 1
		return
	case c == ' ' || c == '\t' || c == '\r':
		s.i++
		s.col++
		return
	case c == '#':
		j := start
		for j < len(src) && src[j] != '\n' && src[j] != '\r' {
			j++
		}
		s.col += utf8.RuneCountInString(src[start:j])
		s.i = j
		return
	case c == '"' || c == '\'':
		s.emit(s.stringToken(start))
	case isDigit(c) || (c == '.' && start+1 < len(src) && isDigit(src[start+1])):
		s.emit(tokNumber, s.numberEnd())
	case c == 'f' && start+1 < len(src) && (src[start+1] == '"' || src[start+1] == '\''):
		// An f-string: a string token whose text starts with f.
		s.emit(s.stringToken(start + 1))
	case isLetter(c):
		j := start + 1
		for j < len(src) && isWordChar(src[j]) {
			j++
		}
		typ := tokIdent
		if isKeyword(src[start:j]) {
			typ = tokKeyword
		}
		s.emit(typ, j)
	default:
		if n := opLen(src[start:]); n > 0 {
			s.emit(tokOp, start+n)
			return
		}
		_, size := utf8.DecodeRuneInString(src[start:])
		s.emit(tokBad, start+size)
	}
}

// stringToken returns the type and end of the string literal whose
// opening quote is at quote: a String, or a BadString up to the end of
// the line (taking a final backslash) when the closing quote is missing.
func (s *scanner) stringToken(quote int) (lexer.TokenType, int) {
	src := s.src
	q := src[quote] // " or ', as Python's: the other is a plain character
	j := quote + 1
	for j < len(src) {
		switch src[j] {
		case q:
			return tokString, j + 1
		case '\n', '\r':
			return tokBadString, j
		case '\\':
			if j+1 == len(src) || src[j+1] == '\n' || src[j+1] == '\r' {
				return tokBadString, j + 1
			}
			_, size := utf8.DecodeRuneInString(src[j+1:])
			j += 1 + size
		default:
			j++
		}
	}
	return tokBadString, j
}

// numberEnd returns the end of the number literal at s.i, taking any
// letters and digits that follow it (parseNumber reports them).
func (s *scanner) numberEnd() int {
	src := s.src
	j := s.i
	digits := func() {
		for j < len(src) && (isDigit(src[j]) || src[j] == '_') {
			j++
		}
	}
	if src[j] == '.' {
		j++ // .5: the caller saw a digit after the point
		digits()
	} else {
		digits()
		if j < len(src) && src[j] == '.' {
			j++
			digits()
		}
	}
	if j < len(src) && (src[j] == 'e' || src[j] == 'E') {
		j++
		if j < len(src) && (src[j] == '+' || src[j] == '-') {
			j++
		}
		digits()
	}
	for j < len(src) && isWordChar(src[j]) {
		j++
	}
	return j
}

// emit appends the token from s.i to end, checks its text, and advances.
func (s *scanner) emit(typ lexer.TokenType, end int) {
	t := lexer.Token{
		Type:  typ,
		Value: s.src[s.i:end],
		Pos:   lexer.Position{Filename: s.path, Offset: s.i, Line: s.line, Column: s.col},
	}
	s.col += utf8.RuneCountInString(t.Value)
	s.i = end
	switch t.Type {
	case tokString:
		// An f-string's text is checked as the parser splits it.
		if _, err := unquote(t); err != nil && !isFString(t) {
			s.errs = append(s.errs, err)
		}
	case tokBadString:
		s.errs.add(posOf(t.Pos), "string literal not terminated")
	case tokNumber:
		if _, err := parseNumber(t); err != nil {
			s.errs = append(s.errs, err)
		}
	case tokBad:
		s.errs.add(posOf(t.Pos), badChar(t.Value))
	}
	if n := len(s.toks); n > 0 && t.Type == tokNumber && t.Value[0] == '.' && endsOperand(s.toks[n-1]) &&
		s.toks[n-1].Pos.Offset+len(s.toks[n-1].Value) == t.Pos.Offset {
		// "a.1" is a field selection with a bad name, not a then .1.
		dot := lexer.Token{Type: tokOp, Value: ".", Pos: t.Pos}
		t.Value = t.Value[1:]
		t.Pos.Offset++
		t.Pos.Column++
		s.toks = append(s.toks, dot)
	}
	s.toks = append(s.toks, t)
}

// opLen is the length of the operator at the start of s, or 0.
func opLen(s string) int {
	if strings.HasPrefix(s, "...") || strings.HasPrefix(s, "//=") || strings.HasPrefix(s, "**=") {
		return 3
	}
	if len(s) >= 2 {
		switch s[:2] {
		case "==", "!=", "<=", ">=", "//", "**", "+=", "-=", "*=", "/=", "%=", "@=", "=>":
			return 2
		}
	}
	if strings.IndexByte("-+*/%@<>=()[]{},:;.", s[0]) >= 0 {
		return 1
	}
	return 0
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' }

func isWordChar(c byte) bool { return isLetter(c) || isDigit(c) }

// isKeyword reports whether word is reserved.
func isKeyword(word string) bool {
	for _, k := range keywords {
		if k == word {
			return true
		}
	}
	return false
}

func badChar(s string) string {
	r, _ := utf8.DecodeRuneInString(s)
	switch {
	case r == utf8.RuneError:
		return "invalid UTF-8 encoding"
	case r == '!':
		return "unexpected character '!' (use 'not' for negation)"
	case r == '&' || r == '|':
		return fmt.Sprintf("unexpected character %q (use 'and' / 'or')", r)
	case r < ' ' || r == 0x7f:
		return fmt.Sprintf("unexpected control character %U", r)
	}
	return fmt.Sprintf("unexpected character %q", r)
}

// unquote returns the value of a string token, interpreting the escapes
// \n \t \" and \\. An unknown escape or invalid UTF-8 is an error at its
// own column.
func unquote(t lexer.Token) (string, *synError) {
	if isFString(t) {
		return "", &synError{Pos: posOf(t.Pos), Msg: "an f-string cannot stand here; write a plain string"}
	}
	raw := t.Value[1 : len(t.Value)-1]
	if !strings.ContainsRune(raw, '\\') && utf8.ValidString(raw) {
		return raw, nil
	}
	var b strings.Builder
	col := t.Pos.Column + 1 // column of raw[0]
	for i := 0; i < len(raw); {
		text, size, cols, msg := literalChar(raw, i)
		if msg != "" {
			p := posOf(t.Pos)
			p.Col = col
			return "", &synError{Pos: p, Msg: msg}
		}
		b.WriteString(text)
		i += size
		col += cols
	}
	return b.String(), nil
}

// escapes are the escape sequences of strings, by the character after the
// backslash.
var escapes = map[rune]string{'n': "\n", 't': "\t", '"': `"`, '\'': "'", '\\': `\`}

// literalChar reads the character of a string's text (between its
// quotes) at raw[i]: the text it stands for (itself, or what an escape
// means), the bytes and columns it takes, or a message for invalid UTF-8
// or an unknown escape. unquote and f-strings read their text with it.
func literalChar(raw string, i int) (text string, size, cols int, msg string) {
	r, size := utf8.DecodeRuneInString(raw[i:])
	switch {
	case r == utf8.RuneError && size == 1:
		return "", 0, 0, "invalid UTF-8 encoding in string literal"
	case r != '\\':
		return raw[i : i+size], size, 1, ""
	}
	// The lexer guarantees a character after every backslash.
	e, esize := utf8.DecodeRuneInString(raw[i+1:])
	s, ok := escapes[e]
	if !ok {
		return "", 0, 0, fmt.Sprintf(`unknown escape sequence \%s in string literal (use \n \t \" \' or \\)`, printable(e))
	}
	return s, 1 + esize, 2, ""
}

// printable shows a rune from an escape for a message.
func printable(r rune) string {
	if r == utf8.RuneError || !strconv.IsPrint(r) {
		return fmt.Sprintf("%U", r)
	}
	return string(r)
}

// number is a checked numeric literal.
type number struct {
	isInt bool
	i     int64
	f     float64
}

// parseNumber checks and converts a number token: underscores only between
// digits, digits after an exponent, no letters after the literal, and ints
// within int64.
func parseNumber(t lexer.Token) (number, *synError) {
	s := t.Value
	fail := func(format string, args ...any) (number, *synError) {
		return number{}, &synError{Pos: posOf(t.Pos), Msg: fmt.Sprintf(format, args...)}
	}
	// Split off the mantissa, exponent and any trailing junk the lexer
	// absorbed so the whole literal is reported at once.
	end := 0
	for end < len(s) && (isDigit(s[end]) || s[end] == '_' || s[end] == '.') {
		end++
	}
	mant := s[:end]
	exp := ""
	if end < len(s) && (s[end] == 'e' || s[end] == 'E') {
		j := end + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		k := j
		for k < len(s) && (isDigit(s[k]) || s[k] == '_') {
			k++
		}
		// "1else" is not an exponent; only treat e as one when digits or a
		// sign follow, or nothing at all does.
		if k > end+1 || k == len(s) {
			exp = s[end:k]
			end = k
		}
	}
	if end < len(s) {
		if strings.HasSuffix(mant, ".") && mant != "." {
			return fail("invalid number literal %q: unexpected %q after the number (write (%s).%s for a field or method)",
				s, s[end:], mant[:len(mant)-1], s[end:])
		}
		return fail("invalid number literal %q: unexpected %q after the number", s, s[end:])
	}
	if err := checkUnderscores(mant); err != "" {
		return fail("invalid number literal %q: %s", s, err)
	}
	if exp != "" {
		digits := strings.TrimLeft(exp[1:], "+-")
		if digits == "" {
			return fail("invalid number literal %q: exponent has no digits", s)
		}
		if err := checkUnderscores(digits); err != "" {
			return fail("invalid number literal %q: %s", s, err)
		}
	}
	clean := strings.ReplaceAll(s, "_", "")
	if exp == "" && !strings.Contains(mant, ".") {
		i, err := strconv.ParseInt(clean, 10, 64)
		if err != nil {
			return fail("integer literal %s overflows int64 (max %d); write %s.0 for a float", s, int64(math.MaxInt64), s)
		}
		return number{isInt: true, i: i}, nil
	}
	f, err := strconv.ParseFloat(clean, 64)
	if err != nil {
		return fail("float literal %s is out of range", s)
	}
	return number{f: f}, nil
}

// checkUnderscores reports a misplaced digit separator in a run of digits,
// dots and underscores: each '_' must sit between two digits.
func checkUnderscores(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] != '_' {
			continue
		}
		if i == 0 || !isDigit(s[i-1]) || i+1 == len(s) || !isDigit(s[i+1]) {
			return "'_' must separate digits"
		}
	}
	return ""
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// posOf converts a lexer position.
func posOf(p lexer.Position) ast.Pos {
	return ast.Pos{File: p.Filename, Line: p.Line, Col: p.Column}
}
