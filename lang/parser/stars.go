package parser

import "github.com/tref-lang/tref/lang/ast"

// checkStars reports the first spread (*x, **r) that stands where none
// may: *x only among a list's elements or a call's positional arguments,
// **r only among a call's arguments or a record's fields. The parser
// reads a spread wherever an expression starts; this pass, run once the
// tree's depth is known to be bounded, places it.
func checkStars(f *ast.File) *synError {
	allowed := map[*ast.StarExpr]bool{}
	var bad *ast.StarExpr
	var visit func(n ast.Node)
	visit = func(n ast.Node) {
		if bad != nil {
			return
		}
		switch n := n.(type) {
		case *ast.ListExpr:
			for _, e := range n.Elems {
				if s, ok := e.(*ast.StarExpr); ok && !s.Double {
					allowed[s] = true
				}
			}
		case *ast.CallExpr:
			for _, a := range n.Args {
				if s, ok := a.Value.(*ast.StarExpr); ok && a.Name == "" {
					allowed[s] = true
				}
			}
		case *ast.RecordExpr:
			for _, fl := range n.Fields {
				if s, ok := fl.Value.(*ast.StarExpr); ok && fl.Spread {
					allowed[s] = true
				}
			}
		case *ast.StarExpr:
			if !allowed[n] {
				bad = n
				return
			}
		}
		ast.Children(n, visit)
	}
	for _, s := range f.Stmts {
		visit(s)
	}
	if bad == nil {
		return nil
	}
	if bad.Double {
		return &synError{Pos: bad.At, Msg: "**r spreads a record's fields: it stands only among a call's arguments, f(**r), or a record's fields, {**r, k: v}"}
	}
	return &synError{Pos: bad.At, Msg: "*x spreads an iterable's values: it stands only among a list's elements, [*x, y], or a call's arguments, f(*x)"}
}
