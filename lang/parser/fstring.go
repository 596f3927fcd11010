package parser

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/tref-lang/tref/lang/ast"
)

// An f-string, f"loss {loss:.4f} at step {i}", is one string token whose
// text is split here: the text between fields is unescaped as a string's
// (with {{ and }} for braces), each field's expression is scanned and
// parsed where it stands in the file, so that its errors point into the
// f-string, and a field's format spec after ':' is kept as written, or
// split into its texts and fields when it holds fields ({x:{w}.{p}f}). A
// field may end in '=' ({loss=}) to write its own source before the value.
// A field's expression may hold strings in the other quotes
// (f"{cfg['lr']}", f'{d["k"]}'), as in Python before 3.12.

// isFString reports whether a string token is an f-string.
func isFString(t lexer.Token) bool { return strings.HasPrefix(t.Value, "f") }

// fstring converts an f-string token.
func fstring(t lexer.Token) (ast.Expr, *synError) {
	f := fstringSplitter{tok: t, raw: t.Value[2 : len(t.Value)-1], col: t.Pos.Column + 2}
	return f.split()
}

// fstringSplitter walks an f-string's text between its quotes.
type fstringSplitter struct {
	tok   lexer.Token
	raw   string
	i     int // byte offset in raw
	col   int // column of raw[i]
	text  strings.Builder
	parts []*ast.FStringPart
}

// at is the position of column col of the f-string's line.
func (f *fstringSplitter) at(col int) ast.Pos {
	p := posOf(f.tok.Pos)
	p.Col = col
	return p
}

func (f *fstringSplitter) fail(col int, format string, args ...any) *synError {
	return &synError{Pos: f.at(col), Msg: fmt.Sprintf(format, args...)}
}

func (f *fstringSplitter) split() (ast.Expr, *synError) {
	for f.i < len(f.raw) {
		r := f.raw[f.i]
		switch {
		case (r == '{' || r == '}') && strings.HasPrefix(f.raw[f.i+1:], string(r)):
			f.text.WriteByte(r)
			f.i += 2
			f.col += 2
		case r == '}':
			return nil, f.fail(f.col, "single '}' in an f-string (write '}}' for a brace)")
		case r == '{':
			if err := f.field(); err != nil {
				return nil, err
			}
		default:
			text, size, cols, msg := literalChar(f.raw, f.i)
			if msg != "" {
				return nil, f.fail(f.col, "%s", msg)
			}
			f.text.WriteString(text)
			f.i += size
			f.col += cols
		}
	}
	f.flush()
	return &ast.FStringExpr{At: posOf(f.tok.Pos), Parts: f.parts}, nil
}

// flush ends the literal text read so far as a part.
func (f *fstringSplitter) flush() {
	if f.text.Len() > 0 {
		f.parts = append(f.parts, &ast.FStringPart{Text: f.text.String()})
		f.text.Reset()
	}
}

// field reads the field at raw[i] == '{': its expression up to a ':', a
// '!' or the closing '}' outside brackets and strings, then its
// conversion and its spec.
func (f *fstringSplitter) field() *synError {
	open := f.col
	start, startCol := f.i+1, f.col+1
	end, col, err := f.exprStop(start, startCol, true)
	if err != nil {
		return err
	}
	if end == len(f.raw) {
		return f.fail(open, "f-string field '{' is not closed (write '{{' for a brace)")
	}
	debug := f.raw[end] == '='
	j := end
	src := f.raw[start:end]
	if strings.TrimSpace(src) == "" {
		return f.fail(open, "empty expression in an f-string field")
	}
	x, err := f.parseField(src, startCol, f.tok.Pos.Offset+2+start)
	if err != nil {
		return err
	}
	if debug {
		f.text.WriteString(src + "=")
		j++
		col++
	}
	f.flush()
	conv := ""
	if f.raw[j] == '!' {
		// !r, !s or !a, then the spec or the closing brace.
		if j+2 >= len(f.raw) || !strings.ContainsRune("rsa", rune(f.raw[j+1])) || f.raw[j+2] != ':' && f.raw[j+2] != '}' {
			return f.fail(col, "an f-string conversion is !r, !s or !a, before ':' or '}'")
		}
		conv = f.raw[j+1 : j+2]
		j += 2
		col += 2
	}
	spec := ""
	var specParts []*ast.FStringPart
	if f.raw[j] == ':' {
		j++
		col++
		specStart, textStart := j, j
		for j < len(f.raw) && f.raw[j] != '}' {
			r, size := utf8.DecodeRuneInString(f.raw[j:])
			if r == '\\' {
				return f.fail(col, "an f-string format spec cannot hold %q", r)
			}
			if r == '{' {
				// A field in the spec ({x:{width}.{prec}f}).
				if textStart < j {
					specParts = append(specParts, &ast.FStringPart{Text: f.raw[textStart:j]})
				}
				nx, next, nextCol, err := f.specField(j, col)
				if err != nil {
					return err
				}
				specParts = append(specParts, &ast.FStringPart{X: nx})
				j, col, textStart = next, nextCol, next
				continue
			}
			j += size
			col++
		}
		if j == len(f.raw) {
			return f.fail(open, "f-string field '{' is not closed (write '{{' for a brace)")
		}
		if specParts != nil {
			if textStart < j {
				specParts = append(specParts, &ast.FStringPart{Text: f.raw[textStart:j]})
			}
		} else {
			spec = f.raw[specStart:j]
		}
	}
	// raw[j] is the field's closing '}', at column col.
	f.parts = append(f.parts, &ast.FStringPart{X: x, Spec: spec, SpecParts: specParts, Conv: conv})
	f.i = j + 1
	f.col = col + 1
	return nil
}

// specField reads a field in a format spec, raw[j] == '{' at column col:
// an expression alone (Python's nested replacement field, without a
// conversion or spec of its own) up to its '}' outside brackets and
// strings. It returns the expression and the byte and column after the
// '}'.
func (f *fstringSplitter) specField(j, col int) (ast.Expr, int, int, *synError) {
	open := col
	start, startCol := j+1, col+1
	end, col, err := f.exprStop(start, startCol, false)
	switch {
	case err != nil:
		return nil, 0, 0, err
	case end == len(f.raw):
		return nil, 0, 0, f.fail(open, "f-string field '{' in a format spec is not closed")
	case f.raw[end] != '}':
		return nil, 0, 0, f.fail(col, "a field in an f-string format spec is an expression alone (no %q)", f.raw[end])
	}
	src := f.raw[start:end]
	if strings.TrimSpace(src) == "" {
		return nil, 0, 0, f.fail(open, "empty expression in an f-string field")
	}
	x, perr := f.parseField(src, startCol, f.tok.Pos.Offset+2+start)
	if perr != nil {
		return nil, 0, 0, perr
	}
	return x, end + 1, col + 1, nil
}

// exprStop scans a field's expression from raw[j], at column col, past
// strings in the other quotes (whose text may hold : } !) and brackets, to
// the first rune outside them that may end it: '}', ':', a '!' not of
// "!=", and with debug a '=' that ends the field ({x=}, {x=:.2f}). It
// returns that rune's byte and column, or len(raw) when none comes.
func (f *fstringSplitter) exprStop(j, col int, debug bool) (int, int, *synError) {
	depth := 0
	for j < len(f.raw) {
		r, size := utf8.DecodeRuneInString(f.raw[j:])
		switch {
		case r == '\\':
			return 0, 0, f.fail(col, "an f-string field's expression cannot contain a backslash")
		case r == '\'' || r == '"':
			n := strings.IndexRune(f.raw[j+1:], r)
			if n < 0 {
				return 0, 0, f.fail(col, "string literal not terminated in an f-string field")
			}
			col += utf8.RuneCountInString(f.raw[j : j+n+2])
			j += n + 2
			continue
		case r == '(' || r == '[' || r == '{':
			depth++
		case (r == ')' || r == ']' || r == '}') && depth > 0:
			depth--
		case depth > 0:
		case r == '}' || r == ':',
			r == '!' && !strings.HasPrefix(f.raw[j+1:], "="),
			debug && r == '=' && fieldEnds(f.raw[j+1:]) && !strings.ContainsRune("=!<>", prevRune(f.raw[:j])):
			return j, col, nil
		}
		j += size
		col++
	}
	return j, col, nil
}

// fieldEnds reports whether rest, the text after a '=' in a field, ends
// the field there ({x=} or {x=:.2f}).
func fieldEnds(rest string) bool {
	return strings.HasPrefix(rest, "}") || strings.HasPrefix(rest, ":") || strings.HasPrefix(rest, "!")
}

// prevRune is the last rune of s, or 0.
func prevRune(s string) rune {
	r, _ := utf8.DecodeLastRuneInString(s)
	if r == utf8.RuneError {
		return 0
	}
	return r
}

// parseField parses a field's expression src, which starts at column col
// of the f-string's line and byte offset off of its file.
func (f *fstringSplitter) parseField(src string, col, off int) (ast.Expr, *synError) {
	shift := func(p *lexer.Position) {
		p.Column += col - 1
		p.Offset += off
	}
	toks, errs := scan(f.tok.Pos.Filename, []byte(src), f.tok.Pos.Line)
	if len(errs) > 0 {
		e := *errs[0]
		e.Pos.Col += col - 1
		return nil, &e
	}
	for i := range toks {
		shift(&toks[i].Pos)
	}
	peek, err := lexer.Upgrade(&tokenLexer{toks: toks})
	if err != nil {
		return nil, f.fail(col, "%v", err)
	}
	defer begin(peek)()
	x, err := parseExpr(peek)
	if errors.Is(err, participle.NextMatch) {
		return nil, errorAt(toks[0].Pos, "expected an expression in the f-string field, found %s", describe(toks[0]))
	}
	if err != nil {
		// The field's end is the end of its tokens, but not of the input:
		// more lines cannot complete it.
		e := syntaxError(err, toks)
		e.Msg = strings.Replace(e.Msg, "found end of file", "found the field's closing '}'", 1)
		e.incomplete = false
		return nil, e
	}
	if next := peek.Peek(); !next.EOF() {
		return nil, errorAt(next.Pos, "expected '}' or ':' after the f-string field's expression, found %s", describe(*next))
	}
	return x, nil
}
