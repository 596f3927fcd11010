// Package stdlib holds tref's builtin functions: one table, each entry an
// eval.Builtin that unpacks its arguments with eval.UnpackArgs and submits
// tensor ops to the runtime. Families of builtins live in their own files.
package stdlib

import (
	"sort"

	"github.com/tref-lang/tref/lang/eval"
)

var table = map[string]*eval.Builtin{}

// register adds a builtin; called from init functions of each family file.
func register(name, doc string, fn eval.BuiltinFunc) {
	if _, dup := table[name]; dup {
		panic("stdlib: duplicate builtin " + name)
	}
	if takesDevice[name] {
		fn, doc = dropDevice(fn), doc+deviceDoc
	}
	table[name] = &eval.Builtin{Name: name, Doc: doc, Fn: fn}
}

// Universe returns every builtin by name. The map is shared: do not modify.
func Universe() map[string]*eval.Builtin { return table }

// Names lists the builtins, sorted (for completion and :help).
func Names() []string {
	names := make([]string, 0, len(table))
	for n := range table {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
