package parser

import (
	"fmt"
	"strings"

	"github.com/tref-lang/tref/lang/ast"
)

// dump prints a node in a canonical, fully parenthesised form, so a test
// can state a tree in one line: `1 + 2 * 3` is "(1 + (2 * 3))".
func dump(n ast.Node) string {
	var b strings.Builder
	dumpNode(&b, n)
	return b.String()
}

func dumpList[T ast.Node](b *strings.Builder, xs []T, sep string) {
	for i, x := range xs {
		if i > 0 {
			b.WriteString(sep)
		}
		dumpNode(b, x)
	}
}

func dumpOpt(b *strings.Builder, n ast.Expr) {
	if n == nil {
		b.WriteString("_")
		return
	}
	dumpNode(b, n)
}

func dumpNode(b *strings.Builder, n ast.Node) {
	switch n := n.(type) {
	case *ast.Ident:
		b.WriteString(n.Name)
	case *ast.NumberLit:
		if n.IsInt {
			fmt.Fprintf(b, "%d", n.Int)
		} else {
			fmt.Fprintf(b, "%gf", n.Float)
		}
	case *ast.StringLit:
		fmt.Fprintf(b, "%q", n.Value)
	case *ast.BoolLit:
		fmt.Fprint(b, n.Value)
	case *ast.NoneLit:
		b.WriteString("none")
	case *ast.ParenExpr:
		b.WriteString("(paren ")
		dumpNode(b, n.X)
		b.WriteString(")")
	case *ast.BinaryExpr:
		b.WriteString("(")
		dumpNode(b, n.X)
		fmt.Fprintf(b, " %s ", n.Op)
		dumpNode(b, n.Y)
		b.WriteString(")")
	case *ast.UnaryExpr:
		fmt.Fprintf(b, "(%s ", n.Op)
		dumpNode(b, n.X)
		b.WriteString(")")
	case *ast.ListExpr:
		b.WriteString("[")
		dumpList(b, n.Elems, " ")
		b.WriteString("]")
	case *ast.StarExpr:
		if n.Double {
			b.WriteString("**")
		} else {
			b.WriteString("*")
		}
		dumpNode(b, n.X)
	case *ast.IndexSetExpr:
		b.WriteString("(set ")
		dumpNode(b, n.Index)
		fmt.Fprintf(b, " %s ", n.Op)
		dumpNode(b, n.Value)
		b.WriteString(")")
	case *ast.CondExpr:
		b.WriteString("(")
		dumpNode(b, n.Then)
		b.WriteString(" if ")
		dumpNode(b, n.Cond)
		b.WriteString(" else ")
		dumpNode(b, n.Else)
		b.WriteString(")")
	case *ast.FStringExpr:
		b.WriteString("(fstring")
		for _, p := range n.Parts {
			if p.X == nil {
				fmt.Fprintf(b, " %q", p.Text)
				continue
			}
			b.WriteString(" {")
			dumpNode(b, p.X)
			if p.Spec != "" {
				b.WriteString(":" + p.Spec)
			}
			if p.SpecParts != nil {
				b.WriteString(":")
				for _, sp := range p.SpecParts {
					if sp.X == nil {
						b.WriteString(sp.Text)
						continue
					}
					b.WriteString("{")
					dumpNode(b, sp.X)
					b.WriteString("}")
				}
			}
			b.WriteString("}")
		}
		b.WriteString(")")
	case *ast.RecordExpr:
		b.WriteString("{")
		for i, f := range n.Fields {
			if i > 0 {
				b.WriteString(" ")
			}
			if f.IntKey {
				fmt.Fprintf(b, "int %s: ", f.Key)
			} else {
				fmt.Fprintf(b, "%s: ", f.Key)
			}
			dumpNode(b, f.Value)
		}
		b.WriteString("}")
	case *ast.FnExpr:
		fmt.Fprintf(b, "(fn %s(", n.Name)
		for i, p := range n.Params {
			if i > 0 {
				b.WriteString(" ")
			}
			b.WriteString(map[ast.ParamKind]string{ast.KeywordOnly: "kw:", ast.VarArgs: "*", ast.VarKeywords: "**"}[p.Kind] + p.Name.Name)
			if p.Default != nil {
				b.WriteString("=")
				dumpNode(b, p.Default)
			}
		}
		b.WriteString(") ")
		if n.Arrow {
			b.WriteString("=> ")
		}
		dumpNode(b, n.Body)
		b.WriteString(")")
	case *ast.CallExpr:
		b.WriteString("(call ")
		dumpNode(b, n.Fn)
		for _, a := range n.Args {
			b.WriteString(" ")
			if a.Name != "" {
				b.WriteString(a.Name + "=")
			}
			dumpNode(b, a.Value)
		}
		b.WriteString(")")
	case *ast.IndexExpr:
		b.WriteString("(index ")
		dumpNode(b, n.X)
		for _, ix := range n.Indices {
			b.WriteString(" ")
			dumpNode(b, ix)
		}
		b.WriteString(")")
	case *ast.SliceExpr:
		if n.Ellipsis {
			b.WriteString("...")
			break
		}
		b.WriteString("(slice ")
		dumpOpt(b, n.Lo)
		b.WriteString(" ")
		dumpOpt(b, n.Hi)
		b.WriteString(" ")
		dumpOpt(b, n.Step)
		b.WriteString(")")
	case *ast.FieldExpr:
		b.WriteString("(. ")
		dumpNode(b, n.X)
		fmt.Fprintf(b, " %s)", n.Name)

	case *ast.Block:
		b.WriteString("{")
		dumpList(b, n.Stmts, "; ")
		b.WriteString("}")
	case *ast.LetStmt:
		fmt.Fprintf(b, "let %s = ", n.Name.Name)
		dumpNode(b, n.Value)
	case *ast.AssignStmt:
		fmt.Fprintf(b, "%s %s ", n.Target.Name, n.Op)
		dumpNode(b, n.Value)
	case *ast.UnpackStmt:
		if n.Let {
			b.WriteString("let ")
		}
		b.WriteString("[")
		for i, id := range n.Names {
			if i > 0 {
				b.WriteString(" ")
			}
			b.WriteString(id.Name)
		}
		b.WriteString("] = ")
		dumpNode(b, n.Value)
	case *ast.FnStmt:
		fmt.Fprintf(b, "fn %s ", n.Name.Name)
		dumpNode(b, n.Fn)
	case *ast.ReturnStmt:
		b.WriteString("return")
		if n.Value != nil {
			b.WriteString(" ")
			dumpNode(b, n.Value)
		}
	case *ast.IfStmt:
		b.WriteString("if ")
		dumpNode(b, n.Cond)
		b.WriteString(" ")
		dumpNode(b, n.Then)
		if n.Else != nil {
			b.WriteString(" else ")
			dumpNode(b, n.Else)
		}
	case *ast.ForStmt:
		fmt.Fprintf(b, "for %s in ", n.Var.Name)
		dumpNode(b, n.Iter)
		b.WriteString(" ")
		dumpNode(b, n.Body)
	case *ast.WhileStmt:
		b.WriteString("while ")
		dumpNode(b, n.Cond)
		b.WriteString(" ")
		dumpNode(b, n.Body)
	case *ast.BranchStmt:
		b.WriteString(n.Keyword)
	case *ast.TestStmt:
		fmt.Fprintf(b, "test %q ", n.Name)
		dumpNode(b, n.Body)
	case *ast.AssertStmt:
		b.WriteString("assert ")
		dumpNode(b, n.Cond)
		if n.Msg != nil {
			b.WriteString(", ")
			dumpNode(b, n.Msg)
		}
	case *ast.ImportStmt:
		fmt.Fprintf(b, "import %q as %s", n.Path, n.Name.Name)
	case *ast.DelStmt:
		fmt.Fprintf(b, "del %s", n.Name.Name)
	case *ast.ExprStmt:
		dumpNode(b, n.X)
	default:
		fmt.Fprintf(b, "<%T>", n)
	}
}
