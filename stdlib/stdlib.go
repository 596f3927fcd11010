// Package stdlib holds tref's builtin functions: one table, each entry an
// eval.Builtin that unpacks its arguments with eval.UnpackArgs and submits
// tensor ops to the runtime. Families of builtins live in their own files.
package stdlib

import (
	"sort"
	"strings"

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
	for _, m := range pendingMethods[name] {
		addMethod(table[name], m)
	}
	delete(pendingMethods, name)
}

// pendingMethods holds the methods registered before their type's
// builtin (init functions run file by file).
var pendingMethods = map[string][]*eval.Builtin{}

// method adds a method of the values of the builtin typ (str): x.name(...)
// on such a value calls fn with x first (see eval.Builtin.Methods).
func method(typ, name, doc string, fn eval.BuiltinFunc) {
	m := &eval.Builtin{Name: typ + "." + name, Doc: doc, Fn: fn}
	if b := table[typ]; b != nil {
		addMethod(b, m)
		return
	}
	pendingMethods[typ] = append(pendingMethods[typ], m)
}

func addMethod(b *eval.Builtin, m *eval.Builtin) {
	if b.Methods == nil {
		b.Methods = map[string]*eval.Builtin{}
	}
	name := strings.TrimPrefix(m.Name, b.Name+".")
	if _, dup := b.Methods[name]; dup {
		panic("stdlib: duplicate method " + m.Name)
	}
	b.Methods[name] = m
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
