package formats

import (
	"fmt"
	"strconv"
)

// pyLit parses the small subset of Python literals that npy headers use:
// a dict with string keys whose values are strings, True/False, tuples of
// ints, or lists (structured dtypes, which are then rejected).
type pyLit struct {
	s   string
	pos int
}

type pyField struct {
	key string
	val any // string, bool, []int64, or pyList
}

// pyList stands for a list literal, which only structured dtypes use.
type pyList struct{}

func pyKind(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case bool:
		return "a bool"
	case []int64:
		return "a tuple"
	case pyList:
		return "a list"
	}
	return "a value"
}

// maxPyDepth bounds nesting, so hostile headers cannot recurse deeply.
const maxPyDepth = 8

func (p *pyLit) skipSpace() {
	for p.pos < len(p.s) && (p.s[p.pos] == ' ' || p.s[p.pos] == '\t' || p.s[p.pos] == '\n' || p.s[p.pos] == '\r') {
		p.pos++
	}
}

func (p *pyLit) errorf(format string, args ...any) error {
	return fmt.Errorf("at byte %d: %s", p.pos, fmt.Sprintf(format, args...))
}

func (p *pyLit) peek() byte {
	p.skipSpace()
	if p.pos >= len(p.s) {
		return 0
	}
	return p.s[p.pos]
}

func (p *pyLit) expect(c byte) error {
	if p.peek() != c {
		if p.pos >= len(p.s) {
			return p.errorf("expected %q, found the end", c)
		}
		return p.errorf("expected %q, found %q", c, p.s[p.pos])
	}
	p.pos++
	return nil
}

// dict parses the whole text as one dict and nothing else.
func (p *pyLit) dict() ([]pyField, error) {
	if err := p.expect('{'); err != nil {
		return nil, err
	}
	var fields []pyField
	seen := map[string]bool{}
	for p.peek() != '}' {
		if p.pos >= len(p.s) {
			return nil, p.errorf("unterminated dict")
		}
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		if seen[key] {
			return nil, p.errorf("duplicate key %q", key)
		}
		seen[key] = true
		if err := p.expect(':'); err != nil {
			return nil, err
		}
		val, err := p.value(1)
		if err != nil {
			return nil, err
		}
		fields = append(fields, pyField{key, val})
		if p.peek() == ',' {
			p.pos++
			continue
		}
		if p.peek() != '}' {
			return nil, p.errorf("expected ',' or '}' after the value of %q", key)
		}
	}
	p.pos++
	if p.peek() != 0 {
		return nil, p.errorf("unexpected text after the dict")
	}
	return fields, nil
}

func (p *pyLit) value(depth int) (any, error) {
	if depth > maxPyDepth {
		return nil, p.errorf("nested too deeply")
	}
	switch c := p.peek(); {
	case c == '\'' || c == '"':
		return p.str()
	case c == '(':
		return p.tuple()
	case c == '[':
		return p.list(depth)
	case c == 'T' || c == 'F':
		for _, w := range []string{"True", "False"} {
			if len(p.s)-p.pos >= len(w) && p.s[p.pos:p.pos+len(w)] == w {
				p.pos += len(w)
				return w == "True", nil
			}
		}
	case c == 0:
		return nil, p.errorf("expected a value, found the end")
	}
	return nil, p.errorf("unexpected %q", p.s[p.pos])
}

// str parses a quoted string without escapes (npy headers have none).
func (p *pyLit) str() (string, error) {
	q := p.peek()
	if q != '\'' && q != '"' {
		if p.pos >= len(p.s) {
			return "", p.errorf("expected a string, found the end")
		}
		return "", p.errorf("expected a string, found %q", p.s[p.pos])
	}
	start := p.pos + 1
	for i := start; i < len(p.s); i++ {
		switch p.s[i] {
		case q:
			p.pos = i + 1
			return p.s[start:i], nil
		case '\\':
			return "", p.errorf("escapes in strings are not supported")
		}
	}
	return "", p.errorf("unterminated string")
}

// tuple parses (), (3,) or (3, 4) of non-negative ints.
func (p *pyLit) tuple() ([]int64, error) {
	p.pos++ // (
	out := []int64{}
	for p.peek() != ')' {
		if len(out) >= maxDims {
			return nil, p.errorf("more than %d dimensions", maxDims)
		}
		start := p.pos
		for p.pos < len(p.s) && p.s[p.pos] >= '0' && p.s[p.pos] <= '9' {
			p.pos++
		}
		if start == p.pos {
			if p.pos >= len(p.s) {
				return nil, p.errorf("unterminated tuple")
			}
			return nil, p.errorf("expected a non-negative integer, found %q", p.s[p.pos])
		}
		v, err := strconv.ParseInt(p.s[start:p.pos], 10, 64)
		if err != nil {
			return nil, p.errorf("dimension %s is too large", p.s[start:p.pos])
		}
		if p.pos < len(p.s) && p.s[p.pos] == 'L' { // Python 2 long
			p.pos++
		}
		out = append(out, v)
		if p.peek() == ',' {
			p.pos++
			continue
		}
		if p.peek() != ')' {
			return nil, p.errorf("expected ',' or ')' in the shape tuple")
		}
	}
	p.pos++
	return out, nil
}

// list skips over a list literal of strings, tuples and lists.
func (p *pyLit) list(depth int) (pyList, error) {
	p.pos++ // [
	for p.peek() != ']' {
		if p.peek() == 0 {
			return pyList{}, p.errorf("unterminated list")
		}
		var err error
		if p.peek() == '(' {
			err = p.skipTuple(depth + 1)
		} else {
			_, err = p.value(depth + 1)
		}
		if err != nil {
			return pyList{}, err
		}
		if p.peek() == ',' {
			p.pos++
		}
	}
	p.pos++
	return pyList{}, nil
}

// skipTuple skips a tuple of arbitrary literals (a structured dtype field).
func (p *pyLit) skipTuple(depth int) error {
	if depth > maxPyDepth {
		return p.errorf("nested too deeply")
	}
	p.pos++ // (
	for p.peek() != ')' {
		switch c := p.peek(); {
		case c == 0:
			return p.errorf("unterminated tuple")
		case c == '(':
			if err := p.skipTuple(depth + 1); err != nil {
				return err
			}
		case c >= '0' && c <= '9':
			for p.pos < len(p.s) && p.s[p.pos] >= '0' && p.s[p.pos] <= '9' {
				p.pos++
			}
		default:
			if _, err := p.value(depth + 1); err != nil {
				return err
			}
		}
		if p.peek() == ',' {
			p.pos++
		}
	}
	p.pos++
	return nil
}
