package eval_test

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/refs"
)

// The random program generator: well-typed programs built from the
// grammar (lets, assignments, named functions, closures, loops with break
// and continue, lists, records, arithmetic on numbers and small tensors)
// run with and without liveness and with different op windows. They must
// run without any error, print the same output every way, and leave no
// tensor alive.

// kind is the static type the generator tracks for a variable.
type kind int

const (
	kInt   kind = iota // an int64 number
	kFloat             // a float32 number or 0-d tensor
	kVec               // a float32 tensor of shape [3]
	kMat               // a float32 tensor of shape [2, 3]
	kList              // a non-empty list of ints
	kRec               // a record {a: int, v: vec}
	kStr               // a string
	kFn                // a lambda of one int giving an int
	kFnB               // a named function (a, b=int) giving an int
	numKinds
)

// gvar is a variable in scope.
type gvar struct {
	name string
	kind kind
	// fixed variables are never assigned or deleted: loop counters, and
	// variables a function or closure reads (deleting those would make a
	// later call fail).
	fixed bool
	// cost bounds the calls one call of a function makes, itself
	// included, so that nested calls in loops stay cheap.
	cost int
}

type scope struct {
	vars []*gvar
	// declared holds every name declared in the scope, deleted ones too:
	// `let` cannot declare them again.
	declared map[string]bool
}

// gen writes one program.
type gen struct {
	r      *rand.Rand
	b      strings.Builder
	scopes []*scope
	indent int
	next   int
	// loops counts the loops around the current statement in the current
	// function; fnDepth the functions being generated.
	loops   int
	fnDepth int
	// stmts bounds the statements of a program.
	stmts int
	// captured collects the variables read while generating a function
	// body, to fix them afterwards.
	captured []map[*gvar]bool
	// costs accumulates the cost of each function being generated; mult
	// is how often the current statement runs per call of the innermost
	// one (the product of the enclosing loops' bounds); total is the cost
	// of the top level.
	costs []int
	mult  int
	total int
	// lambdaCost is the cost of the latest lambda generated, for the
	// variable it is stored in; a variable holding a lambda keeps the
	// largest cost it was given.
	lambdaCost int
}

// Cost budgets: of one function, and of a whole program, in calls.
const (
	maxFnCost    = 50
	maxTotalCost = 3000
)

// call accounts for a call of f and reports whether the budget allows it.
func (g *gen) call(f *gvar) bool {
	c := f.cost * g.mult
	if n := len(g.costs); n > 0 {
		if g.costs[n-1]+c > maxFnCost {
			return false
		}
		g.costs[n-1] += c
		return true
	}
	if g.total+c > maxTotalCost {
		return false
	}
	g.total += c
	return true
}

// loop generates a loop body that runs at most n times per iteration of
// what encloses it.
func (g *gen) loop(n int, body func()) {
	saved := g.mult
	g.mult *= max(n, 1)
	g.loops++
	body()
	g.loops--
	g.mult = saved
}

// function generates a function body (through body) and returns its cost.
func (g *gen) function(body func()) int {
	savedLoops, savedMult := g.loops, g.mult
	g.loops, g.mult = 0, 1
	g.costs = append(g.costs, 1)
	g.fnDepth++
	body()
	g.fnDepth--
	cost := g.costs[len(g.costs)-1]
	g.costs = g.costs[:len(g.costs)-1]
	g.loops, g.mult = savedLoops, savedMult
	return cost
}

func newGen(seed uint64) *gen {
	return &gen{mult: 1, r: rand.New(rand.NewPCG(seed, 0x7265f)), scopes: []*scope{{declared: map[string]bool{}}}}
}

// program generates a whole program.
func (g *gen) program() string {
	g.stmts = 25 + g.r.IntN(30)
	for g.stmts > 0 {
		g.stmt()
	}
	// Print every variable at the end so that all values are forced and
	// compared.
	for _, v := range g.visible() {
		g.line("print(%q, %s)", v.name, v.name)
	}
	return g.b.String()
}

func (g *gen) line(format string, args ...any) {
	g.b.WriteString(strings.Repeat("  ", g.indent))
	fmt.Fprintf(&g.b, format, args...)
	g.b.WriteByte('\n')
}

func (g *gen) fresh(prefix string) string {
	g.next++
	return fmt.Sprintf("%s%d", prefix, g.next)
}

// visible lists the variables in scope, innermost declaration of each
// name only.
func (g *gen) visible() []*gvar {
	seen := map[string]bool{}
	var out []*gvar
	for i := len(g.scopes) - 1; i >= 0; i-- {
		for _, v := range g.scopes[i].vars {
			if !seen[v.name] {
				out = append(out, v)
			}
		}
		// A deleted variable still hides the outer ones of its name.
		for name := range g.scopes[i].declared {
			seen[name] = true
		}
	}
	return out
}

// pick returns a visible variable of kind k, or nil.
func (g *gen) pick(k kind, assignable bool) *gvar {
	var cands []*gvar
	for _, v := range g.visible() {
		if v.kind == k && (!assignable || !v.fixed) {
			cands = append(cands, v)
		}
	}
	if len(cands) == 0 {
		return nil
	}
	v := cands[g.r.IntN(len(cands))]
	for _, c := range g.captured {
		c[v] = true
	}
	return v
}

func (g *gen) declare(name string, k kind) *gvar {
	v := &gvar{name: name, kind: k}
	s := g.scopes[len(g.scopes)-1]
	s.declared[name] = true
	for i, old := range s.vars {
		if old.name == name {
			s.vars[i] = v
			return v
		}
	}
	s.vars = append(s.vars, v)
	return v
}

func (g *gen) push() { g.scopes = append(g.scopes, &scope{declared: map[string]bool{}}) }
func (g *gen) pop()  { g.scopes = g.scopes[:len(g.scopes)-1] }

// block writes `open { stmts }` of n statements in a new scope; setup
// runs first inside it.
func (g *gen) block(open string, n int, setup func()) {
	g.line("%s {", open)
	g.body(n, setup)
	g.line("}")
}

// body writes n statements, indented, in a new scope.
func (g *gen) body(n int, setup func()) {
	g.indent++
	g.push()
	if setup != nil {
		setup()
	}
	for range n {
		g.stmt()
	}
	g.pop()
	g.indent--
}

func (g *gen) nested() bool { return len(g.scopes) > 5 }

// stmt writes one statement.
func (g *gen) stmt() {
	g.stmts--
	switch n := g.r.IntN(24); {
	case n < 5:
		k := kind(g.r.IntN(int(numKinds)))
		if k == kFnB {
			g.fnStmt()
			return
		}
		name := g.fresh("v")
		if g.r.IntN(8) == 0 {
			// Shadow an outer variable.
			if vs := g.visible(); len(vs) > 0 {
				name = vs[g.r.IntN(len(vs))].name
				if g.scopes[len(g.scopes)-1].declared[name] {
					name = g.fresh("v")
				}
			}
		}
		g.lambdaCost = 1
		g.line("let %s = %s", name, g.expr(k, 0))
		g.declare(name, k).cost = g.lambdaCost
	case n < 9:
		k := kind(g.r.IntN(int(kStr) + 1))
		v := g.pick(k, true)
		if v == nil {
			g.line("print(%s)", g.expr(k, 0))
			return
		}
		switch {
		case k <= kMat && g.r.IntN(2) == 0:
			op := []string{"+=", "-=", "*="}[g.r.IntN(3)]
			rk := k
			if k != kFloat && g.r.IntN(2) == 0 {
				rk = kInt
			}
			if k == kInt && op == "*=" {
				g.line("%s %s %d", v.name, op, g.r.IntN(5)-2)
				return
			}
			g.line("%s %s %s", v.name, op, g.expr(rk, 1))
		default:
			g.lambdaCost = 1
			g.line("%s = %s", v.name, g.expr(k, 0))
			v.cost = max(v.cost, g.lambdaCost)
		}
	case n < 11 && !g.nested():
		g.line("if %s {", g.cond(0))
		g.body(1+g.r.IntN(3), nil)
		if g.r.IntN(2) == 0 {
			g.line("} else {")
			g.body(1+g.r.IntN(2), nil)
		}
		g.line("}")
	case n < 13 && !g.nested():
		i := g.fresh("i")
		iter := []string{
			fmt.Sprintf("range(%d)", g.r.IntN(4)),
			fmt.Sprintf("range(%d, %d, %d)", g.r.IntN(3), 4+g.r.IntN(3), 1+g.r.IntN(2)),
			g.expr(kList, 1) + "[:3]",
			fmt.Sprintf("range(%d, -1, -1)", g.r.IntN(3)),
		}[g.r.IntN(4)]
		g.loop(6, func() {
			g.block(fmt.Sprintf("for %s in %s", i, iter), 1+g.r.IntN(4), func() { g.declare(i, kInt) })
		})
	case n < 14 && !g.nested():
		c := g.fresh("c")
		g.line("let %s = 0", c)
		g.declare(c, kInt).fixed = true
		bound := 1 + g.r.IntN(4)
		g.loop(bound, func() {
			g.block(fmt.Sprintf("while %s < %d", c, bound), 1+g.r.IntN(3), func() {
				g.line("%s += 1", c)
			})
		})
	case n < 15 && g.loops > 0:
		kw := []string{"break", "continue"}[g.r.IntN(2)]
		g.line("if %s { %s }", g.cond(1), kw)
	case n < 16 && !g.nested():
		g.fnStmt()
	case n < 17:
		s := g.scopes[len(g.scopes)-1]
		var cands []*gvar
		for _, v := range s.vars {
			if !v.fixed {
				cands = append(cands, v)
			}
		}
		if len(cands) == 0 || len(g.scopes) == 1 && g.fnDepth == 0 && g.r.IntN(2) == 0 {
			g.line("print(%s)", g.expr(kind(g.r.IntN(int(kFn))), 0))
			return
		}
		v := cands[g.r.IntN(len(cands))]
		g.line("del %s", v.name)
		for i, x := range s.vars {
			if x == v {
				s.vars = append(s.vars[:i], s.vars[i+1:]...)
				break
			}
		}
	case n == 20 && g.fnDepth > 0:
		g.line("if %s { return %s }", g.cond(1), g.expr(kInt, 1))
	case n == 21 && !g.nested():
		x := g.fresh("e")
		k, iter, times := kVec, g.expr(kMat, 1), 2
		if g.r.IntN(2) == 0 {
			k, iter, times = kStr, g.expr(kStr, 1)+"[:3]", 3
		}
		g.loop(times, func() {
			g.block(fmt.Sprintf("for %s in %s", x, iter), 1+g.r.IntN(3), func() { g.declare(x, k) })
		})
	case n == 22:
		switch g.r.IntN(4) {
		case 0:
			g.line("assert len(%s) > 0, %s", g.expr(kList, 1), g.expr(kStr, 1))
		case 1:
			g.line("assert %s == %s", g.expr(kMat, 2)+".shape", "[2, 3]")
		case 2:
			g.line(`assert_error(fn() => %s // 0, "division by zero")`, g.expr(kInt, 2))
		default:
			g.line(`assert_error(fn() => %s + ones([4]), "broadcast")`, g.expr(kVec, 2))
		}
	case n == 23 && !g.nested():
		g.block("", 1+g.r.IntN(3), nil)
	default:
		g.line("print(%s)", g.expr(kind(g.r.IntN(int(kFn))), 0))
	}
}

// fnStmt writes a named function (a, b=k) whose body may read and assign
// the variables around it (a closure), and declares it.
func (g *gen) fnStmt() {
	name := g.fresh("f")
	g.captured = append(g.captured, map[*gvar]bool{})
	g.line("fn %s(a, b=%d) {", name, g.r.IntN(5))
	cost := g.function(func() {
		g.indent++
		g.push()
		g.declare("a", kInt)
		g.declare("b", kInt)
		for range 1 + g.r.IntN(3) {
			g.stmt()
		}
		if g.r.IntN(3) == 0 {
			g.line("if %s { return %s }", g.cond(1), g.expr(kInt, 1))
		}
		g.line("return %s", g.expr(kInt, 1))
		g.pop()
		g.indent--
	})
	g.line("}")
	g.fixCaptured()
	f := g.declare(name, kFnB)
	f.fixed, f.cost = true, cost
}

// fixCaptured marks the variables read by the function just generated as
// fixed.
func (g *gen) fixCaptured() {
	c := g.captured[len(g.captured)-1]
	g.captured = g.captured[:len(g.captured)-1]
	for v := range c {
		v.fixed = true
	}
}

// cond writes a scalar condition.
func (g *gen) cond(depth int) string {
	switch g.r.IntN(6) {
	case 0:
		return fmt.Sprintf("%s < %s", g.expr(kInt, depth+1), g.expr(kInt, depth+1))
	case 1:
		return fmt.Sprintf("%s >= %s", g.expr(kFloat, depth+1), g.expr(kFloat, depth+1))
	case 2:
		return fmt.Sprintf("%s == %d", g.expr(kInt, depth+1), g.r.IntN(3))
	case 3:
		if depth < 2 {
			return fmt.Sprintf("(%s and not %s)", g.cond(depth+1), g.cond(depth+1))
		}
	case 4:
		if depth < 2 {
			return fmt.Sprintf("(%s or %s)", g.cond(depth+1), g.cond(depth+1))
		}
	}
	return fmt.Sprintf("%s != %s", g.expr(kStr, depth+1), g.expr(kStr, depth+1))
}

// expr writes an expression of kind k.
func (g *gen) expr(k kind, depth int) string {
	if depth > 3 || g.r.IntN(4) == 0 {
		if v := g.pick(k, false); v != nil {
			if k == kFn {
				g.lambdaCost = max(g.lambdaCost, v.cost)
			}
			return v.name
		}
		return g.leaf(k)
	}
	sub := func(k kind) string { return g.expr(k, depth+1) }
	switch k {
	case kInt:
		switch g.r.IntN(11) {
		case 0:
			return fmt.Sprintf("(%s + %s)", sub(kInt), sub(kInt))
		case 1:
			return fmt.Sprintf("(%s - %s * %s)", sub(kInt), sub(kInt), sub(kInt))
		case 2:
			return fmt.Sprintf("(%s // %d)", sub(kInt), []int{1, 2, 3, -2}[g.r.IntN(4)])
		case 3:
			return fmt.Sprintf("(%s %% %d)", sub(kInt), []int{2, 5, -3}[g.r.IntN(3)])
		case 4:
			return fmt.Sprintf("len(%s)", sub([]kind{kList, kStr, kRec, kVec}[g.r.IntN(4)]))
		case 5:
			return fmt.Sprintf("%s[%d]", sub(kList), []int{0, -1}[g.r.IntN(2)])
		case 6:
			if g.r.IntN(2) == 0 {
				return fmt.Sprintf("%s.a", sub(kRec))
			}
			return fmt.Sprintf(`%s["a"]`, sub(kRec))
		case 7:
			if f := g.pick(kFn, false); f != nil && g.call(f) {
				return fmt.Sprintf("%s(%s)", f.name, sub(kInt))
			}
			return fmt.Sprintf("(fn(x) => x * 2)(%s)", sub(kInt))
		case 8:
			if f := g.pick(kFnB, false); f != nil && g.call(f) {
				switch g.r.IntN(3) {
				case 0:
					return fmt.Sprintf("%s(%s)", f.name, sub(kInt))
				case 1:
					return fmt.Sprintf("%s(%s, %s)", f.name, sub(kInt), sub(kInt))
				}
				return fmt.Sprintf("%s(%s, b=%s)", f.name, sub(kInt), sub(kInt))
			}
		case 9:
			return fmt.Sprintf("-%s", sub(kInt))
		case 10:
			return fmt.Sprintf("%s.ndim", sub(kMat))
		}
		return g.leaf(kInt)
	case kFloat:
		switch g.r.IntN(8) {
		case 0:
			return fmt.Sprintf("(%s + %s)", sub(kFloat), sub(kInt))
		case 1:
			return fmt.Sprintf("(%s * %s)", sub(kFloat), sub(kFloat))
		case 2:
			return fmt.Sprintf("(%s / %d)", sub(kInt), 1+g.r.IntN(3))
		case 3:
			return fmt.Sprintf("%s.sum()", sub(kVec))
		case 4:
			return fmt.Sprintf("item(%s.mean())", sub(kMat))
		case 5:
			return fmt.Sprintf("%s[%d]", sub(kVec), g.r.IntN(3))
		case 6:
			return fmt.Sprintf("max(%s)", sub(kVec))
		}
		return fmt.Sprintf("(%s ** 2)", sub(kFloat))
	case kVec:
		switch g.r.IntN(10) {
		case 0:
			return fmt.Sprintf("(%s + %s)", sub(kVec), sub(kVec))
		case 1:
			return fmt.Sprintf("(%s * %s)", sub(kVec), sub([]kind{kInt, kFloat}[g.r.IntN(2)]))
		case 2:
			return fmt.Sprintf("%s[%d]", sub(kMat), g.r.IntN(2))
		case 3:
			return fmt.Sprintf("%s.sum(dim=0)", sub(kMat))
		case 4:
			return fmt.Sprintf("relu(%s - %s)", sub(kVec), sub(kFloat))
		case 5:
			return fmt.Sprintf("%s.v", sub(kRec))
		case 6:
			return fmt.Sprintf("%s[::-1]", sub(kVec))
		case 7:
			return fmt.Sprintf("%s.reshape([3])", sub(kMat)+"[1, :]")
		case 8:
			return fmt.Sprintf("tensor([%s, %s, 2.5])", sub(kInt), g.leaf(kFloat))
		}
		return fmt.Sprintf("(%s / 2 - %s)", sub(kVec), sub(kVec))
	case kMat:
		switch g.r.IntN(7) {
		case 0:
			return fmt.Sprintf("(%s + %s)", sub(kMat), sub(kVec))
		case 1:
			return fmt.Sprintf("(%s * %s)", sub(kMat), sub(kMat))
		case 2:
			return fmt.Sprintf("(%s @ ones([3, 3]))", sub(kMat))
		case 3:
			return fmt.Sprintf("%s.T.T", sub(kMat))
		case 4:
			return fmt.Sprintf("stack([%s, %s])", sub(kVec), sub(kVec))
		case 5:
			return fmt.Sprintf("(%s - %s)", sub(kMat), sub(kFloat))
		}
		return fmt.Sprintf("%s.reshape([2, 3])", sub(kMat)+".reshape([6])")
	case kList:
		switch g.r.IntN(6) {
		case 0:
			return fmt.Sprintf("(%s[:4] + %s[-4:])", sub(kList), sub(kList))
		case 4:
			// Any bounds and step: the slice may be empty, so add one.
			return fmt.Sprintf("(%s[%s:%s:%s] + [%s])", sub(kList), sub(kInt), sub(kInt), g.step(), sub(kInt))
		case 1:
			return fmt.Sprintf("%s[::-1]", sub(kList))
		case 2:
			return fmt.Sprintf("%s[:1]", sub(kList))
		case 3:
			return fmt.Sprintf("%s.shape", sub(kMat))
		}
		return fmt.Sprintf("[%s, %s]", sub(kInt), sub(kInt))
	case kRec:
		return fmt.Sprintf("{a: %s, v: %s}", sub(kInt), sub(kVec))
	case kStr:
		switch g.r.IntN(3) {
		case 0:
			return fmt.Sprintf("(%s[:8] + %s[-8:])", sub(kStr), sub(kStr))
		case 1:
			return fmt.Sprintf("str(%s)", sub(kind(g.r.IntN(int(kStr)))))
		}
		return g.leaf(kStr)
	case kFn:
		g.captured = append(g.captured, map[*gvar]bool{})
		defer g.fixCaptured()
		var text string
		g.lambdaCost = g.function(func() {
			switch g.r.IntN(3) {
			case 0:
				text = fmt.Sprintf("fn(x) => x + %s", sub(kInt))
			case 1:
				text = fmt.Sprintf("fn(x) { let y = x * 2\n return y - %s }", sub(kInt))
			default:
				// A closure with its own state, made by a function call.
				text = fmt.Sprintf("(fn(n) { let c = n\n return fn(x) { c += x\n return c } })(%s)", sub(kInt))
			}
		})
		return text
	}
	return g.leaf(k)
}

// step writes a slice step: small, extreme, never zero.
func (g *gen) step() string {
	return []string{"1", "-1", "2", "-3", "9223372036854775807", "(-9223372036854775807 - 1)"}[g.r.IntN(6)]
}

// leaf writes a literal or a constructor of kind k.
func (g *gen) leaf(k kind) string {
	switch k {
	case kInt:
		if g.r.IntN(25) == 0 {
			return []string{"9223372036854775807", "(-9223372036854775807 - 1)", "4611686018427387904"}[g.r.IntN(3)]
		}
		return fmt.Sprint(g.r.IntN(7) - 2)
	case kFloat:
		return []string{"0.5", "1.25", "-2.0", "3.0", "1e-3"}[g.r.IntN(5)]
	case kVec:
		return []string{"ones([3])", "(arange(3) * 1.0)", "tensor([1.5, -2.0, 0.25])", "zeros([3])", "randn([3])"}[g.r.IntN(5)]
	case kMat:
		return []string{"ones([2, 3])", "randn([2, 3])", "(arange(6).reshape([2, 3]) / 3)", "zeros([2, 3])"}[g.r.IntN(4)]
	case kList:
		return fmt.Sprintf("[%d]", g.r.IntN(5))
	case kRec:
		return fmt.Sprintf("{a: %d, v: ones([3])}", g.r.IntN(5))
	case kStr:
		return []string{`"a"`, `"xy"`, `""`, `"q\"t"`}[g.r.IntN(4)]
	case kFn:
		return "fn(x) => x + 1"
	}
	return "0"
}

// Flags for longer soak runs of the generator.
var (
	genPrograms = flag.Int("gen.n", 0, "number of generated programs to run (default 1000, 200 with -short)")
	genFirst    = flag.Int("gen.seed", 0, "seed of the first generated program")
)

// runGenerated runs src with a fresh runtime and returns its output; it
// fails t on an error or a leaked ref.
func runGenerated(t *testing.T, src string, lookahead int, noLiveness bool) string {
	t.Helper()
	rt := refs.New(&cpu.Device{}, refs.Options{Lookahead: lookahead, TrackRefs: true})
	var out bytes.Buffer
	in := eval.NewInterpreter(eval.Config{RT: rt, Universe: testUniverse(), Stdout: &out, NoLiveness: noLiveness})
	err := in.RunSource("gen.tr", []byte(src))
	in.Close()
	if err != nil {
		t.Fatalf("lookahead %d, no liveness %v: %v\nprogram:\n%s", lookahead, noLiveness, err, numbered(src))
	}
	if n := rt.LiveRefs(); n != 0 {
		var where []string
		for _, r := range rt.Leaks() {
			where = append(where, r.String()+" from "+r.Site().Pos.String())
		}
		t.Fatalf("lookahead %d, no liveness %v: %d refs alive:\n%s\nprogram:\n%s", lookahead, noLiveness, n, strings.Join(where, "\n"), numbered(src))
	}
	return out.String()
}

func numbered(src string) string {
	lines := strings.Split(src, "\n")
	for i := range lines {
		lines[i] = fmt.Sprintf("%3d  %s", i+1, lines[i])
	}
	return strings.Join(lines, "\n")
}

// TestGeneratedPrograms runs random well-typed programs (200 with -short,
// 1000 otherwise) three ways — liveness on with an op window, liveness on
// executing every op at once, liveness off — and compares their output.
func TestGeneratedPrograms(t *testing.T) {
	n := 1000
	if testing.Short() {
		n = 200
	}
	if *genPrograms > 0 {
		n = *genPrograms
	}
	for seed := uint64(*genFirst); seed < uint64(*genFirst+n); seed++ {
		src := newGen(seed).program()
		want := runGenerated(t, src, 8, false)
		for _, alt := range []struct {
			lookahead  int
			noLiveness bool
		}{{0, false}, {16, true}} {
			if got := runGenerated(t, src, alt.lookahead, alt.noLiveness); got != want {
				t.Fatalf("seed %d: output with lookahead %d, no liveness %v differs:\n%s\nwant:\n%s\nprogram:\n%s",
					seed, alt.lookahead, alt.noLiveness, got, want, numbered(src))
			}
		}
	}
}

// TestGeneratedProgramsInREPL feeds generated programs to the REPL one
// top-level statement at a time (as a piped session would) and compares
// the output with running them as files: the REPL resolves names
// differently (later inputs see earlier ones, nothing is dropped early)
// but must compute the same. After Close nothing may be alive.
func TestGeneratedProgramsInREPL(t *testing.T) {
	n := 200
	if testing.Short() {
		n = 50
	}
	if *genPrograms > 0 {
		n = *genPrograms
	}
	for seed := uint64(*genFirst); seed < uint64(*genFirst+n); seed++ {
		src := newGen(seed).program()
		want := runGenerated(t, src, 8, false)
		s := newSession(t, 8)
		for _, stmt := range topLevelStatements(src) {
			v, err := s.in.EvalREPL(stmt)
			if err != nil {
				t.Fatalf("seed %d: %v\nat input:\n%s\nprogram:\n%s", seed, err, stmt, numbered(src))
			}
			eval.Release(s.rt, v)
		}
		s.in.Close()
		if got := s.out.String(); got != want {
			t.Fatalf("seed %d: REPL output differs:\n%s\nwant:\n%s\nprogram:\n%s", seed, got, want, numbered(src))
		}
		if n := s.rt.LiveRefs(); n != 0 {
			t.Fatalf("seed %d: %d refs alive after Close", seed, n)
		}
	}
}

// topLevelStatements splits a generated program into its top-level
// statements: a statement ends at a line where no bracket is left open.
func topLevelStatements(src string) []string {
	var out []string
	var cur strings.Builder
	depth := 0
	for _, line := range strings.Split(src, "\n") {
		if strings.TrimSpace(line) == "" && depth == 0 {
			continue
		}
		cur.WriteString(line)
		cur.WriteByte('\n')
		inString := false
		for i := 0; i < len(line); i++ {
			switch c := line[i]; {
			case c == '\\' && inString:
				i++
			case c == '"':
				inString = !inString
			case inString:
			case c == '(' || c == '[' || c == '{':
				depth++
			case c == ')' || c == ']' || c == '}':
				depth--
			}
		}
		if depth == 0 {
			out = append(out, cur.String())
			cur.Reset()
		}
	}
	return out
}

// TestGeneratedProgramsFailWhereTheErrorIs puts a failing statement
// between two top-level statements of generated programs: the run must
// print what the statements before it print, fail at that line, and
// leave nothing alive, with and without liveness.
func TestGeneratedProgramsFailWhereTheErrorIs(t *testing.T) {
	n := 200
	if testing.Short() {
		n = 50
	}
	if *genPrograms > 0 {
		n = *genPrograms
	}
	failing := []string{
		"print([1, 2][5])",
		"let zz = ones([2]) + ones([3])",
		"assert 1 == 2, \"stop\"",
		"print((fn(x) => x // 0)(7))",
	}
	for seed := uint64(*genFirst); seed < uint64(*genFirst+n); seed++ {
		stmts := topLevelStatements(newGen(seed).program())
		k := int(seed % uint64(len(stmts)+1))
		prefix := strings.Join(stmts[:k], "")
		line := strings.Count(prefix, "\n") + 1
		src := prefix + failing[seed%uint64(len(failing))] + "\n" + strings.Join(stmts[k:], "")
		want := runGenerated(t, prefix, 8, false)
		for _, noLiveness := range []bool{false, true} {
			rt := refs.New(&cpu.Device{}, refs.Options{Lookahead: 8, TrackRefs: true})
			var out bytes.Buffer
			in := eval.NewInterpreter(eval.Config{RT: rt, Universe: testUniverse(), Stdout: &out, NoLiveness: noLiveness})
			err := in.RunSource("gen.tr", []byte(src))
			in.Close()
			var e *eval.Error
			if !errors.As(err, &e) || e.Pos.Line != line {
				t.Fatalf("seed %d: got error %v, want one at line %d\nprogram:\n%s", seed, err, line, numbered(src))
			}
			if out.String() != want {
				t.Fatalf("seed %d: output before the error differs:\n%s\nwant:\n%s\nprogram:\n%s", seed, out.String(), want, numbered(src))
			}
			if n := rt.LiveRefs(); n != 0 {
				t.Fatalf("seed %d: %d refs alive after the error\nprogram:\n%s", seed, n, numbered(src))
			}
		}
	}
}
