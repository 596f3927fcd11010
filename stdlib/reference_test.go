package stdlib

import (
	"flag"
	"fmt"
	"maps"
	"os"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/refs"
)

var updateReference = flag.Bool("update", false, "rewrite docs/builtins.md from the builtin table")

// referencePath is the builtin reference, generated from the table by
// TestBuiltinReference.
const referencePath = "../docs/builtins.md"

// TestBuiltinReference fails when docs/builtins.md is not what the builtin
// table gives; `go test ./stdlib -run TestBuiltinReference -update`
// rewrites it.
func TestBuiltinReference(t *testing.T) {
	got := reference(t)
	if *updateReference {
		if err := os.WriteFile(referencePath, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(referencePath)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != got {
		t.Errorf("%s is stale: run go test ./stdlib -run TestBuiltinReference -update\n%s", referencePath, firstDiff(string(want), got))
	}
}

// firstDiff quotes the first line where the committed reference and the
// generated one differ.
func firstDiff(old, new string) string {
	a, b := strings.Split(old, "\n"), strings.Split(new, "\n")
	for i := 0; i < len(a) || i < len(b); i++ {
		var x, y string
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			return fmt.Sprintf("line %d:\n  committed: %q\n  generated: %q", i+1, x, y)
		}
	}
	return ""
}

// reference writes the builtin reference: for each builtin of the binary
// (not those tests register), its signature and doc text from the table
// and the keywords its argument parser accepts, found by calling it under
// eval.Params.
func reference(t *testing.T) string {
	rt := refs.New(&cpu.Device{}, refs.Options{Lookahead: refs.DefaultLookahead})
	th := eval.NewThread(rt)
	var names []string
	for _, name := range Names() {
		pc := reflect.ValueOf(table[name].Fn).Pointer()
		file, _ := runtime.FuncForPC(pc).FileLine(pc)
		if !strings.HasSuffix(file, "_test.go") {
			names = append(names, name)
		}
	}
	var b strings.Builder
	b.WriteString(`# Builtin reference

<!-- Generated from the builtin table (stdlib) by
     go test ./stdlib -run TestBuiltinReference -update
     Do not edit: the test fails when this file is stale. -->

Every builtin of tref, in alphabetical order: its signature and what it
does (the text ` + "`:help name`" + ` prints in the REPL), and the keywords its
argument parser accepts. Where a parameter has several keywords, the first
is tref's name and the others are torch's names for it (` + "`x` or `input`" + `).
Every builtin is also a method: ` + "`x.f(a)`" + ` is ` + "`f(x, a)`" + `.

`)
	fmt.Fprintf(&b, "%d builtins: ", len(names))
	for i, name := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "[`%s`](#%s)", name, name)
	}
	b.WriteString(".\n")
	for _, name := range names {
		bi := table[name]
		if bi.Members != nil {
			fmt.Fprintf(&b, "\n## %s\n\n%s\n\n%s", name, mdEscape.Replace(bi.Doc), members(bi))
			continue
		}
		sig, text := splitDoc(bi.Doc)
		if !strings.HasPrefix(sig, name+"(") {
			t.Errorf("%s: its doc does not start with its signature: %q", name, bi.Doc)
		}
		fmt.Fprintf(&b, "\n## %s\n\n`%s`\n\n%s\n\n%s\n", name, sig, mdEscape.Replace(text), keywords(t, th, bi))
		if bi.Methods != nil {
			fmt.Fprintf(&b, "Methods of the values `%s` makes (also read as `%s.name`):\n\n", name, name)
			for _, m := range slices.Sorted(maps.Keys(bi.Methods)) {
				fmt.Fprintf(&b, "- %s\n", mdEscape.Replace(bi.Methods[m].Doc))
			}
		}
	}
	if leaks := rt.LiveRefs(); leaks != 0 {
		t.Errorf("describing the builtins left %d live refs", leaks)
	}
	return b.String()
}

// members lists a namespace's members: constants with their values,
// functions with their docs.
func members(ns *eval.Builtin) string {
	var b strings.Builder
	for _, name := range slices.Sorted(maps.Keys(ns.Members)) {
		switch m := ns.Members[name].(type) {
		case *eval.Builtin:
			fmt.Fprintf(&b, "- `%s.%s`: %s\n", ns.Name, name, mdEscape.Replace(m.Doc))
		default:
			fmt.Fprintf(&b, "- `%s.%s` = %s\n", ns.Name, name, eval.Format(m))
		}
	}
	return b.String()
}

// splitDoc cuts a doc line after its signature, "name(params)", at the
// parenthesis that closes the first one; text is the rest without its
// leading ": ".
func splitDoc(doc string) (sig, text string) {
	depth := 0
	for i, c := range doc {
		switch c {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
			if depth == 0 && c == ')' {
				sig, text = doc[:i+1], strings.TrimSpace(doc[i+1:])
				text = strings.TrimSpace(strings.TrimPrefix(text, ":"))
				return sig, text
			}
		}
	}
	return doc, ""
}

// mdEscape keeps Markdown from reading doc text as markup ("a ** b",
// "<module>").
var mdEscape = strings.NewReplacer(`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "<", `\<`, ">", `\>`, "[", `\[`, "]", `\]`)

// keywords describes the keyword arguments b accepts.
func keywords(t *testing.T, th *eval.Thread, b *eval.Builtin) string {
	params, ok := eval.Params(th, b)
	if !ok {
		// A builtin over any number of values parses them itself; those of
		// the table take no keywords, which a call with one shows.
		v, err := b.Fn(th, b, nil, []eval.Kwarg{{Name: "no_such_keyword", Value: eval.None}})
		if err == nil && strings.Contains(b.Doc, "**") {
			// dict(**fields): every keyword is taken.
			eval.Release(th.RT, v)
			return "Keywords: any name (each keyword argument becomes a field)."
		}
		if err == nil || !strings.Contains(err.Error(), "keyword argument") {
			t.Errorf("%s: neither described by eval.Params nor refusing keywords (%v)", b.Name, err)
		}
		return "Keywords: none (positional arguments only)."
	}
	if len(params) == 0 {
		return "Keywords: none (no arguments)."
	}
	var parts []string
	for _, p := range params {
		s := "`" + strings.Join(p.Names, "` or `") + "`"
		if p.Optional {
			s += " (optional)"
		}
		parts = append(parts, s)
	}
	return "Keywords: " + strings.Join(parts, ", ") + "."
}
