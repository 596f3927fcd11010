package parser

import (
	"fmt"
	"math"
	"strings"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/tref-lang/tref/lang/ast"
)

// The participle grammar. Each struct is one production and its tags are
// the grammar (spec/grammar.ebnf is printed from them); convert.go turns
// the result into lang/ast. Expressions (the ast.Expr fields) are parsed by
// precedence climbing in expr.go, whose operands are the operand
// production below. The interfaces stmt, primary and postfix are unions
// whose member the first token chooses (union, at the end).
//
// The parsers run with no lookahead: once a production has consumed a
// token it is committed, so an error is reported at the first token that
// does not fit rather than after backtracking. Comma-separated lists are
// written LL(1)-style as a first item and "," tails whose item is
// optional (allowing a trailing comma); convert.go rejects an empty tail
// that is followed by another.

type file struct {
	Stmts []stmt `parser:"@@*"`
}

type stmt interface{ stmtNode() }

type emptyStmt struct {
	Semi string `parser:"@';'"`
}

// letStmt binds one name or, with a list of names, unpacks a list or a
// positional result (convert.go checks that the list holds plain names).
type letStmt struct {
	Pos    lexer.Position
	Bind   *bindings  `parser:"'let' @@"`
	Value  ast.Expr   `parser:"'=' @@"`
	Values []ast.Expr `parser:"( ',' @@ )*"`
}

// bindings are the names a let or a for binds: one name, a, b, ... (a
// later one may be a [list] to unpack further), or a [list] pattern.
type bindings struct {
	Pos     lexer.Position
	Name    lexer.Token `parser:"( @Ident"`
	More    []*target   `parser:"( ',' @@ )*"`
	Pattern *listLit    `parser:"| @@"`
	Tuple   *parenExpr  `parser:"| @@ )"`
}

type fnStmt struct {
	Pos    lexer.Position
	Name   lexer.Token `parser:"'fn' @Ident"`
	Params *params     `parser:"@@"`
	Body   *block      `parser:"@@"`
}

type returnStmt struct {
	Pos    lexer.Position
	Value  ast.Expr   `parser:"'return' ( @@"`
	Values []ast.Expr `parser:"( ',' @@ )* )?"`
}

type ifStmt struct {
	Pos  lexer.Position
	Cond ast.Expr   `parser:"'if' @@"`
	Then *block     `parser:"@@"`
	Else elseBranch `parser:"( 'else' @@ )?"`
}

// elseBranch is what follows else: an ifStmt or a block. It is a union
// (like stmt) rather than a nested group so that a chain of else-ifs goes
// through union.parse, which bounds how deeply participle recurses.
type elseBranch interface{ elseNode() }

func (*ifStmt) elseNode() {}
func (*block) elseNode()  {}

type forStmt struct {
	Pos  lexer.Position
	Bind *bindings `parser:"'for' @@"`
	Iter ast.Expr  `parser:"'in' @@"`
	Body *block    `parser:"@@"`
}

type whileStmt struct {
	Pos  lexer.Position
	Cond ast.Expr `parser:"'while' @@"`
	Body *block   `parser:"@@"`
}

type breakStmt struct {
	Pos     lexer.Position
	Keyword string `parser:"@'break'"`
}

type continueStmt struct {
	Pos     lexer.Position
	Keyword string `parser:"@'continue'"`
}

type testStmt struct {
	Pos  lexer.Position
	Name lexer.Token `parser:"'test' @String"`
	Body *block      `parser:"@@"`
}

type assertStmt struct {
	Pos  lexer.Position
	Cond ast.Expr `parser:"'assert' @@"`
	Msg  ast.Expr `parser:"( ',' @@ )?"`
}

type importStmt struct {
	Pos   lexer.Position
	Path  lexer.Token `parser:"'import' @String"`
	Alias lexer.Token `parser:"( 'as' @Ident )?"`
}

type delStmt struct {
	Pos  lexer.Position
	Name lexer.Token `parser:"'del' @Ident"`
}

// simpleStmt is an assignment or an expression statement: the target of
// an assignment is parsed as an expression and checked to be a name.
// target is a name after the first of let a, b = ... and for a, b in
// ...: a name, or a [list] or (tuple) of them to unpack further.
type target struct {
	Pos   lexer.Position
	Name  lexer.Token `parser:"( @Ident"`
	List  *listLit    `parser:"| @@"`
	Tuple *parenExpr  `parser:"| @@ )"`
}

type simpleStmt struct {
	Pos    lexer.Position
	X      ast.Expr   `parser:"@@"`
	More   []ast.Expr `parser:"( ',' @@ )*"`
	Op     string     `parser:"( @( '=' | '+=' | '-=' | '*=' | '/=' | '//=' | '%=' | '**=' | '@=' )"`
	Value  ast.Expr   `parser:"@@"`
	Values []ast.Expr `parser:"( ',' @@ )* )?"`
}

type block struct {
	Pos   lexer.Position
	Stmts []stmt      `parser:"'{' @@*"`
	End   lexer.Token `parser:"@'}'"`
}

// params is a parameter list, shared by fn statements and lambdas.
type params struct {
	Pos   lexer.Position
	First *param       `parser:"'(' ( @@"`
	Rest  []*paramTail `parser:"@@* )?"`
	End   lexer.Token  `parser:"@')'"`
}

// param is `name`, `name=default`, `*name` (or a bare `*`) or `**name`.
type param struct {
	Pos     lexer.Position
	Star    string      `parser:"( @( '*' | '**' )"`
	Name    lexer.Token `parser:"  @Ident? | @Ident )"`
	Default ast.Expr    `parser:"( '=' @@ )?"`
}

type paramTail struct {
	Pos   lexer.Position
	Param *param `parser:"',' @@?"`
}

func (*emptyStmt) stmtNode()    {}
func (*letStmt) stmtNode()      {}
func (*fnStmt) stmtNode()       {}
func (*returnStmt) stmtNode()   {}
func (*ifStmt) stmtNode()       {}
func (*forStmt) stmtNode()      {}
func (*whileStmt) stmtNode()    {}
func (*breakStmt) stmtNode()    {}
func (*continueStmt) stmtNode() {}
func (*testStmt) stmtNode()     {}
func (*assertStmt) stmtNode()   {}
func (*importStmt) stmtNode()   {}
func (*delStmt) stmtNode()      {}
func (*block) stmtNode()        {}
func (*simpleStmt) stmtNode()   {}

// operand is a primary expression followed by calls, indexing and field
// selections: the operand of the operators in expr.go.
type operand struct {
	Pos     lexer.Position
	Primary primary   `parser:"@@"`
	Postfix []postfix `parser:"@@*"`
}

type primary interface{ primaryNode() }

type numberLit struct {
	Tok lexer.Token `parser:"@Number"`
}

type stringLit struct {
	Tok lexer.Token `parser:"@String"`
}

type boolLit struct {
	Pos   lexer.Position
	Value string `parser:"@( 'true' | 'false' | 'True' | 'False' )"`
}

type noneLit struct {
	Pos  lexer.Position
	None string `parser:"@( 'none' | 'None' )"`
}

type identExpr struct {
	Tok lexer.Token `parser:"@Ident"`
}

type listLit struct {
	Pos   lexer.Position
	First ast.Expr       `parser:"'[' ( @@"`
	Comp  *comprehension `parser:"( @@"`
	Rest  exprTails      `parser:"| @@ )? )?"`
	End   lexer.Token    `parser:"@']'"`
}

// comprehension is the `for x in xs if cond` of `[f(x) for x in xs if
// cond]`.
type comprehension struct {
	Pos  lexer.Position
	Bind *bindings `parser:"'for' @@"`
	Iter ast.Expr  `parser:"'in' @@"`
	Cond ast.Expr  `parser:"( 'if' @@ )?"`
}

// exprTails are the `, element` tails of a list literal: a list of data
// may have millions, so they are read by a loop of their own
// (parseExprTails) rather than a participle repetition, which keeps a
// branch, two structs and a deferred capture per element.
type exprTails interface{ exprTailsNode() }

type exprTailList []*exprTail

func (exprTailList) exprTailsNode() {}

// exprTail is one `, element`; X is nil for a trailing comma.
type exprTail struct {
	Pos lexer.Position
	X   ast.Expr
}

// exprTailsEBNF is the production parseExprTails reads.
const exprTailsEBNF = `ExprTails = ("," Expr?)+ .`

// parseExprTails is the participle parser for exprTails.
func parseExprTails(lex *lexer.PeekingLexer) (exprTails, error) {
	var out exprTailList
	for t := lex.Peek(); t.Type == tokOp && t.Value == ","; t = lex.Peek() {
		lex.Next()
		tail := &exprTail{Pos: t.Pos}
		if startsExpr(lex.Peek()) {
			x, err := parseExpr(lex)
			if err != nil {
				return nil, err
			}
			tail.X = x
		}
		out = append(out, tail)
	}
	if len(out) == 0 {
		return nil, participle.NextMatch
	}
	return out, nil
}

type recordLit struct {
	Pos   lexer.Position
	First *recordField   `parser:"'{' ( @@"`
	Comp  *comprehension `parser:"( @@"`
	Rest  []*fieldTail   `parser:"| @@+ )? )?"`
	End   lexer.Token    `parser:"@'}'"`
}

// recordField is `**r` or `key: value`, the key an expression that
// convertRecord reads: a bare name, a string or an int literal is a
// fixed key, anything else is computed.
type recordField struct {
	Pos    lexer.Position
	Spread ast.Expr `parser:"( '**' @@"`
	Key    ast.Expr `parser:"| @@"`
	Value  ast.Expr `parser:"':' @@ )"`
}

type fieldTail struct {
	Pos   lexer.Position
	Field *recordField `parser:"',' @@?"`
}

type fnLit struct {
	Pos    lexer.Position
	Params *params  `parser:"'fn' @@"`
	Arrow  ast.Expr `parser:"( '=>' @@"`
	Body   *block   `parser:"| @@ )"`
}

// parenExpr is (x); a tuple (a, b), (a,) or (), which tref makes the
// list [a, b]; or a generator expression (x for x in xs), the list too.
type parenExpr struct {
	Pos  lexer.Position
	X    ast.Expr       `parser:"'(' ( @@"`
	Comp *comprehension `parser:"( @@"`
	Rest exprTails      `parser:"| @@ )? )?"`
	End  lexer.Token    `parser:"@')'"`
}

func (*numberLit) primaryNode() {}
func (*stringLit) primaryNode() {}
func (*boolLit) primaryNode()   {}
func (*noneLit) primaryNode()   {}
func (*identExpr) primaryNode() {}
func (*listLit) primaryNode()   {}
func (*recordLit) primaryNode() {}
func (*fnLit) primaryNode()     {}
func (*parenExpr) primaryNode() {}

type postfix interface{ postfixNode() }

// callSuffix is a call's arguments; a sole argument may be a generator
// expression, f(x for x in xs), which tref evaluates as the list.
type callSuffix struct {
	Pos   lexer.Position
	First *arg           `parser:"'(' ( @@"`
	Comp  *comprehension `parser:"@@?"`
	Rest  []*argTail     `parser:"@@* )?"`
	End   lexer.Token    `parser:"@')'"`
}

// arg is `value` or `name = value`; the name is parsed as an expression
// and checked to be a plain identifier.
type arg struct {
	Pos   lexer.Position
	X     ast.Expr `parser:"@@"`
	Value ast.Expr `parser:"( '=' @@ )?"`
}

type argTail struct {
	Pos lexer.Position
	Arg *arg `parser:"',' @@?"`
}

type indexSuffix struct {
	Pos   lexer.Position
	First *index       `parser:"'[' ( @@"`
	Rest  []*indexTail `parser:"@@* )?"`
	End   lexer.Token  `parser:"@']'"`
}

// index is `expr`, `...` (every dimension not indexed otherwise), or a
// slice `lo:hi:step` with every part optional; convert.go rejects an index
// with none of them, and `...` followed by anything.
type index struct {
	Pos      lexer.Position
	Ellipsis bool       `parser:"@'...'?"`
	Lo       ast.Expr   `parser:"@@?"`
	Slice    *sliceTail `parser:"@@?"`
}

type sliceTail struct {
	Pos       lexer.Position
	Hi        ast.Expr `parser:"':' @@?"`
	StepColon string   `parser:"( @':'"`
	Step      ast.Expr `parser:"@@? )?"`
}

type indexTail struct {
	Pos   lexer.Position
	Index *index `parser:"',' @@?"`
}

type fieldSuffix struct {
	Pos  lexer.Position
	Name lexer.Token `parser:"'.' @Ident"`
}

func (*callSuffix) postfixNode()  {}
func (*indexSuffix) postfixNode() {}
func (*fieldSuffix) postfixNode() {}

var (
	fileParser    *participle.Parser[file]
	operandParser *participle.Parser[operand]
	stmts         = &union[stmt]{name: "Stmt", what: "statement"}
	primaries     = &union[primary]{name: "Primary", what: "expression"}
	postfixes     = &union[postfix]{name: "Postfix", what: "expression", chain: true}
	elses         = &union[elseBranch]{name: "ElseBranch", what: "statement"}
)

// union parses the productions of an interface type, choosing the member
// by the token that starts it. participle's Union would try each member
// in turn, allocating a branch of the parse and a struct for every one
// that fails: at every statement, and three times at the end of every
// operand. Members are listed in the order spec/grammar.ebnf prints them.
type union[I any] struct {
	name string
	what string // "statement" or "expression", for errors
	// chain is set for postfixes: they are read in a loop, each one level
	// more of the tree, and counted in parseState.chain.
	chain   bool
	byToken map[string]func(*lexer.PeekingLexer) (I, error)
	members []fmt.Stringer
	// other parses what no token names, where startsOther says it can
	// start (SimpleStmt).
	other       func(*lexer.PeekingLexer) (I, error)
	startsOther func(*lexer.PeekingLexer) bool
}

// tokenKey is how union finds a member by its first token: the value of
// an operator or keyword, the token type of the others.
func tokenKey(t *lexer.Token) string {
	switch t.Type {
	case tokIdent:
		return "<ident>"
	case tokNumber:
		return "<number>"
	case tokString:
		return "<string>"
	case lexer.EOF:
		return ""
	}
	return t.Value
}

// parse is the participle parser of the union's type (ParseTypeWith): it
// answers NextMatch where no member starts, as a Union would.
func (u *union[I]) parse(lex *lexer.PeekingLexer) (I, error) {
	var none I
	p, ok := u.byToken[tokenKey(lex.Peek())]
	if !ok && u.other != nil && u.startsOther(lex) {
		p, ok = u.other, true
	}
	if !ok {
		return none, participle.NextMatch
	}
	st := stateOf(lex)
	st.enter(lex.Peek(), u.what)
	defer st.leave()
	if u.chain {
		if st.chain++; st.chain >= ast.MaxDepth {
			panic(bailout{tooDeep(lex.Peek().Pos, u.what)})
		}
	}
	return p(lex)
}

// grammar prints the union and its members' productions as EBNF.
func (u *union[I]) grammar() string {
	var names, prods []string
	for _, m := range u.members {
		g := m.String()
		name, _, _ := strings.Cut(g, " = ")
		names = append(names, name)
		prods = append(prods, g)
	}
	return u.name + " = " + strings.Join(names, " | ") + " .\n" + strings.Join(prods, "\n")
}

// member builds the parser of T, a member of u that the tokens firsts
// start (none: u.other).
func member[T any, I any](u *union[I], opts []participle.Option, firsts ...string) {
	p := participle.MustBuild[T](opts...)
	parse := func(lex *lexer.PeekingLexer) (I, error) {
		v, err := p.ParseFromLexer(lex, participle.AllowTrailing(true))
		if err != nil {
			var none I
			return none, err
		}
		return any(v).(I), nil
	}
	u.members = append(u.members, p)
	if len(firsts) == 0 {
		u.other = parse
		return
	}
	if u.byToken == nil {
		u.byToken = map[string]func(*lexer.PeekingLexer) (I, error){}
	}
	for _, f := range firsts {
		u.byToken[f] = parse
	}
}

// The parsers are built in init because the unions and parseExpr refer to
// parsers built with them: a package-level initializer would be a cycle.
func init() {
	// participle stops a repetition after a million items with an error;
	// a list literal or a file may hold more (the file's size bounds them).
	participle.MaxIterations = math.MaxInt
	opts := []participle.Option{
		participle.Lexer(lexDef),
		participle.UseLookahead(0),
		participle.ParseTypeWith(stmts.parse),
		participle.ParseTypeWith(primaries.parse),
		participle.ParseTypeWith(postfixes.parse),
		participle.ParseTypeWith(elses.parse),
		participle.ParseTypeWith(parseExpr),
		participle.ParseTypeWith(parseExprTails),
	}
	member[letStmt](stmts, opts, "let")
	member[ifStmt](stmts, opts, "if")
	member[returnStmt](stmts, opts, "return")
	member[forStmt](stmts, opts, "for")
	member[fnStmt](stmts, opts, "fn")
	member[block](stmts, opts, "{")
	member[assertStmt](stmts, opts, "assert")
	member[whileStmt](stmts, opts, "while")
	member[breakStmt](stmts, opts, "break")
	member[continueStmt](stmts, opts, "continue")
	member[testStmt](stmts, opts, "test")
	member[importStmt](stmts, opts, "import")
	member[delStmt](stmts, opts, "del")
	member[emptyStmt](stmts, opts, ";")
	member[simpleStmt](stmts, opts)
	stmts.startsOther = func(lex *lexer.PeekingLexer) bool { return startsExpr(lex.Peek()) }

	member[identExpr](primaries, opts, "<ident>")
	member[numberLit](primaries, opts, "<number>")
	member[stringLit](primaries, opts, "<string>")
	member[parenExpr](primaries, opts, "(")
	member[listLit](primaries, opts, "[")
	member[recordLit](primaries, opts, "{")
	member[fnLit](primaries, opts, "fn")
	member[boolLit](primaries, opts, "true", "false", "True", "False")
	member[noneLit](primaries, opts, "none", "None")

	member[ifStmt](elses, opts, "if")
	member[block](elses, opts, "{")

	member[callSuffix](postfixes, opts, "(")
	member[indexSuffix](postfixes, opts, "[")
	member[fieldSuffix](postfixes, opts, ".")

	fileParser = participle.MustBuild[file](opts...)
	operandParser = participle.MustBuild[operand](opts...)
}
