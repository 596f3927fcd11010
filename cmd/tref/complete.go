package main

import (
	"maps"
	"slices"
	"strings"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/lang/parser"
	"github.com/tref-lang/tref/stdlib"
)

// keywords are completed like names.
var keywords = parser.Keywords()

// tensorFields are the fields of every tensor (x.shape); its methods are
// the builtins, by uniform call syntax.
var tensorFields = []string{"shape", "dtype", "ndim", "device", "T"}

// complete is the REPL's tab completion: the word before the cursor is a
// name (globals, builtins, keywords) or `a.b.pre`, completed with the
// fields of a.b's value (record keys, tensor fields, methods).
func (r *repl) complete(line string, pos int) (head string, completions []string, tail string) {
	start := pos
	for start > 0 && isWordByte(line[start-1]) {
		start--
	}
	head, word, tail := line[:start], line[start:pos], line[pos:]
	var names []string
	prefix := word
	base, field, dotted := cutLast(word, '.')
	if dotted {
		prefix = field
		names = r.fieldNames(base)
	} else {
		names = slices.Concat(r.s.in.Globals(), stdlib.Names(), keywords)
	}
	for _, n := range names {
		if strings.HasPrefix(n, prefix) {
			if dotted {
				n = base + "." + n
			}
			completions = append(completions, n)
		}
	}
	slices.Sort(completions)
	return head, slices.Compact(completions), tail
}

// fieldNames lists what may follow `base.`: a record's keys, a module's
// members, a tensor's fields and methods, the builtins (as methods) for
// other values. base must be a chain of names, looked up without
// evaluating anything; anything else completes nothing.
func (r *repl) fieldNames(base string) []string {
	path := strings.Split(base, ".")
	for _, part := range path {
		if !isName(part) {
			return nil
		}
	}
	v, ok := r.s.in.Lookup(path)
	if !ok {
		return nil
	}
	switch v := v.(type) {
	case *eval.Record:
		var names []string // the fields r.name reads: not the int keys
		for i, k := range v.Keys {
			if !v.IsIntKey(i) {
				names = append(names, k)
			}
		}
		return names
	case *eval.Module:
		return v.Members()
	case *eval.Builtin:
		if v.Members != nil {
			return slices.Collect(maps.Keys(v.Members))
		}
	case eval.Tensor, eval.Bool, eval.Int, eval.Float32, eval.Float64:
		return slices.Concat(tensorFields, stdlib.Names())
	}
	return stdlib.Names()
}

func cutLast(s string, sep byte) (before, after string, found bool) {
	i := strings.LastIndexByte(s, sep)
	if i < 0 {
		return "", s, false
	}
	return s[:i], s[i+1:], true
}

func isWordByte(c byte) bool {
	return c == '_' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// isName reports whether s is an identifier.
func isName(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isWordByte(s[i]) || s[i] == '.' {
			return false
		}
	}
	return !slices.Contains(keywords, s)
}
