package eval

import (
	"math"
	"strings"
	"unsafe"

	"github.com/tref-lang/tref/lang/ast"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// opcode is a binary operator.
type opcode uint8

const (
	opAdd opcode = iota
	opSub
	opMul
	opDiv
	opFloorDiv
	opMod
	opPow
	opMatmul
	opEq
	opNe
	opLt
	opLe
	opGt
	opGe
)

// binaryOps maps operator spellings to opcodes.
var binaryOps = map[string]opcode{
	"+": opAdd, "-": opSub, "*": opMul, "/": opDiv, "//": opFloorDiv, "%": opMod, "**": opPow, "@": opMatmul,
	"==": opEq, "!=": opNe, "<": opLt, "<=": opLe, ">": opGt, ">=": opGe,
}

// tensorOps are the runtime op each operator submits for tensors.
var tensorOps = [...]ops.Op{ops.Add, ops.Sub, ops.Mul, ops.Div, ops.FloorDiv, ops.Mod, ops.Pow, ops.Matmul, ops.Eq, ops.Ne, ops.Lt, ops.Le, ops.Gt, ops.Ge}

var opSyms = [...]string{"+", "-", "*", "/", "//", "%", "**", "@", "==", "!=", "<", "<=", ">", ">="}

func isScalar(v Value) bool {
	switch v.(type) {
	case Bool, Int, Float32, Float64:
		return true
	}
	return false
}

// intBinop is the fast path of int64 op int64: no runtime, no allocation
// beyond the boxed result.
func (fr *frame) intBinop(op opcode, x, y int64, site *callSite) (Value, error) {
	if v, ok := intFast(op, x, y); ok {
		return v, nil
	}
	switch op {
	case opDiv:
		return Float32(float32(x) / float32(y)), nil
	case opFloorDiv:
		q, err := ops.FloorDivInt(x, y)
		if err != nil {
			return nil, fr.errorf(site.pos, "%v", err)
		}
		return Int(q), nil
	case opMod:
		r, err := ops.ModInt(x, y)
		if err != nil {
			return nil, fr.errorf(site.pos, "%v", err)
		}
		return Int(r), nil
	case opPow:
		p, err := ops.PowInt(x, y)
		if err != nil {
			return nil, fr.errorf(site.pos, "%v", err)
		}
		return Int(p), nil
	}
	return nil, fr.errorf(site.pos, "%s needs tensors with at least one dimension, not two numbers", opSyms[op])
}

// intFast is x op y for the operators that cannot fail (+, -, * and the
// comparisons), ok=false for the others; small enough to be inlined in
// the compiled binary expressions.
func intFast(op opcode, x, y int64) (v Value, ok bool) {
	switch op {
	case opAdd:
		return Int(x + y), true
	case opSub:
		return Int(x - y), true
	case opMul:
		return Int(x * y), true
	case opEq, opNe, opLt, opLe, opGt, opGe:
		return Bool(intCompare(op, x, y)), true
	}
	return nil, false
}

// intCompare is x op y for a comparison operator.
func intCompare(op opcode, x, y int64) bool {
	switch op {
	case opEq:
		return x == y
	case opNe:
		return x != y
	case opLt:
		return x < y
	case opLe:
		return x <= y
	case opGt:
		return x > y
	}
	return x >= y
}

// isCompare reports whether op is a comparison.
func isCompare(op opcode) bool { return op >= opEq }

// binop applies a binary operator, consuming both operands.
func (fr *frame) binop(op opcode, a, b Value, site *callSite) (Value, error) {
	if x, ok := a.(Int); ok {
		if y, ok := b.(Int); ok {
			return fr.intBinop(op, int64(x), int64(y), site)
		}
	}
	sa, sb := isScalar(a), isScalar(b)
	if sa && sb {
		return fr.scalarBinop(op, a, b, site)
	}
	_, ta := a.(Tensor)
	_, tb := b.(Tensor)
	if (ta || sa) && (tb || sb) {
		return fr.tensorBinop(op, a, b, site)
	}
	v, err := fr.otherBinop(op, a, b, site)
	Release(fr.th.RT, a)
	Release(fr.th.RT, b)
	return v, err
}

// scalarBinop computes number op number in Go with the dtype rules and
// the arithmetic of the tensor kernels (same promotion, float32 math in
// float32, integer division by zero an error).
func (fr *frame) scalarBinop(op opcode, a, b Value, site *callSite) (Value, error) {
	if x, ok := a.(Float32); ok && op <= opDiv {
		if y, ok := b.(Float32); ok {
			switch op {
			case opAdd:
				return x + y, nil
			case opSub:
				return x - y, nil
			case opMul:
				return x * y, nil
			case opDiv:
				return x / y, nil
			}
		}
	}
	ma, mb := tensor.Meta{DType: ScalarDType(a)}, tensor.Meta{DType: ScalarDType(b)}
	if op >= opEq {
		return Bool(compareScalars(op, tensor.ResultType(ma, mb), a, b)), nil
	}
	if op == opMatmul {
		return nil, fr.errorf(site.pos, "@ needs tensors with at least one dimension, not two numbers")
	}
	dt, err := ops.BinaryDType(tensorOps[op], ma, mb)
	if err != nil {
		return nil, fr.errorf(site.pos, "%v", err)
	}
	switch dt {
	case tensor.Float32:
		x, y := float32(scalarF64(a)), float32(scalarF64(b))
		switch op {
		case opAdd:
			return Float32(x + y), nil
		case opSub:
			return Float32(x - y), nil
		case opMul:
			return Float32(x * y), nil
		case opDiv:
			return Float32(x / y), nil
		}
		return Float32(floatOp(op, float64(x), float64(y))), nil
	case tensor.Float64:
		x, y := scalarF64(a), scalarF64(b)
		switch op {
		case opAdd:
			return Float64(x + y), nil
		case opSub:
			return Float64(x - y), nil
		case opMul:
			return Float64(x * y), nil
		case opDiv:
			return Float64(x / y), nil
		}
		return Float64(floatOp(op, x, y)), nil
	case tensor.Int64:
		return fr.intBinop(op, scalarI64(a), scalarI64(b), site)
	case tensor.Bool:
		x, y := scalarI64(a) != 0, scalarI64(b) != 0
		switch op {
		case opAdd:
			return Bool(x || y), nil
		case opMul:
			return Bool(x && y), nil
		}
	}
	return nil, fr.errorf(site.pos, "%s is not supported on %s and %s", opSyms[op], Describe(a), Describe(b))
}

// floatOp is //, % or ** on floats, as the kernels compute them.
func floatOp(op opcode, x, y float64) float64 {
	switch op {
	case opFloorDiv:
		return ops.FloorDivFloat(x, y)
	case opMod:
		return ops.ModFloat(x, y)
	case opPow:
		return math.Pow(x, y)
	}
	return math.NaN()
}

func scalarF64(v Value) float64 {
	f, _ := toFloat(v)
	return f
}

func scalarI64(v Value) int64 {
	switch v := v.(type) {
	case Int:
		return int64(v)
	case Bool:
		if v {
			return 1
		}
		return 0
	case Float32:
		return int64(v)
	case Float64:
		return int64(v)
	}
	return 0
}

// compareScalars compares two numbers after converting both to ct, as the
// comparison kernels do.
func compareScalars(op opcode, ct tensor.DType, a, b Value) bool {
	var c int
	switch ct {
	case tensor.Float32, tensor.Float64:
		x, y := scalarF64(a), scalarF64(b)
		if ct == tensor.Float32 {
			x, y = float64(float32(x)), float64(float32(y))
		}
		if math.IsNaN(x) || math.IsNaN(y) {
			return op == opNe
		}
		c = cmp3(x, y)
	default:
		c = cmp3(scalarI64(a), scalarI64(b))
	}
	switch op {
	case opEq:
		return c == 0
	case opNe:
		return c != 0
	case opLt:
		return c < 0
	case opLe:
		return c <= 0
	case opGt:
		return c > 0
	}
	return c >= 0
}

func cmp3[T int64 | float64 | string](x, y T) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// tensorBinop submits the operator's op. A number beside a tensor travels
// as the op's scalar operand (ops.ScalarOperand), not as a tensor; only an
// op without a scalar form (@) makes it a 0-d ref.
func (fr *frame) tensorBinop(op opcode, a, b Value, site *callSite) (Value, error) {
	th := fr.th
	th.sitePos = site.pos
	if top := tensorOps[op]; top.Def().TakesScalar {
		x, xt := a.(Tensor)
		y, yt := b.(Tensor)
		switch {
		case xt && !yt:
			v, err := fr.submit(site, top, ops.ScalarOperand{Value: ScalarOperand(b).Wrapped(x.Ref.Meta())}, x.Ref)
			th.RT.Release(x.Ref)
			return v, err
		case yt && !xt:
			v, err := fr.submit(site, top, ops.ScalarOperand{Value: ScalarOperand(a).Wrapped(y.Ref.Meta()), Left: true}, y.Ref)
			th.RT.Release(y.Ref)
			return v, err
		}
	}
	ra, tmpA := fr.asRef(a)
	rb, tmpB := fr.asRef(b)
	v, err := fr.submit(site, tensorOps[op], nil, ra, rb)
	if tmpA {
		th.RT.Release(ra)
	}
	if tmpB {
		th.RT.Release(rb)
	}
	Release(th.RT, a)
	Release(th.RT, b)
	return v, err
}

// asRef returns a tensor's ref (borrowed) or a new 0-d ref for a number
// (temp is then true: the caller releases it).
func (fr *frame) asRef(v Value) (r *refs.Ref, temp bool) {
	if t, ok := v.(Tensor); ok {
		return t.Ref, false
	}
	return fr.th.RT.FromHost(fr.th.Site(), ScalarDense(v)), true
}

// otherBinop handles operators on strings, lists and other values.
func (fr *frame) otherBinop(op opcode, a, b Value, site *callSite) (Value, error) {
	switch op {
	case opAdd:
		switch x := a.(type) {
		case String:
			if y, ok := b.(String); ok {
				if err := fr.th.RT.HostPool().CheckValue(int64(len(x)) + int64(len(y))); err != nil {
					return nil, fr.errorf(site.pos, "cannot concatenate strings: %v", err)
				}
				return x + y, nil
			}
		case *List:
			if y, ok := b.(*List); ok {
				// A list's slots count against the host memory limit
				// (what its elements hold is counted as they are made).
				if n := len(x.Elems) + len(y.Elems); n > cap(x.Elems) || x.rc != 1 {
					if err := fr.th.RT.HostPool().CheckValue(int64(n) * int64(unsafe.Sizeof(Value(nil)))); err != nil {
						return nil, fr.errorf(site.pos, "cannot concatenate lists: %v", err)
					}
				}
				if x.rc == 1 {
					// The only reference to x is the one this operator
					// consumes: nothing can see x change, so it grows in
					// place (amortised, so that `l = l + [v]` in a loop
					// is linear) and becomes the result.
					for _, e := range y.Elems {
						Retain(fr.th.RT, e)
					}
					x.Elems = append(x.Elems, y.Elems...)
					if x.gc.col == nil {
						x.gc.col = cyclicIn(y.Elems)
					}
					Retain(fr.th.RT, x) // the caller releases a
					return x, nil
				}
				out := make([]Value, 0, len(x.Elems)+len(y.Elems))
				for _, e := range x.Elems {
					Retain(fr.th.RT, e)
					out = append(out, e)
				}
				for _, e := range y.Elems {
					Retain(fr.th.RT, e)
					out = append(out, e)
				}
				return NewList(out), nil
			}
		}
	case opEq, opNe:
		eq, err := fr.equal(a, b, site.pos)
		if err != nil {
			return nil, err
		}
		return Bool(eq == (op == opEq)), nil
	case opMul:
		// "=" * 40, [0] * n: repetition, either operand the count.
		if n, ok := repeatCount(b); ok {
			if v, ok, err := fr.repeat(a, n, site); ok {
				return v, err
			}
		}
		if n, ok := repeatCount(a); ok {
			if v, ok, err := fr.repeat(b, n, site); ok {
				return v, err
			}
		}
	case opMod:
		// s % args: printf-style formatting, the str builtin's __mod__.
		if _, ok := a.(String); ok {
			if str := fr.th.builtin("str"); str != nil && str.Methods["__mod__"] != nil {
				Retain(fr.th.RT, a)
				Retain(fr.th.RT, b)
				return fr.th.callBuiltin(fr, str.Methods["__mod__"], []Value{a, b}, nil, site)
			}
		}
	case opLt, opLe, opGt, opGe:
		if x, ok := a.(String); ok {
			if y, ok := b.(String); ok {
				return ordered(op, cmp3(string(x), string(y))), nil
			}
		}
		if x, ok := a.(*List); ok {
			if y, ok := b.(*List); ok {
				return fr.listOrder(op, x, y, site)
			}
		}
	}
	hint := ""
	_, sa := a.(String)
	_, sb := b.(String)
	if op == opAdd && sa != sb {
		hint = "; use str() to convert"
	}
	return nil, fr.errorf(site.pos, "unsupported operand types for %s: %s and %s%s", opSyms[op], Describe(a), Describe(b), hint)
}

// repeatCount reads v as the count of a repetition: an int (or a bool,
// as Python's); a negative count repeats nothing.
func repeatCount(v Value) (int64, bool) {
	switch x := v.(type) {
	case Int:
		return max(int64(x), 0), true
	case Bool:
		if x {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

// repeat is s * n for a string or a list s (ok false for other values):
// n copies of s one after another, checked against the host memory limit
// before anything is built.
func (fr *frame) repeat(s Value, n int64, site *callSite) (v Value, ok bool, err error) {
	var size int64 // of one copy, in bytes
	switch x := s.(type) {
	case String:
		size = int64(len(x))
	case *List:
		size = int64(len(x.Elems)) * int64(unsafe.Sizeof(Value(nil)))
	default:
		return nil, false, nil
	}
	if size == 0 || n == 0 { // nothing to repeat, however often
		if _, isStr := s.(String); isStr {
			return String(""), true, nil
		}
		return NewList(nil), true, nil
	}
	if n > math.MaxInt64/size || fr.th.RT.HostPool().CheckValue(size*n) != nil {
		return nil, true, fr.errorf(site.pos, "cannot repeat %s %d times: the result would exceed the host memory limit", Describe(s), n)
	}
	if x, isStr := s.(String); isStr {
		return String(strings.Repeat(string(x), int(n))), true, nil
	}
	l := s.(*List)
	out := make([]Value, 0, int64(len(l.Elems))*n)
	for range n {
		for _, e := range l.Elems {
			Retain(fr.th.RT, e)
			out = append(out, e)
		}
	}
	return NewList(out), true, nil
}

// listOrder is < <= > >= on two lists, as Python orders them: by the
// first elements that differ (compared with op), else by length.
func (fr *frame) listOrder(op opcode, x, y *List, site *callSite) (Value, error) {
	for i := range min(len(x.Elems), len(y.Elems)) {
		a, b := x.Elems[i], y.Elems[i]
		eq, err := fr.equal(a, b, site.pos)
		if err != nil {
			return nil, err
		}
		if !eq {
			Retain(fr.th.RT, a)
			Retain(fr.th.RT, b)
			return fr.binop(op, a, b, site)
		}
	}
	return ordered(op, cmp3(int64(len(x.Elems)), int64(len(y.Elems)))), nil
}

// ordered is the result of the ordering operator op on operands whose
// three-way comparison is c.
func ordered(op opcode, c int) Value {
	return Bool(op == opLt && c < 0 || op == opLe && c <= 0 || op == opGt && c > 0 || op == opGe && c >= 0)
}

// equal is == on values that are not both tensors: deep on lists and
// records, by identity on functions and modules; none equals only none.
func (fr *frame) equal(a, b Value, pos ast.Pos) (bool, error) {
	return fr.equalAt(a, b, pos, 0)
}

// maxValueDepth bounds how deeply lists and records nest for the
// operations that walk them (==, print, str), so that a list built by
// l = [l] in a long loop is an error rather than a Go stack overflow.
const maxValueDepth = 1000

// same reports whether a and b are one value (one tensor ref, one list),
// which == inside lists and records (and so `in`) counts as equal before
// comparing, as Python does.
func same(a, b Value) bool {
	switch x := a.(type) {
	case Tensor:
		y, ok := b.(Tensor)
		return ok && x.Ref == y.Ref
	case *List:
		y, ok := b.(*List)
		return ok && x == y
	case *Record:
		y, ok := b.(*Record)
		return ok && x == y
	}
	return false
}

// equalAt is equal for values nested depth levels deep in the operands.
func (fr *frame) equalAt(a, b Value, pos ast.Pos, depth int) (bool, error) {
	if depth > maxValueDepth {
		return false, fr.errorf(pos, "cannot compare values nested more than %d levels deep", maxValueDepth)
	}
	_, na := a.(NoneType)
	_, nb := b.(NoneType)
	if na || nb {
		return na && nb, nil
	}
	if same(a, b) {
		return true, nil // as Python's list ==, a value equals itself
	}
	numA := isScalar(a)
	numB := isScalar(b)
	_, ta := a.(Tensor)
	_, tb := b.(Tensor)
	if (numA || ta) && (numB || tb) {
		if numA && numB {
			return compareScalars(opEq, tensor.ResultType(tensor.Meta{DType: ScalarDType(a)}, tensor.Meta{DType: ScalarDType(b)}), a, b), nil
		}
		x, okA := fr.th.AsFloat(a)
		y, okB := fr.th.AsFloat(b)
		if !okA || !okB {
			return false, fr.errorf(pos, "cannot compare %s and %s inside a list or record; compare the tensors themselves", Describe(a), Describe(b))
		}
		return x == y, nil
	}
	switch x := a.(type) {
	case String:
		y, ok := b.(String)
		return ok && x == y, nil
	case Range:
		y, ok := b.(Range)
		return ok && rangeEqual(x, y), nil
	case *List:
		y, ok := b.(*List)
		if !ok || len(x.Elems) != len(y.Elems) {
			return false, nil
		}
		for i := range x.Elems {
			if eq, err := fr.equalAt(x.Elems[i], y.Elems[i], pos, depth+1); !eq || err != nil {
				return false, err
			}
		}
		return true, nil
	case *Record:
		y, ok := b.(*Record)
		if !ok || !x.SameKeys(y) {
			return false, nil
		}
		for i := range x.Keys {
			if eq, err := fr.equalAt(x.Values[i], y.Values[i], pos, depth+1); !eq || err != nil {
				return false, err
			}
		}
		return true, nil
	}
	return a == b, nil
}

// neg is unary minus, consuming v.
func (fr *frame) neg(v Value, site *callSite) (Value, error) {
	switch x := v.(type) {
	case Int:
		return -x, nil
	case Float32:
		return -x, nil
	case Float64:
		return -x, nil
	case Bool:
		return nil, fr.errorf(site.pos, "negation of a bool is not supported; use not")
	case Tensor:
		r, err := fr.submit(site, ops.Neg, nil, x.Ref)
		fr.th.RT.Release(x.Ref)
		return r, err
	}
	err := fr.errorf(site.pos, "cannot negate %s", Describe(v))
	Release(fr.th.RT, v)
	return nil, err
}

// truth reads a condition, consuming v: it must be a number, or a tensor
// of one element (which is forced).
func (fr *frame) truth(v Value, pos ast.Pos) (bool, error) {
	switch x := v.(type) {
	case Bool:
		return bool(x), nil
	case Int:
		return x != 0, nil
	case Float32:
		return x != 0, nil
	case Float64:
		return x != 0, nil
	case Tensor:
		shape := x.Ref.Shape()
		if shape.Numel() != 1 {
			fr.th.RT.Release(x.Ref)
			return false, fr.errorf(pos, "condition is a tensor of shape %v; use any() or all()", shape)
		}
		d, err := fr.th.RT.Read(x.Ref)
		t := err == nil && d.At(0) != 0
		fr.th.RT.Release(x.Ref)
		if err != nil {
			return false, fr.wrap(pos, err)
		}
		return t, nil
	}
	err := fr.errorf(pos, "condition must be a bool or a number, not %s", Describe(v))
	Release(fr.th.RT, v)
	return false, err
}
