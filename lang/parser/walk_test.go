package parser

import "github.com/tref-lang/tref/lang/ast"

// walk calls fn for n and every node below it, parents first.
func walk(n ast.Node, fn func(ast.Node)) {
	if n == nil {
		return
	}
	fn(n)
	expr := func(x ast.Expr) {
		if x != nil {
			walk(x, fn)
		}
	}
	switch n := n.(type) {
	case *ast.Block:
		for _, s := range n.Stmts {
			walk(s, fn)
		}
	case *ast.LetStmt:
		walk(n.Name, fn)
		expr(n.Value)
	case *ast.AssignStmt:
		walk(n.Target, fn)
		expr(n.Value)
	case *ast.FnStmt:
		walk(n.Name, fn)
		walk(n.Fn, fn)
	case *ast.ReturnStmt:
		expr(n.Value)
	case *ast.IfStmt:
		expr(n.Cond)
		walk(n.Then, fn)
		if n.Else != nil {
			walk(n.Else, fn)
		}
	case *ast.ForStmt:
		walk(n.Var, fn)
		expr(n.Iter)
		walk(n.Body, fn)
	case *ast.WhileStmt:
		expr(n.Cond)
		walk(n.Body, fn)
	case *ast.TestStmt:
		walk(n.Body, fn)
	case *ast.AssertStmt:
		expr(n.Cond)
		expr(n.Msg)
	case *ast.ImportStmt:
		walk(n.Name, fn)
	case *ast.DelStmt:
		walk(n.Name, fn)
	case *ast.ExprStmt:
		expr(n.X)
	case *ast.ListExpr:
		for _, x := range n.Elems {
			expr(x)
		}
	case *ast.RecordExpr:
		for _, f := range n.Fields {
			expr(f.Value)
		}
	case *ast.FnExpr:
		for _, p := range n.Params {
			walk(p.Name, fn)
			expr(p.Default)
		}
		walk(n.Body, fn)
	case *ast.BinaryExpr:
		expr(n.X)
		expr(n.Y)
	case *ast.UnaryExpr:
		expr(n.X)
	case *ast.CallExpr:
		expr(n.Fn)
		for _, a := range n.Args {
			expr(a.Value)
		}
	case *ast.SliceExpr:
		expr(n.Lo)
		expr(n.Hi)
		expr(n.Step)
	case *ast.IndexExpr:
		expr(n.X)
		for _, x := range n.Indices {
			expr(x)
		}
	case *ast.FieldExpr:
		expr(n.X)
	case *ast.ParenExpr:
		expr(n.X)
	}
}
