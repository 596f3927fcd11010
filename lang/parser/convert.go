package parser

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/alecthomas/participle/v2/lexer"

	"github.com/tref-lang/tref/lang/ast"
)

// This file turns the participle grammar structs into lang/ast nodes and
// applies the checks the grammar leaves open: list punctuation, keyword
// arguments, assignment targets, expression statements, import names.
// Operands are converted as soon as they are parsed (inside parseExpr, so
// an error stops the parse there); statements after the whole file parsed,
// collecting every error.

// convertOperand converts a primary and its postfix operations; toks are
// the tokens up to the end of the operand.
func convertOperand(o *operand, toks []lexer.Token) (ast.Expr, error) {
	x, err := convertPrimary(o.Primary, toks)
	if err != nil {
		return nil, err
	}
	for _, pf := range o.Postfix {
		switch pf := pf.(type) {
		case *callSuffix:
			args, err := convertArgs(pf, toks)
			if err != nil {
				return nil, err
			}
			x = &ast.CallExpr{At: posOf(pf.Pos), Fn: x, Args: args}
		case *indexSuffix:
			idx, err := convertIndices(pf)
			if err != nil {
				return nil, err
			}
			x = &ast.IndexExpr{At: posOf(pf.Pos), X: x, Indices: idx}
		case *fieldSuffix:
			x = &ast.FieldExpr{At: posOf(pf.Pos), X: x, Name: pf.Name.Value}
		}
	}
	return x, nil
}

func convertPrimary(pr primary, toks []lexer.Token) (ast.Expr, error) {
	switch pr := pr.(type) {
	case *numberLit:
		n, err := parseNumber(pr.Tok)
		if err != nil {
			return nil, err
		}
		return &ast.NumberLit{At: posOf(pr.Tok.Pos), Raw: pr.Tok.Value, IsInt: n.isInt, Int: n.i, Float: n.f}, nil
	case *stringLit:
		if isFString(pr.Tok) {
			x, err := fstring(pr.Tok)
			if err != nil {
				return nil, err
			}
			return x, nil
		}
		s, err := unquote(pr.Tok)
		if err != nil {
			return nil, err
		}
		return &ast.StringLit{At: posOf(pr.Tok.Pos), Value: s}, nil
	case *boolLit:
		return &ast.BoolLit{At: posOf(pr.Pos), Value: isTrue(pr.Value)}, nil
	case *noneLit:
		return &ast.NoneLit{At: posOf(pr.Pos)}, nil
	case *identExpr:
		return ident(pr.Tok), nil
	case *parenExpr:
		if pr.X == nil || pr.Comp != nil || pr.Rest != nil {
			// (x for x in xs), or a tuple (a, b), (a,), (): a list.
			return convertPrimary(&listLit{Pos: pr.Pos, First: pr.X, Comp: pr.Comp, Rest: pr.Rest}, toks)
		}
		return &ast.ParenExpr{At: posOf(pr.Pos), X: pr.X}, nil
	case *listLit:
		if pr.Comp != nil {
			return convertComprehension(pr, toks)
		}
		elems := []ast.Expr{}
		if pr.First != nil {
			elems = append(elems, pr.First)
		}
		rest, _ := pr.Rest.(exprTailList)
		for i, t := range rest {
			if t.X == nil {
				if err := emptyTail(rest, i, "list element"); err != nil {
					return nil, err
				}
				continue
			}
			elems = append(elems, t.X)
		}
		return &ast.ListExpr{At: posOf(pr.Pos), Elems: elems}, nil
	case *recordLit:
		if pr.Comp != nil {
			return convertRecordComprehension(pr, toks)
		}
		return convertRecord(pr)
	case *fnLit:
		ps, err := convertParams(pr.Params)
		if err != nil {
			return nil, err
		}
		fn := &ast.FnExpr{At: posOf(pr.Pos), Name: "lambda", Params: ps}
		if pr.Arrow != nil {
			at := pr.Arrow.Span()
			fn.Arrow = true
			fn.Body = &ast.Block{At: at, Stmts: []ast.Stmt{&ast.ReturnStmt{At: at, Value: pr.Arrow}}}
		} else {
			c := &converter{toks: toks, depth: 1}
			fn.Body = c.block(pr.Body)
			if err := c.errs.err(); err != nil {
				return nil, c.errs[0]
			}
		}
		return fn, nil
	}
	panic(fmt.Sprintf("parser: primary %T not converted", pr))
}

// comprehensionName is the list a comprehension builds: no script can
// name it.
const comprehensionName = "[comprehension]"

// convertRecordComprehension turns {key: value for x in it if cond} into
// the function call convertComprehension makes, whose loop assigns
// [comprehension][key] = value into a record: key is any expression (a
// variable, a string, an f-string: f"layer{i}", k.replace(...)), a later
// equal key replaces the value, as in Python's dict comprehension.
func convertRecordComprehension(pr *recordLit, toks []lexer.Token) (ast.Expr, error) {
	f := pr.First
	if f.Spread != nil {
		return nil, errorAt(f.Pos, "a record comprehension takes key: value, not a ** spread")
	}
	key := f.Key // evaluated for each element: a name is a variable here
	at := posOf(pr.Pos)
	out := func() *ast.Ident { return &ast.Ident{At: at, Name: comprehensionName} }
	vat := f.Value.Span()
	set := &ast.AssignStmt{At: vat, Target: out(), Op: "=", Value: &ast.IndexSetExpr{At: vat,
		Index: &ast.IndexExpr{At: vat, X: out(), Indices: []ast.Expr{key}}, Op: "=", Value: f.Value}}
	return comprehensionCall(at, "record comprehension", &ast.RecordExpr{At: at, Fields: []*ast.Field{}}, set, pr.Comp, toks)
}

// convertComprehension turns [elem for x in it if cond] into a call of a
// function of no parameters whose body is
//
//	let [comprehension] = []
//	for x in it { if cond { [comprehension] = [comprehension] + [elem] } }
//	return [comprehension]
//
// so x is local to it (as in Python 3), the list grows in place, and the
// evaluator, resolver and liveness need nothing new. A pattern
// (for [a, b] in it) unpacks each value, as a for loop does.
func convertComprehension(pr *listLit, toks []lexer.Token) (ast.Expr, error) {
	at := posOf(pr.Pos)
	out := func() *ast.Ident { return &ast.Ident{At: at, Name: comprehensionName} }
	grow := &ast.AssignStmt{At: pr.First.Span(), Target: out(), Op: "=",
		Value: &ast.BinaryExpr{At: pr.First.Span(), Op: "+", X: out(), Y: &ast.ListExpr{At: pr.First.Span(), Elems: []ast.Expr{pr.First}}}}
	return comprehensionCall(at, "list comprehension", &ast.ListExpr{At: at}, grow, pr.Comp, toks)
}

// comprehensionCall is the call of the function of no parameters that
// starts [comprehension] at empty, runs grow for each value of cp's loop
// (under its condition) and returns [comprehension].
func comprehensionCall(at ast.Pos, name string, empty ast.Expr, grow ast.Stmt, cp *comprehension, toks []lexer.Token) (ast.Expr, error) {
	out := func() *ast.Ident { return &ast.Ident{At: at, Name: comprehensionName} }
	var body ast.Stmt = grow
	if cp.Cond != nil {
		body = &ast.IfStmt{At: cp.Cond.Span(), Cond: cp.Cond, Then: &ast.Block{At: cp.Cond.Span(), Stmts: []ast.Stmt{grow}}}
	}
	loop := &forStmt{Pos: cp.Pos, Bind: cp.Bind, Iter: cp.Iter}
	c := &converter{toks: toks, depth: 1}
	var fs *ast.ForStmt
	if cp.Bind.unpacks() {
		st, _ := c.forUnpackBody(loop, &ast.Block{At: posOf(cp.Pos), Stmts: []ast.Stmt{body}}).(*ast.ForStmt)
		if err := c.errs.err(); err != nil {
			return nil, c.errs[0]
		}
		fs = st
	} else {
		fs = &ast.ForStmt{At: posOf(cp.Pos), Var: ident(cp.Bind.Name), Iter: cp.Iter, Body: &ast.Block{At: posOf(cp.Pos), Stmts: []ast.Stmt{body}}}
	}
	fn := &ast.FnExpr{At: at, Name: name, Body: &ast.Block{At: at, Stmts: []ast.Stmt{
		&ast.LetStmt{At: at, Name: out(), Value: empty},
		fs,
		&ast.ReturnStmt{At: at, Value: out()},
	}}}
	return &ast.CallExpr{At: at, Fn: fn}, nil
}

// emptyTail reports an empty comma tail that is not the last: "a,,b".
// The error sits at the second comma.
func emptyTail[T interface{ tailPos() lexer.Position }](rest []T, i int, what string) *synError {
	if i == len(rest)-1 {
		return nil
	}
	return expectedFound(rest[i+1].tailPos(), what, ",")
}

func (t *exprTail) tailPos() lexer.Position  { return t.Pos }
func (t *argTail) tailPos() lexer.Position   { return t.Pos }
func (t *indexTail) tailPos() lexer.Position { return t.Pos }
func (t *fieldTail) tailPos() lexer.Position { return t.Pos }
func (t *paramTail) tailPos() lexer.Position { return t.Pos }

// expectedFound is "expected what, found tok" at pos.
func expectedFound(pos lexer.Position, what, tok string) *synError {
	return errorAt(pos, "expected %s, found %q", what, tok)
}

func convertRecord(r *recordLit) (ast.Expr, error) {
	var fields []*recordField
	if r.First != nil {
		fields = append(fields, r.First)
	}
	for i, t := range r.Rest {
		if t.Field == nil {
			if err := emptyTail(r.Rest, i, "record field"); err != nil {
				return nil, err
			}
			continue
		}
		fields = append(fields, t.Field)
	}
	out := &ast.RecordExpr{At: posOf(r.Pos), Fields: []*ast.Field{}}
	seen := map[string]bool{}
	for _, f := range fields {
		if f.Spread != nil {
			// {**r, ...}: r's fields, in order; a later key replaces.
			if _, nested := f.Spread.(*ast.StarExpr); nested {
				return nil, errorAt(f.Pos, "expected a record after '**', found another spread")
			}
			out.Fields = append(out.Fields, &ast.Field{At: posOf(f.Pos), Value: &ast.StarExpr{At: posOf(f.Pos), X: f.Spread, Double: true}, Spread: true})
			continue
		}
		key, intKey, err := f.key()
		if err != nil {
			return nil, err
		}
		if key == nil { // computed: evaluated, checked when the record is built
			out.Fields = append(out.Fields, &ast.Field{At: f.Key.Span(), KeyExpr: f.Key, Value: f.Value})
			continue
		}
		shown := strconv.Quote(*key)
		if intKey {
			shown = *key
		}
		if seen[shown] {
			return nil, errorAt(f.Pos, "duplicate record key %s", shown)
		}
		seen[shown] = true
		out.Fields = append(out.Fields, &ast.Field{At: posOf(f.Pos), Key: *key, IntKey: intKey, Value: f.Value})
	}
	return out, nil
}

// key is a record literal's fixed key, or nil for a computed one: a bare
// name or a string gives a string key, an int literal (with its sign) an
// int key; a float literal is an error here rather than when it runs.
func (f *recordField) key() (key *string, intKey bool, err error) {
	k := f.Key
	neg := false
	if u, ok := k.(*ast.UnaryExpr); ok && u.Op == "-" {
		if n, ok := u.X.(*ast.NumberLit); ok {
			k, neg = n, true
		}
	}
	switch k := k.(type) {
	case *ast.Ident:
		return &k.Name, false, nil
	case *ast.StringLit:
		return &k.Value, false, nil
	case *ast.NumberLit:
		if !k.IsInt {
			return nil, false, &synError{Pos: f.Key.Span(), Msg: fmt.Sprintf("record keys are names, strings or ints, not the float %s", k.Raw)}
		}
		n := k.Int
		if neg {
			n = -n
		}
		text := strconv.FormatInt(n, 10)
		return &text, true, nil
	}
	return nil, false, nil
}

func convertArgs(c *callSuffix, toks []lexer.Token) ([]*ast.Arg, error) {
	if c.Comp != nil {
		// f(x for x in xs): a generator expression, evaluated as the list.
		if c.First.Value != nil {
			return nil, errorAt(c.Comp.Pos, "a generator expression as a keyword argument needs brackets: k=[x for x in xs]")
		}
		if len(c.Rest) > 0 {
			return nil, errorAt(c.Rest[0].Pos, "a generator expression must be the only argument; put it in brackets: f([x for x in xs], y)")
		}
		x, err := convertComprehension(&listLit{Pos: c.First.Pos, First: c.First.X, Comp: c.Comp}, toks)
		if err != nil {
			return nil, err
		}
		return []*ast.Arg{{At: posOf(c.First.Pos), Value: x}}, nil
	}
	var raw []*arg
	if c.First != nil {
		raw = append(raw, c.First)
	}
	for i, t := range c.Rest {
		if t.Arg == nil {
			if err := emptyTail(c.Rest, i, "argument"); err != nil {
				return nil, err
			}
			continue
		}
		raw = append(raw, t.Arg)
	}
	args := []*ast.Arg{}
	seen := map[string]bool{}
	var keyword *ast.Arg
	for _, a := range raw {
		if a.Value == nil {
			// A spread may follow keywords, as in Python: a *spread's
			// values still bind the positional parameters.
			if _, spread := a.X.(*ast.StarExpr); keyword != nil && !spread {
				return nil, errorAt(a.Pos, "positional argument after keyword argument %s=", keyword.Name)
			}
			args = append(args, &ast.Arg{At: posOf(a.Pos), Value: a.X})
			continue
		}
		name, ok := a.X.(*ast.Ident)
		if !ok {
			return nil, errorAt(a.Pos, "keyword argument name must be a plain name (write name=value)")
		}
		if seen[name.Name] {
			return nil, &synError{Pos: name.At, Msg: fmt.Sprintf("keyword argument %s repeated", name.Name)}
		}
		seen[name.Name] = true
		keyword = &ast.Arg{At: name.At, Name: name.Name, Value: a.Value}
		args = append(args, keyword)
	}
	return args, nil
}

func convertIndices(s *indexSuffix) ([]ast.Expr, error) {
	items := []*index{s.First}
	if s.First == nil {
		items = nil
	}
	for i, t := range s.Rest {
		if t.Index == nil || t.Index.empty() {
			if err := emptyTail(s.Rest, i, "index"); err != nil {
				return nil, err
			}
			continue
		}
		items = append(items, t.Index)
	}
	if len(items) == 0 || items[0].empty() {
		pos := s.End.Pos
		tok := "]"
		if len(s.Rest) > 0 {
			pos, tok = s.Rest[0].Pos, ","
		}
		return nil, expectedFound(pos, "index", tok)
	}
	out := make([]ast.Expr, 0, len(items))
	for _, ix := range items {
		if ix.Ellipsis {
			switch {
			case ix.Lo != nil:
				return nil, &synError{Pos: ix.Lo.Span(), Msg: "expected ',' or ']' after '...'"}
			case ix.Slice != nil:
				return nil, expectedFound(ix.Slice.Pos, "',' or ']' after '...'", ":")
			}
			out = append(out, &ast.SliceExpr{At: posOf(ix.Pos), Ellipsis: true})
			continue
		}
		if ix.Slice == nil {
			out = append(out, ix.Lo)
			continue
		}
		at := posOf(ix.Slice.Pos)
		if ix.Lo != nil {
			at = ix.Lo.Span()
		}
		out = append(out, &ast.SliceExpr{At: at, Lo: ix.Lo, Hi: ix.Slice.Hi, Step: ix.Slice.Step})
	}
	return out, nil
}

// empty reports an index with no expression and no colon; the grammar lets
// it through so that "[" "]" and "[,]" get a precise error here.
func (ix *index) empty() bool { return !ix.Ellipsis && ix.Lo == nil && ix.Slice == nil }

func convertParams(ps *params) ([]*ast.Param, error) {
	var raw []*param
	if ps.First != nil {
		raw = append(raw, ps.First)
	}
	for i, t := range ps.Rest {
		if t.Param == nil {
			if err := emptyTail(ps.Rest, i, "parameter name"); err != nil {
				return nil, err
			}
			continue
		}
		raw = append(raw, t.Param)
	}
	out := []*ast.Param{}
	seen := map[string]bool{}
	var withDefault, star, starStar *param
	for _, p := range raw {
		if starStar != nil {
			return nil, errorAt(p.Pos, "parameter %s follows **%s, which must be the last", p.describe(), starStar.Name.Value)
		}
		name := p.Name.Value
		if name == "" && p.Star != "*" {
			return nil, errorAt(p.Pos, "** must be followed by a parameter name (**kwargs)")
		}
		if name != "" && seen[name] {
			return nil, errorAt(p.Pos, "duplicate parameter %s", name)
		}
		seen[name] = true
		kind := ast.Positional
		switch {
		case p.Star != "" && star != nil && p.Star == "*":
			return nil, errorAt(p.Pos, "a second * parameter (%s already gathers the extra positional arguments)", star.describe())
		case p.Star != "" && p.Default != nil:
			return nil, errorAt(p.Pos, "%s cannot have a default (it is an empty %s when not given)", p.describe(), map[string]string{"*": "list", "**": "record"}[p.Star])
		case p.Star == "*":
			star = p
			if name == "" {
				continue // a bare *: what follows is keyword-only
			}
			kind = ast.VarArgs
		case p.Star == "**":
			starStar = p
			kind = ast.VarKeywords
		case star != nil:
			kind = ast.KeywordOnly
		case p.Default != nil:
			withDefault = p
		case withDefault != nil:
			return nil, errorAt(p.Pos, "parameter %s without a default follows parameter %s with one", name, withDefault.Name.Value)
		}
		out = append(out, &ast.Param{Name: ident(p.Name), Default: p.Default, Kind: kind})
	}
	if star != nil && star.Name.Value == "" && !hasKeywordOnly(out) {
		return nil, errorAt(star.Pos, "a bare * must be followed by a keyword-only parameter")
	}
	return out, nil
}

func hasKeywordOnly(ps []*ast.Param) bool {
	for _, p := range ps {
		if p.Kind == ast.KeywordOnly {
			return true
		}
	}
	return false
}

// describe is the parameter as written, stars included ("*args").
func (p *param) describe() string {
	if p.Name.Value == "" {
		return p.Star
	}
	return p.Star + p.Name.Value
}

func ident(t lexer.Token) *ast.Ident {
	return &ast.Ident{At: posOf(t.Pos), Name: t.Value}
}

// converter converts statements, collecting errors.
type converter struct {
	repl  bool
	toks  []lexer.Token // the source, for what precedes a statement
	depth int           // block nesting: 0 at the top level
	errs  errorList
	// after holds the statements a nested unpacking (let a, [b, c] = v)
	// adds after the one being converted; unpacked counts its hidden
	// names.
	after    []ast.Stmt
	unpacked int
}

func (c *converter) errorf(pos ast.Pos, format string, args ...any) {
	c.errs.add(pos, fmt.Sprintf(format, args...))
}

func (c *converter) stmts(in []stmt) []ast.Stmt {
	out := make([]ast.Stmt, 0, len(in))
	for _, s := range in {
		if st := c.stmt(s); st != nil {
			out = append(out, st)
		}
		out = append(out, c.after...)
		c.after = nil
	}
	return out
}

func (c *converter) block(b *block) *ast.Block {
	c.depth++
	defer func() { c.depth-- }()
	return &ast.Block{At: posOf(b.Pos), Stmts: c.stmts(b.Stmts)}
}

func (c *converter) stmt(s stmt) ast.Stmt {
	switch s := s.(type) {
	case *emptyStmt:
		return nil
	case *letStmt:
		value := valueList(s.Value, s.Values)
		if list, ok := c.targets(s.Bind); ok {
			if list == nil {
				return nil
			}
			return c.unpack(posOf(s.Pos), true, list, value)
		}
		return &ast.LetStmt{At: posOf(s.Pos), Name: ident(s.Bind.Name), Value: c.popped(s.Bind.Name.Value, value)}
	case *fnStmt:
		ps, err := convertParams(s.Params)
		if err != nil {
			c.errs = append(c.errs, err.(*synError))
			return nil
		}
		fn := &ast.FnExpr{At: posOf(s.Pos), Name: s.Name.Value, Params: ps, Body: c.block(s.Body)}
		return &ast.FnStmt{At: posOf(s.Pos), Name: ident(s.Name), Fn: fn}
	case *returnStmt:
		var value ast.Expr
		if s.Value != nil {
			value = valueList(s.Value, s.Values)
		}
		return &ast.ReturnStmt{At: posOf(s.Pos), Value: value}
	case *ifStmt:
		return c.ifStmt(s)
	case *forStmt:
		if s.Bind.unpacks() {
			return c.forUnpack(s)
		}
		return &ast.ForStmt{At: posOf(s.Pos), Var: ident(s.Bind.Name), Iter: s.Iter, Body: c.block(s.Body)}
	case *whileStmt:
		return &ast.WhileStmt{At: posOf(s.Pos), Cond: s.Cond, Body: c.block(s.Body)}
	case *breakStmt:
		return &ast.BranchStmt{At: posOf(s.Pos), Keyword: s.Keyword}
	case *continueStmt:
		return &ast.BranchStmt{At: posOf(s.Pos), Keyword: s.Keyword}
	case *testStmt:
		if c.depth > 0 {
			c.errorf(posOf(s.Pos), "test blocks are allowed only at the top level of a file")
		}
		name, err := unquote(s.Name)
		if err != nil {
			c.errs = append(c.errs, err)
		}
		return &ast.TestStmt{At: posOf(s.Pos), Name: name, Body: c.block(s.Body)}
	case *assertStmt:
		return &ast.AssertStmt{At: posOf(s.Pos), Cond: s.Cond, Msg: s.Msg}
	case *importStmt:
		return c.importStmt(s)
	case *delStmt:
		return &ast.DelStmt{At: posOf(s.Pos), Name: ident(s.Name)}
	case *block:
		return c.block(s)
	case *simpleStmt:
		return c.simpleStmt(s)
	}
	panic(fmt.Sprintf("parser: statement %T not converted", s))
}

func (c *converter) ifStmt(s *ifStmt) *ast.IfStmt {
	out := &ast.IfStmt{At: posOf(s.Pos), Cond: s.Cond, Then: c.block(s.Then)}
	switch e := s.Else.(type) {
	case *ifStmt:
		out.Else = c.ifStmt(e)
	case *block:
		out.Else = c.block(e)
	}
	return out
}

func (c *converter) importStmt(s *importStmt) ast.Stmt {
	p, err := unquote(s.Path)
	if err != nil {
		c.errs = append(c.errs, err)
		return nil
	}
	if c.depth > 0 {
		c.errorf(posOf(s.Pos), "import is allowed only at the top level of a file")
	}
	if p == "" {
		c.errorf(posOf(s.Path.Pos), "import path is empty")
		return nil
	}
	if s.Alias.Value != "" {
		return &ast.ImportStmt{At: posOf(s.Pos), Path: p, Name: ident(s.Alias)}
	}
	stem := path.Base(strings.ReplaceAll(p, `\`, "/"))
	stem = strings.TrimSuffix(stem, path.Ext(stem))
	if !isIdent(stem) {
		c.errorf(posOf(s.Path.Pos), "import %q: file stem %q is not a valid name; add `as name`", p, stem)
		return nil
	}
	return &ast.ImportStmt{At: posOf(s.Pos), Path: p, Name: &ast.Ident{At: posOf(s.Path.Pos), Name: stem}}
}

// IsIdent reports whether s can be written as a name: an identifier that
// is not a keyword. Printing uses it to decide which record keys need
// quotes.
func IsIdent(s string) bool { return isIdent(s) }

// isIdent reports whether s is an identifier and not a keyword.
func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		ch := s[i]
		letter := ch == '_' || ('a' <= ch && ch <= 'z') || ('A' <= ch && ch <= 'Z')
		if !letter && (i == 0 || !isDigit(ch)) {
			return false
		}
	}
	for _, k := range keywords {
		if s == k {
			return false
		}
	}
	return true
}

func (c *converter) simpleStmt(s *simpleStmt) ast.Stmt {
	if len(s.More) > 0 {
		// a, b = v (or = v, w): Python's tuple assignment unpacks.
		if s.Op != "=" {
			at := posOf(s.Pos)
			if s.Op != "" {
				c.errorf(at, "%s cannot unpack; only = assigns to several names", s.Op)
			} else {
				c.errorf(at, "a list of expressions is not a statement; write [a, b] for a list, or a, b = ... to assign")
			}
			return nil
		}
		list := &ast.ListExpr{At: s.X.Span(), Elems: append([]ast.Expr{s.X}, s.More...)}
		return c.unpack(posOf(s.Pos), false, list, valueList(s.Value, s.Values))
	}
	if len(s.Values) > 0 {
		if s.Op != "=" {
			c.errorf(posOf(s.Pos), "%s takes one value, not a list of them", s.Op)
			return nil
		}
		s.Value = valueList(s.Value, s.Values)
	}
	if s.Op != "" {
		if list, ok := s.X.(*ast.ListExpr); ok {
			if s.Op != "=" {
				c.errorf(posOf(s.Pos), "%s cannot unpack; only = assigns to a list of names", s.Op)
				return nil
			}
			return c.unpack(posOf(s.Pos), false, list, s.Value)
		}
		target, ok := s.X.(*ast.Ident)
		if ix, isIndex := s.X.(*ast.IndexExpr); isIndex && s.Op == "=" && ix.At.Line > s.Pos.Line {
			// "print(a)" then a line "[a, b] = v": the bracket continues
			// the line above.
			c.errorf(ix.At, "a line starting with [ continues the expression above; to unpack into names, put ; before the [")
			return nil
		}
		if call, isCall := s.X.(*ast.CallExpr); isCall && s.Op == "=" && call.At.Line > s.Pos.Line {
			// "print(a)" then a line "(a, b) = v": the parenthesis makes
			// a call of the line above.
			c.errorf(call.At, "a line starting with ( continues the expression above as a call; to unpack into names, write a, b = ... or put ; before the (")
			return nil
		}
		if ix, isIndex := s.X.(*ast.IndexExpr); isIndex && !ok {
			return c.indexAssign(posOf(s.Pos), ix, s.Op, s.Value)
		}
		if f, isField := s.X.(*ast.FieldExpr); isField {
			// r.key = v is r["key"] = v.
			ix := &ast.IndexExpr{At: f.At, X: f.X, Indices: []ast.Expr{&ast.StringLit{At: f.At, Value: f.Name}}}
			return c.indexAssign(posOf(s.Pos), ix, s.Op, s.Value)
		}
		if !ok {
			c.errorf(posOf(s.Pos), "cannot assign to %s; only a plain name or name[...] can be assigned", describeExpr(s.X))
			return nil
		}
		value := s.Value
		if s.Op == "=" {
			value = c.popped(target.Name, value)
		}
		return &ast.AssignStmt{At: posOf(s.Pos), Target: target, Op: s.Op, Value: value}
	}
	_, isCall := s.X.(*ast.CallExpr)
	if i := tokenAt(c.toks, posOf(s.Pos)); !isCall && i > 0 && i < len(c.toks) {
		// "let y = 1 2": a bare expression right after a statement on the
		// same line is more likely a missing operator than a statement.
		if prev := c.toks[i-1]; prev.Pos.Line == s.Pos.Line && prev.Value != ";" && prev.Value != "{" {
			c.errorf(posOf(s.Pos), "unexpected %s at end of statement", describe(c.toks[i]))
			return nil
		}
	}
	if !isCall && !c.repl {
		hint := "; did you mean `let x = ...`?"
		if b, ok := s.X.(*ast.BinaryExpr); ok && b.Op == "==" {
			if id, ok := b.X.(*ast.Ident); ok {
				hint = fmt.Sprintf("; did you mean `%s = ...`?", id.Name)
			}
		}
		e := &synError{Pos: posOf(s.Pos), Msg: "expression statement must be a call", hints: []string{hint}, guess: true}
		c.errs = append(c.errs, e)
		return nil
	}
	if m := mutation(s.X); m != nil {
		return &ast.AssignStmt{At: posOf(s.Pos), Target: &ast.Ident{At: m.Recv().At, Name: m.Recv().Name}, Op: "=", Value: m}
	}
	return &ast.ExprStmt{At: posOf(s.Pos), X: s.X}
}

// popped handles `name = xs.pop(i)` (and let): Python's pop both
// returns a value and changes xs, which tref does as the value xs[i]
// (xs[-1] without i; on a record, r[key]), then the statement
// xs.pop(i), queued in c.after. Only an index that reads the same twice
// (a literal or a name) qualifies; any other value is returned as it is.
func (c *converter) popped(name string, value ast.Expr) ast.Expr {
	call, ok := value.(*ast.CallExpr)
	if !ok || len(call.Args) > 1 {
		return value
	}
	f, ok := call.Fn.(*ast.FieldExpr)
	if !ok || f.Name != "pop" {
		return value
	}
	recv, ok := f.X.(*ast.Ident)
	if !ok || recv.Name == name {
		return value
	}
	var index ast.Expr = &ast.UnaryExpr{At: call.At, Op: "-", X: &ast.NumberLit{At: call.At, Raw: "1", IsInt: true, Int: 1}}
	if len(call.Args) == 1 {
		a := call.Args[0]
		if a.Name != "" || !rereadable(a.Value) {
			return value
		}
		index = a.Value
	}
	read := &ast.IndexExpr{At: call.At, X: &ast.Ident{At: recv.At, Name: recv.Name}, Indices: []ast.Expr{index}}
	m := &ast.MutateExpr{At: call.At, Call: &ast.CallExpr{At: call.At, Fn: &ast.FieldExpr{At: f.At, X: &ast.Ident{At: recv.At, Name: recv.Name}, Name: "pop"}, Args: call.Args}}
	c.after = append(c.after, &ast.AssignStmt{At: call.At, Target: &ast.Ident{At: recv.At, Name: recv.Name}, Op: "=", Value: m})
	return read
}

// rereadable reports whether evaluating x twice gives the same value
// without doing anything: a literal, a name, or a negated number.
func rereadable(x ast.Expr) bool {
	switch x := x.(type) {
	case *ast.NumberLit, *ast.StringLit, *ast.Ident:
		return true
	case *ast.UnaryExpr:
		_, num := x.X.(*ast.NumberLit)
		return x.Op == "-" && num
	}
	return false
}

// mutation is the statement x as an ast.MutateExpr when it is a call of a
// mutator on a plain name, else nil.
func mutation(x ast.Expr) *ast.MutateExpr {
	call, ok := x.(*ast.CallExpr)
	if !ok {
		return nil
	}
	f, ok := call.Fn.(*ast.FieldExpr)
	if !ok || !ast.Mutators[f.Name] {
		return nil
	}
	if _, ok := f.X.(*ast.Ident); !ok {
		return nil
	}
	return &ast.MutateExpr{At: call.At, Call: call}
}

// indexAssign converts `x[...] = v` and `x[...] op= v` into the
// assignment of x's new value to x (ast.IndexSetExpr): x must be a plain
// name, since the statement rebinds it.
func (c *converter) indexAssign(at ast.Pos, ix *ast.IndexExpr, op string, value ast.Expr) ast.Stmt {
	id, ok := ix.X.(*ast.Ident)
	if !ok {
		c.errorf(at, "cannot assign into an index of %s; only name[...] can be assigned (it rebinds the name: bind the part to a name first)", describeExpr(ix.X))
		return nil
	}
	target := &ast.Ident{At: id.At, Name: id.Name}
	return &ast.AssignStmt{At: at, Target: target, Op: "=", Value: &ast.IndexSetExpr{At: ix.At, Index: ix, Op: op, Value: value}}
}

// forUnpack converts `for [a, b] in it { body }` into a loop over a
// variable no script can name whose body starts `let [a, b] = it_value`.
func (c *converter) forUnpack(s *forStmt) ast.Stmt {
	body := c.block(s.Body)
	if body == nil {
		return nil
	}
	return c.forUnpackBody(s, body)
}

// forUnpackBody is forUnpack with the body already converted.
func (c *converter) forUnpackBody(s *forStmt, body *ast.Block) ast.Stmt {
	list, _ := c.targets(s.Bind)
	if list == nil {
		return nil
	}
	hidden := func() *ast.Ident { return &ast.Ident{At: list.At, Name: "[for]"} }
	un, ok := c.unpack(list.At, true, list, hidden()).(*ast.UnpackStmt)
	if !ok {
		return nil
	}
	head := append([]ast.Stmt{un}, c.after...)
	c.after = nil
	body.Stmts = append(head, body.Stmts...)
	return &ast.ForStmt{At: posOf(s.Pos), Var: hidden(), Iter: s.Iter, Body: body}
}

// unpacks says whether b binds several names (a, b or a pattern).
func (b *bindings) unpacks() bool { return b.Pattern != nil || b.Tuple != nil || len(b.More) > 0 }

// patternOf is the [list] or (tuple) pattern of a binding, nil for none.
func patternOf(list *listLit, tuple *parenExpr) primary {
	switch {
	case list != nil:
		return list
	case tuple != nil:
		return tuple
	}
	return nil
}

// pattern converts a [list] or (tuple) of names to unpack into.
func (c *converter) pattern(p primary) *ast.ListExpr {
	x, err := convertPrimary(p, c.toks)
	if err != nil {
		c.errs = append(c.errs, err.(*synError))
		return nil
	}
	list, ok := x.(*ast.ListExpr)
	if !ok {
		if _, paren := p.(*parenExpr); paren {
			c.errorf(x.Span(), "cannot unpack into (name) without a comma; write the name alone, or (a, b)")
		} else {
			c.errorf(x.Span(), "cannot unpack into a list comprehension; write the names between [ and ]")
		}
		return nil
	}
	return list
}

// targets reads the names a let or a for binds when they are several:
// written a, b (name and more; a later one may be a [list] to unpack
// further) or [a, b] (pattern). unpacking is false for one plain name;
// list is nil after an error (recorded in c).
func (c *converter) targets(b *bindings) (list *ast.ListExpr, unpacking bool) {
	if !b.unpacks() {
		return nil, false
	}
	if p := patternOf(b.Pattern, b.Tuple); p != nil {
		return c.pattern(p), true
	}
	list = &ast.ListExpr{At: posOf(b.Name.Pos), Elems: []ast.Expr{ident(b.Name)}}
	for _, t := range b.More {
		p := patternOf(t.List, t.Tuple)
		if p == nil {
			list.Elems = append(list.Elems, ident(t.Name))
			continue
		}
		x := c.pattern(p)
		if x == nil {
			return nil, true
		}
		list.Elems = append(list.Elems, x)
	}
	return list, true
}

// valueList is the value of `= v` or, for `= v, w, ...` (Python's tuple),
// the list [v, w, ...].
func valueList(v ast.Expr, more []ast.Expr) ast.Expr {
	if len(more) == 0 {
		return v
	}
	return &ast.ListExpr{At: v.Span(), Elems: append([]ast.Expr{v}, more...)}
}

// describeExpr names the kind of an expression for messages.
func describeExpr(x ast.Expr) string {
	switch x.(type) {
	case *ast.IndexExpr:
		return "an index expression"
	case *ast.FieldExpr:
		return "a field"
	case *ast.CallExpr:
		return "a call"
	case *ast.NumberLit, *ast.StringLit, *ast.BoolLit, *ast.NoneLit, *ast.FStringExpr:
		return "a literal"
	case *ast.ParenExpr:
		return "a parenthesized expression"
	}
	return "an expression"
}

// unpack converts `let [a, b] = v` and `[a, b] = v`: the list must hold
// at least one name and nothing but distinct plain names.
func (c *converter) unpack(at ast.Pos, let bool, list *ast.ListExpr, value ast.Expr) ast.Stmt {
	if len(list.Elems) == 0 {
		c.errorf(list.At, "nothing to unpack into: write at least one name between [ and ]")
		return nil
	}
	names := make([]*ast.Ident, len(list.Elems))
	seen := map[string]bool{}
	var nested []ast.Stmt
	for i, e := range list.Elems {
		if inner, ok := e.(*ast.ListExpr); ok {
			// let a, [b, c] = v: a hidden name takes the item, which a
			// statement after this one unpacks in turn.
			if !let {
				c.errorf(inner.At, "a nested [...] unpacks only in let and for; write let, or unpack the item in a second statement")
				return nil
			}
			c.unpacked++
			hidden := &ast.Ident{At: inner.At, Name: fmt.Sprintf("[unpack %d]", c.unpacked)}
			names[i] = hidden
			if st := c.unpack(inner.At, true, inner, &ast.Ident{At: inner.At, Name: hidden.Name}); st != nil {
				nested = append(append(nested, st), c.after...)
				c.after = nil
			} else {
				return nil
			}
			continue
		}
		id, ok := e.(*ast.Ident)
		if !ok {
			c.errorf(e.Span(), "cannot unpack into %s; only plain names can be unpacked into", describeExpr(e))
			return nil
		}
		if seen[id.Name] {
			c.errorf(id.At, "%s appears twice in the names to unpack into", id.Name)
			return nil
		}
		seen[id.Name] = true
		names[i] = id
	}
	c.after = append(c.after, nested...)
	return &ast.UnpackStmt{At: at, Let: let, Names: names, Value: value}
}
