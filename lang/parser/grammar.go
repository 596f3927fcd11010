package parser

import (
	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/tref-lang/tref/lang/ast"
)

// The participle grammar. Each struct is one production and its tags are
// the grammar (spec/grammar.ebnf is printed from them); convert.go turns
// the result into lang/ast. Expressions (the ast.Expr fields) are parsed by
// precedence climbing in expr.go, whose operands are the operand
// production below.
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

type letStmt struct {
	Pos   lexer.Position
	Name  lexer.Token `parser:"'let' @Ident"`
	Value ast.Expr    `parser:"'=' @@"`
}

type fnStmt struct {
	Pos    lexer.Position
	Name   lexer.Token `parser:"'fn' @Ident"`
	Params *params     `parser:"@@"`
	Body   *block      `parser:"@@"`
}

type returnStmt struct {
	Pos   lexer.Position
	Value ast.Expr `parser:"'return' @@?"`
}

type ifStmt struct {
	Pos    lexer.Position
	Cond   ast.Expr `parser:"'if' @@"`
	Then   *block   `parser:"@@"`
	ElseIf *ifStmt  `parser:"( 'else' ( @@"`
	Else   *block   `parser:"| @@ ) )?"`
}

type forStmt struct {
	Pos  lexer.Position
	Var  lexer.Token `parser:"'for' @Ident"`
	Iter ast.Expr    `parser:"'in' @@"`
	Body *block      `parser:"@@"`
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
type simpleStmt struct {
	Pos   lexer.Position
	X     ast.Expr `parser:"@@"`
	Op    string   `parser:"( @( '=' | '+=' | '-=' | '*=' | '/=' )"`
	Value ast.Expr `parser:"@@ )?"`
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

type param struct {
	Pos     lexer.Position
	Name    lexer.Token `parser:"@Ident"`
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
	Value string `parser:"@( 'true' | 'false' )"`
}

type noneLit struct {
	Pos  lexer.Position
	None string `parser:"@'none'"`
}

type identExpr struct {
	Tok lexer.Token `parser:"@Ident"`
}

type listLit struct {
	Pos   lexer.Position
	First ast.Expr    `parser:"'[' ( @@"`
	Rest  []*exprTail `parser:"@@* )?"`
	End   lexer.Token `parser:"@']'"`
}

type exprTail struct {
	Pos lexer.Position
	X   ast.Expr `parser:"',' @@?"`
}

type recordLit struct {
	Pos   lexer.Position
	First *recordField `parser:"'{' ( @@"`
	Rest  []*fieldTail `parser:"@@* )?"`
	End   lexer.Token  `parser:"@'}'"`
}

type recordField struct {
	Pos   lexer.Position
	Name  lexer.Token `parser:"( @Ident"`
	Str   lexer.Token `parser:"| @String )"`
	Value ast.Expr    `parser:"':' @@"`
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

type parenExpr struct {
	Pos lexer.Position
	X   ast.Expr    `parser:"'(' @@"`
	End lexer.Token `parser:"@')'"`
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

type callSuffix struct {
	Pos   lexer.Position
	First *arg        `parser:"'(' ( @@"`
	Rest  []*argTail  `parser:"@@* )?"`
	End   lexer.Token `parser:"@')'"`
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

// index is `expr`, or a slice `lo:hi:step` with every part optional;
// convert.go rejects an index with neither.
type index struct {
	Pos   lexer.Position
	Lo    ast.Expr   `parser:"@@?"`
	Slice *sliceTail `parser:"@@?"`
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
)

// The parsers are built in init because parseExpr refers to
// operandParser, which is built with parseExpr: a package-level
// initializer would be a cycle.
func init() {
	opts := []participle.Option{
		participle.Lexer(lexDef),
		participle.UseLookahead(0),
		// Members are tried in order, so the frequent come first; each
		// starts with its own token except that Block and FnStmt must
		// precede SimpleStmt, whose expression could begin with '{' or fn.
		participle.Union[stmt](
			&letStmt{}, &ifStmt{}, &returnStmt{}, &forStmt{}, &fnStmt{},
			&block{}, &assertStmt{}, &whileStmt{}, &breakStmt{},
			&continueStmt{}, &testStmt{}, &importStmt{}, &delStmt{},
			&emptyStmt{}, &simpleStmt{}),
		participle.Union[primary](
			&identExpr{}, &numberLit{}, &stringLit{}, &parenExpr{},
			&listLit{}, &recordLit{}, &fnLit{}, &boolLit{}, &noneLit{}),
		participle.Union[postfix](&callSuffix{}, &indexSuffix{}, &fieldSuffix{}),
		participle.ParseTypeWith(parseExpr),
	}
	fileParser = participle.MustBuild[file](opts...)
	operandParser = participle.MustBuild[operand](opts...)
}
