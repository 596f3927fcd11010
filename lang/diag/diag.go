// Package diag renders tref's errors for people: the position as
// file:line:col, the message, the source line with a caret under the
// column, and for runtime errors a short tref traceback. It is the only
// place that decides how an error looks; colour is used only when the
// caller says the output is a terminal.
package diag

import (
	"fmt"
	"io"
	"strings"

	"github.com/fatih/color"

	"github.com/tref-lang/tref/lang/pos"
)

// Diagnostic is one error ready to be printed. Pos may be invalid when the
// error has no script position (a missing file, a leaked tensor's summary).
type Diagnostic struct {
	Pos   pos.Pos
	Msg   string
	Stack []pos.Frame
}

// Sources returns the text of a file named in a position, or nil when it
// is not known (the line is then not quoted).
type Sources func(file string) []byte

// Printer writes diagnostics.
type Printer struct {
	// Color enables ANSI colour; set it only for a terminal without NO_COLOR.
	Color bool
	// Sources finds source text for quoting; nil quotes nothing.
	Sources Sources
	// MaxErrors bounds a list; 0 means pos.MaxPrinted.
	MaxErrors int
}

// Print renders err (one error or a list of them) to w.
func (p *Printer) Print(w io.Writer, err error) {
	p.PrintDiagnostics(w, Diagnostics(err))
}

// PrintDiagnostics renders ds in order, stopping after MaxErrors.
func (p *Printer) PrintDiagnostics(w io.Writer, ds []Diagnostic) {
	max := p.MaxErrors
	if max <= 0 {
		max = pos.MaxPrinted
	}
	for i, d := range ds {
		if i == max {
			fmt.Fprintf(w, "and %d more errors\n", len(ds)-max)
			return
		}
		p.printOne(w, d)
	}
}

// Format renders ds as a string.
func (p *Printer) Format(ds []Diagnostic) string {
	var b strings.Builder
	p.PrintDiagnostics(&b, ds)
	return b.String()
}

func (p *Printer) printOne(w io.Writer, d Diagnostic) {
	bold, caret, faint := p.colors()
	if d.Pos.IsValid() {
		fmt.Fprintf(w, "%s %s\n", bold.Sprint(d.Pos.String()+":"), d.Msg)
	} else {
		fmt.Fprintln(w, d.Msg)
	}
	if line, ok := p.line(d.Pos); ok && line != "" {
		line, col := clipLine(line, d.Pos.Col)
		fmt.Fprintf(w, "    %s\n    %s%s\n", line, caretIndent(line, col), caret.Sprint("^"))
	}
	for _, f := range d.Stack {
		fmt.Fprintln(w, faint.Sprint("  "+f.String()))
	}
}

// colors returns the styles for the position, the caret and the
// traceback, enabled or not as the printer says (never from the global
// state of the color package, which looks at stdout, not at our writer).
func (p *Printer) colors() (bold, caret, faint *color.Color) {
	bold = color.New(color.Bold)
	caret = color.New(color.FgRed, color.Bold)
	faint = color.New(color.Faint)
	for _, c := range []*color.Color{bold, caret, faint} {
		if p.Color {
			c.EnableColor()
		} else {
			c.DisableColor()
		}
	}
	return bold, caret, faint
}

// line returns the source line at pos without its line ending.
func (p *Printer) line(at pos.Pos) (string, bool) {
	if !at.IsValid() || p.Sources == nil {
		return "", false
	}
	src := p.Sources(at.File)
	if src == nil {
		return "", false
	}
	line, ok := pos.Line(src, at.Line)
	if !ok {
		return "", false
	}
	return strings.TrimRight(line, " \t"), true
}

// caretIndent is the whitespace that puts a caret under column col (in
// characters, from 1) of line, keeping tabs so the caret lines up however
// wide the terminal draws them.
func caretIndent(line string, col int) string {
	var b strings.Builder
	n := 0
	for _, r := range line {
		if n >= col-1 {
			break
		}
		if r == '\t' {
			b.WriteByte('\t')
		} else {
			b.WriteByte(' ')
		}
		n++
	}
	for ; n < col-1; n++ {
		b.WriteByte(' ')
	}
	return b.String()
}

// MaxQuotedLine is the most characters of a source line a diagnostic
// quotes: a longer line (a generated file, a long list literal) is cut to
// that many around the caret, with "..." where it was cut.
const MaxQuotedLine = 120

// clipLine cuts line to MaxQuotedLine characters around column col and
// returns it with the caret's column in it.
func clipLine(line string, col int) (string, int) {
	rs := []rune(line)
	if len(rs) <= MaxQuotedLine {
		return line, col
	}
	start := max(0, min(col-1-MaxQuotedLine/2, len(rs)-MaxQuotedLine))
	end := min(len(rs), start+MaxQuotedLine)
	out := string(rs[start:end])
	col -= start
	if start > 0 {
		out = "..." + out
		col += 3
	}
	if end < len(rs) {
		out += "..."
	}
	return out, col
}
