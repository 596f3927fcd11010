package parser

import "strings"

// OneLine rewrites a REPL input that spans several lines (a function
// definition, a block) as one line that parses to the same statements, for
// the REPL's history: each line break between two tokens, with the
// comments and blanks around it, becomes one space, and the text within a
// line stays as typed. ok is false when src does not parse as a REPL
// input, or the one line would not parse to the same statements (a line
// break the grammar reads).
func OneLine(src string) (line string, ok bool) {
	orig, err := ParseREPL([]byte(src))
	if err != nil {
		return "", false
	}
	toks, errs := scan(ReplFile, []byte(src), 1)
	if len(errs) > 0 {
		return "", false
	}
	var b strings.Builder
	end := -1 // the previous token's end offset
	for _, t := range toks {
		if t.EOF() {
			break
		}
		if end >= 0 {
			gap := src[end:t.Pos.Offset]
			if strings.ContainsAny(gap, "\n\r#") {
				gap = " "
			}
			b.WriteString(gap)
		}
		b.WriteString(t.Value)
		end = t.Pos.Offset + len(t.Value)
	}
	line = b.String()
	joined, err := ParseREPL([]byte(line))
	if err != nil || len(joined.Stmts) != len(orig.Stmts) {
		return "", false
	}
	return line, true
}
