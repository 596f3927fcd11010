package parser

import "github.com/tref-lang/tref/lang/ast"

// walk calls fn for n and every node below it, parents first.
func walk(n ast.Node, fn func(ast.Node)) {
	if n == nil {
		return
	}
	fn(n)
	ast.Children(n, func(c ast.Node) { walk(c, fn) })
}
