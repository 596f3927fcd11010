// Package ast is the syntax tree of tref scripts: every node keeps the
// position of its first token. The parser builds it; the resolver annotates
// identifiers and functions in place; the evaluator walks it.
package ast

import "github.com/tref-lang/tref/lang/pos"

// Pos is a source position (lang/pos): every node keeps one.
type Pos = pos.Pos

// Node is any syntax node.
type Node interface{ Span() Pos }

// Stmt is a statement node.
type Stmt interface {
	Node
	stmt()
}

// Expr is an expression node.
type Expr interface {
	Node
	expr()
}

// File is a parsed script.
type File struct {
	Path  string
	Stmts []Stmt
	// Scope is filled by the resolver: the file's top-level bindings.
	Scope *Scope
}

// Block is a braced statement list; it opens a scope.
type Block struct {
	At    Pos
	Stmts []Stmt
	Scope *Scope
}

// LetStmt is `let name = value`.
type LetStmt struct {
	At    Pos
	Name  *Ident
	Value Expr
}

// AssignStmt is `name op value` with op one of = += -= *= /= //= %= **= @=.
type AssignStmt struct {
	At     Pos
	Target *Ident
	Op     string
	Value  Expr
}

// UnpackStmt is `let [a, b] = value` (Let set) or `[a, b] = value`: the
// value, a list or a result with positional fields (topk, sort, max over
// a dim), must have exactly as many items as there are names.
type UnpackStmt struct {
	At    Pos
	Let   bool
	Names []*Ident
	Value Expr
}

// FnStmt is a named function declaration.
type FnStmt struct {
	At   Pos
	Name *Ident
	Fn   *FnExpr
}

// ReturnStmt is `return` or `return value` (Value nil when bare).
type ReturnStmt struct {
	At    Pos
	Value Expr
}

// IfStmt is `if cond {then} else ...`; Else is nil, a *Block, or an *IfStmt.
type IfStmt struct {
	At   Pos
	Cond Expr
	Then *Block
	Else Stmt
}

// ForStmt is `for var in iter {body}`.
type ForStmt struct {
	At   Pos
	Var  *Ident
	Iter Expr
	Body *Block
}

// WhileStmt is `while cond {body}`.
type WhileStmt struct {
	At   Pos
	Cond Expr
	Body *Block
}

// BranchStmt is `break` or `continue`.
type BranchStmt struct {
	At      Pos
	Keyword string
}

// TestStmt is `test "name" {body}`.
type TestStmt struct {
	At   Pos
	Name string
	Body *Block
}

// AssertStmt is `assert cond` or `assert cond, message`.
type AssertStmt struct {
	At   Pos
	Cond Expr
	Msg  Expr
}

// ImportStmt is `import "path"` or `import "path" as name`. Name is the
// binding: the alias, or the file's stem.
type ImportStmt struct {
	At   Pos
	Path string
	Name *Ident
}

// DelStmt is `del name`.
type DelStmt struct {
	At   Pos
	Name *Ident
}

// ExprStmt is an expression used as a statement: a call (or, in the REPL,
// any expression).
type ExprStmt struct {
	At Pos
	X  Expr
}

// Ident is a use or a declaration of a name. The resolver fills Binding and
// LastUse.
type Ident struct {
	At   Pos
	Name string
	// Binding is the variable this identifier refers to (nil for builtins,
	// which resolve to Builtin).
	Binding *Binding
	// Builtin is set when the name resolves to the universe.
	Builtin bool
	// LastUse is set on a read after which the variable is dead on every
	// path, so the evaluator moves the value out instead of copying it.
	// On a name being declared or assigned (let, =, op=, fn, for) it means
	// the value stored is never read and is dropped at once.
	LastUse bool
}

// NumberLit is an int or float literal.
type NumberLit struct {
	At    Pos
	Raw   string
	IsInt bool
	Int   int64
	Float float64
}

// StringLit is a string literal, unquoted.
type StringLit struct {
	At    Pos
	Value string
}

// StarExpr is *X, the values of the iterable X spread among a list's
// elements or a call's positional arguments, or (Double) **X, the fields
// of the record X spread among a call's keyword arguments or a record's
// fields. It stands nowhere else.
type StarExpr struct {
	At     Pos
	X      Expr
	Double bool
}

// CondExpr is the conditional expression `Then if Cond else Else`,
// positioned at its `if`.
type CondExpr struct {
	At               Pos
	Cond, Then, Else Expr
}

// FStringExpr is an f-string, f"text {expr:spec} text": its parts in
// order.
type FStringExpr struct {
	At    Pos
	Parts []*FStringPart
}

// FStringPart is one piece of an f-string: the literal Text when X is
// nil, else the value of X written as print writes it (Spec empty) or as
// format(X, Spec) does.
type FStringPart struct {
	Text string
	X    Expr
	Spec string
	// SpecParts, when the spec holds fields of its own ({x:{w}.{p}f}),
	// are its texts and fields in order (each field written as print
	// writes it, no spec of its own), evaluated after X; Spec is then
	// empty.
	SpecParts []*FStringPart
	// Conv is the conversion, "r", "s" or "a" ({x!r}), or "".
	Conv string
}

// BoolLit is true or false.
type BoolLit struct {
	At    Pos
	Value bool
}

// NoneLit is none.
type NoneLit struct{ At Pos }

// ListExpr is [a, b, ...].
type ListExpr struct {
	At    Pos
	Elems []Expr
}

// Field is one `key: value` of a record literal.
type Field struct {
	At  Pos
	Key string
	// IntKey: the key is an int literal, Key its decimal text ({0: "a"}).
	IntKey bool
	// KeyExpr, when set, is a computed key ({f"layer{i}": w,
	// k.upper(): v}), evaluated before Value; Key is then unused.
	KeyExpr Expr
	Value   Expr
	// Spread: the field is `**r`, Value the StarExpr; no key.
	Spread bool
}

// RecordExpr is {key: value, ...}.
type RecordExpr struct {
	At     Pos
	Fields []*Field
}

// Param is a function parameter with an optional default.
type Param struct {
	Name    *Ident
	Default Expr
	Kind    ParamKind
}

// ParamKind says how a call binds a parameter.
type ParamKind uint8

const (
	// Positional binds by position or by keyword.
	Positional ParamKind = iota
	// KeywordOnly follows `*args` or a bare `*`: it binds by keyword only.
	KeywordOnly
	// VarArgs is `*args`: the list of the positional arguments beyond the
	// positional parameters.
	VarArgs
	// VarKeywords is `**kwargs`: the record of the keyword arguments no
	// parameter takes.
	VarKeywords
)

// FnExpr is a function literal: `fn(a, b=1) { ... }` or `fn(a) => expr`
// (then Body holds a single return statement and Arrow is set).
type FnExpr struct {
	At     Pos
	Name   string // for named functions and tracebacks; "lambda" otherwise
	Params []*Param
	Body   *Block
	Arrow  bool
	// Resolver output.
	Locals   []*Binding // every binding declared inside, params first
	FreeVars []*Binding // enclosing bindings the function captures
}

// BinaryExpr is `x op y`.
type BinaryExpr struct {
	At Pos
	Op string
	X  Expr
	Y  Expr
}

// UnaryExpr is `op x` with op "-" or "not".
type UnaryExpr struct {
	At Pos
	Op string
	X  Expr
}

// Arg is one call argument; Name is set for keyword arguments.
type Arg struct {
	At    Pos
	Name  string
	Value Expr
}

// CallExpr is `fn(args)`; a method call `x.m(args)` has Fn a *FieldExpr.
type CallExpr struct {
	At   Pos
	Fn   Expr
	Args []*Arg
}

// SliceExpr is `lo:hi:step` inside an index; any part may be nil.
type SliceExpr struct {
	At   Pos
	Lo   Expr
	Hi   Expr
	Step Expr
	// Ellipsis marks `...` (no parts): as many whole dimensions as the
	// other indices leave.
	Ellipsis bool
}

// IndexExpr is `x[i, lo:hi, ...]`; each index is an Expr or a *SliceExpr.
type IndexExpr struct {
	At      Pos
	X       Expr
	Indices []Expr
}

// IndexSetExpr is the new value of x in `x[...] = v` and `x[...] op= v`:
// x with the elements Index selects replaced by Value (Op "=") or by
// `x[...] op Value` (Op "+=", "-=", ...). The parser makes it the Value
// of an AssignStmt whose Target is x (Index.X), so x is read, then
// rebound: nothing else that holds the old value sees a change.
type IndexSetExpr struct {
	At    Pos
	Index *IndexExpr
	Op    string
	Value Expr
}

// MutateExpr is the new value of x after the statement `x.m(args)`,
// which in Python changes x in place (xs.append(v), d.update(e)): the
// parser turns the statement into `x = MutateExpr`, since tref's lists
// and records are values. When x's value is a list, or a record with no
// field m, it is x changed by m; otherwise the statement is the call
// x.m(args), made for its effect, and the value is x's unchanged.
type MutateExpr struct {
	At Pos
	// Call is x.m(args): Call.Fn is a FieldExpr whose X is the Ident x.
	Call *CallExpr
	// Plain, set by the resolver when x is no variable the statement
	// may rebind (an imported module, a builtin: helper.update(v)),
	// makes the statement the call alone.
	Plain bool
}

// Mutators are the methods with which Python changes a list or a dict in
// place: as a statement on a name, x.m(args) is a MutateExpr. The
// evaluator implements each (for lists, records or both).
var Mutators = map[string]bool{
	"append": true, "extend": true, "insert": true, "remove": true, "pop": true,
	"clear": true, "sort": true, "reverse": true, "update": true, "setdefault": true,
}

// Recv is the name whose value the statement changes.
func (e *MutateExpr) Recv() *Ident { return e.Call.Fn.(*FieldExpr).X.(*Ident) }

// Method is the method's name.
func (e *MutateExpr) Method() string { return e.Call.Fn.(*FieldExpr).Name }

// FieldExpr is `x.name`.
type FieldExpr struct {
	At   Pos
	X    Expr
	Name string
}

// ParenExpr is `(x)`, kept for positions and printing.
type ParenExpr struct {
	At Pos
	X  Expr
}

// Scope is a lexical block's set of bindings (resolver output).
type Scope struct {
	Parent   *Scope
	Bindings []*Binding
}

// BindingKind says where a binding lives at run time.
type BindingKind uint8

// Binding kinds: a function-local slot, a cell captured by a closure, or a
// module global.
const (
	Local BindingKind = iota
	Cell
	Global
)

// Binding is one declared variable.
type Binding struct {
	Name  string
	Decl  Pos
	Kind  BindingKind
	Index int // slot in the function's frame or the module's globals
}

func (s *Block) Span() Pos        { return s.At }
func (s *LetStmt) Span() Pos      { return s.At }
func (s *AssignStmt) Span() Pos   { return s.At }
func (s *UnpackStmt) Span() Pos   { return s.At }
func (s *FnStmt) Span() Pos       { return s.At }
func (s *ReturnStmt) Span() Pos   { return s.At }
func (s *IfStmt) Span() Pos       { return s.At }
func (s *ForStmt) Span() Pos      { return s.At }
func (s *WhileStmt) Span() Pos    { return s.At }
func (s *BranchStmt) Span() Pos   { return s.At }
func (s *TestStmt) Span() Pos     { return s.At }
func (s *AssertStmt) Span() Pos   { return s.At }
func (s *ImportStmt) Span() Pos   { return s.At }
func (s *DelStmt) Span() Pos      { return s.At }
func (s *ExprStmt) Span() Pos     { return s.At }
func (e *Ident) Span() Pos        { return e.At }
func (e *NumberLit) Span() Pos    { return e.At }
func (e *StringLit) Span() Pos    { return e.At }
func (e *FStringExpr) Span() Pos  { return e.At }
func (e *CondExpr) Span() Pos     { return e.At }
func (e *StarExpr) Span() Pos     { return e.At }
func (e *BoolLit) Span() Pos      { return e.At }
func (e *NoneLit) Span() Pos      { return e.At }
func (e *ListExpr) Span() Pos     { return e.At }
func (e *RecordExpr) Span() Pos   { return e.At }
func (e *FnExpr) Span() Pos       { return e.At }
func (e *BinaryExpr) Span() Pos   { return e.At }
func (e *UnaryExpr) Span() Pos    { return e.At }
func (e *CallExpr) Span() Pos     { return e.At }
func (e *SliceExpr) Span() Pos    { return e.At }
func (e *IndexExpr) Span() Pos    { return e.At }
func (e *IndexSetExpr) Span() Pos { return e.At }
func (e *MutateExpr) Span() Pos   { return e.At }
func (e *FieldExpr) Span() Pos    { return e.At }
func (e *ParenExpr) Span() Pos    { return e.At }

func (*Block) stmt()      {}
func (*LetStmt) stmt()    {}
func (*AssignStmt) stmt() {}
func (*UnpackStmt) stmt() {}
func (*FnStmt) stmt()     {}
func (*ReturnStmt) stmt() {}
func (*IfStmt) stmt()     {}
func (*ForStmt) stmt()    {}
func (*WhileStmt) stmt()  {}
func (*BranchStmt) stmt() {}
func (*TestStmt) stmt()   {}
func (*AssertStmt) stmt() {}
func (*ImportStmt) stmt() {}
func (*DelStmt) stmt()    {}
func (*ExprStmt) stmt()   {}

func (*Ident) expr()        {}
func (*NumberLit) expr()    {}
func (*StringLit) expr()    {}
func (*FStringExpr) expr()  {}
func (*CondExpr) expr()     {}
func (*StarExpr) expr()     {}
func (*BoolLit) expr()      {}
func (*NoneLit) expr()      {}
func (*ListExpr) expr()     {}
func (*RecordExpr) expr()   {}
func (*FnExpr) expr()       {}
func (*BinaryExpr) expr()   {}
func (*UnaryExpr) expr()    {}
func (*CallExpr) expr()     {}
func (*SliceExpr) expr()    {}
func (*IndexExpr) expr()    {}
func (*IndexSetExpr) expr() {}
func (*MutateExpr) expr()   {}
func (*FieldExpr) expr()    {}
func (*ParenExpr) expr()    {}
