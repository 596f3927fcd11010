package ast

import "fmt"

// MaxDepth bounds how deeply a syntax tree nests: a node may lie at most
// MaxDepth nodes below a statement of its file (a statement is at depth
// 1). The parser rejects deeper programs, and the phases that walk trees
// by recursion (resolver, liveness, compiler, evaluator) refuse deeper
// trees before they start, so no program can exhaust the Go stack.
const MaxDepth = 1000

// Children calls f for each child node of n, in source order.
func Children(n Node, f func(Node)) {
	expr := func(x Expr) {
		if x != nil {
			f(x)
		}
	}
	switch n := n.(type) {
	case *Block:
		for _, s := range n.Stmts {
			f(s)
		}
	case *LetStmt:
		f(n.Name)
		expr(n.Value)
	case *AssignStmt:
		f(n.Target)
		expr(n.Value)
	case *UnpackStmt:
		for _, id := range n.Names {
			f(id)
		}
		expr(n.Value)
	case *FnStmt:
		f(n.Name)
		f(n.Fn)
	case *ReturnStmt:
		expr(n.Value)
	case *IfStmt:
		expr(n.Cond)
		f(n.Then)
		if n.Else != nil {
			f(n.Else)
		}
	case *ForStmt:
		f(n.Var)
		expr(n.Iter)
		f(n.Body)
	case *WhileStmt:
		expr(n.Cond)
		f(n.Body)
	case *TestStmt:
		f(n.Body)
	case *AssertStmt:
		expr(n.Cond)
		expr(n.Msg)
	case *ImportStmt:
		f(n.Name)
	case *DelStmt:
		f(n.Name)
	case *ExprStmt:
		expr(n.X)
	case *ListExpr:
		for _, x := range n.Elems {
			expr(x)
		}
	case *RecordExpr:
		for _, fl := range n.Fields {
			expr(fl.KeyExpr)
			expr(fl.Value)
		}
	case *StarExpr:
		expr(n.X)
	case *CondExpr:
		expr(n.Then)
		expr(n.Cond)
		expr(n.Else)
	case *FStringExpr:
		for _, p := range n.Parts {
			expr(p.X)
			for _, sp := range p.SpecParts {
				expr(sp.X)
			}
		}
	case *FnExpr:
		for _, p := range n.Params {
			f(p.Name)
			expr(p.Default)
		}
		f(n.Body)
	case *BinaryExpr:
		expr(n.X)
		expr(n.Y)
	case *UnaryExpr:
		expr(n.X)
	case *CallExpr:
		expr(n.Fn)
		for _, a := range n.Args {
			expr(a.Value)
		}
	case *SliceExpr:
		expr(n.Lo)
		expr(n.Hi)
		expr(n.Step)
	case *IndexExpr:
		expr(n.X)
		for _, x := range n.Indices {
			expr(x)
		}
	case *MutateExpr:
		expr(n.Call)
	case *IndexSetExpr:
		f(n.Index)
		expr(n.Value)
	case *FieldExpr:
		expr(n.X)
	case *ParenExpr:
		expr(n.X)
	}
}

// TooDeep returns the first node, in source order, that lies more than
// limit nodes below n (n itself is at depth 1), or nil. It walks with a
// stack of its own, so a tree of any depth can be checked.
func TooDeep(n Node, limit int) Node {
	type item struct {
		n     Node
		depth int
	}
	stack := []item{{n, 1}}
	var kids []Node
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if it.depth > limit {
			return it.n
		}
		kids = kids[:0]
		Children(it.n, func(c Node) { kids = append(kids, c) })
		for i := len(kids) - 1; i >= 0; i-- {
			stack = append(stack, item{kids[i], it.depth + 1})
		}
	}
	return nil
}

// DepthError describes a node found by TooDeep: "expression nested too
// deeply (limit 1000)".
func DepthError(n Node) string {
	what := "statement"
	if _, ok := n.(Expr); ok {
		what = "expression"
	}
	return fmt.Sprintf("%s nested too deeply (limit %d)", what, MaxDepth)
}
