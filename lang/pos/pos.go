// Package pos is where things are in tref source, as go/token and
// go/scanner have it: a position value (file, line, column), an error at a
// position, a list of them sorted by position that prints at most ten,
// and a call stack frame. The parser, the resolver, the evaluator, the
// runtime (a tensor's refs.Site) and lang/diag, which prints them, share
// these; nothing writes a position as text to read it back.
package pos

import (
	"fmt"
	"strconv"
	"strings"
)

// Pos is a source position; lines and columns count from 1, a column in
// characters. The zero Pos is no position. A Pos with a file and no line
// labels something that is not in a script ("<calibrate>").
type Pos struct {
	File string
	Line int
	Col  int
}

// String is "file:line:col", the file alone for a label, "" for none.
func (p Pos) String() string {
	if p.Line <= 0 {
		return p.File
	}
	return p.File + ":" + strconv.Itoa(p.Line) + ":" + strconv.Itoa(p.Col)
}

// IsValid reports whether p is a place in a script.
func (p Pos) IsValid() bool { return p.Line > 0 }

// Before orders positions by file, then line, then column: the order in
// which error lists are sorted and printed.
func (p Pos) Before(q Pos) bool {
	if p.File != q.File {
		return p.File < q.File
	}
	if p.Line != q.Line {
		return p.Line < q.Line
	}
	return p.Col < q.Col
}

// Parse reads "file:line:col" (the file may itself hold colons). It is
// for text from outside the process, such as a position typed into a
// test; ok is false for anything else.
func Parse(s string) (p Pos, ok bool) {
	i := strings.LastIndexByte(s, ':')
	if i < 0 {
		return Pos{}, false
	}
	j := strings.LastIndexByte(s[:i], ':')
	if j < 0 {
		return Pos{}, false
	}
	line, err1 := strconv.Atoi(s[j+1 : i])
	col, err2 := strconv.Atoi(s[i+1:])
	if err1 != nil || err2 != nil || line < 1 || col < 1 {
		return Pos{}, false
	}
	return Pos{File: s[:j], Line: line, Col: col}, true
}

// Frame is one call of a runtime error's traceback: the function and the
// position in it that was executing ("<module>" for a file's top level).
type Frame struct {
	Fn  string
	Pos Pos
}

func (f Frame) String() string { return fmt.Sprintf("at %s (%s)", f.Fn, f.Pos) }
