package eval

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/tref-lang/tref/lang/parser"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Format renders v as print shows it, without forcing anything: a tensor
// whose data is not on the host yet prints as a placeholder. Use
// Thread.Format to force pending values first.
func Format(v Value) string { return formatNow(v, false) }

// reprNow is Format for a value shown inside a list (a string quoted), for
// messages.
func reprNow(v Value) string { return formatNow(v, true) }

func formatNow(v Value, inner bool) string {
	var b strings.Builder
	f := formatter{b: &b, read: func(r *refs.Ref) (*tensor.Dense, error) { return r.Host(), nil }}
	f.value(v, inner)
	return b.String()
}

// Format renders v as print shows it, forcing its tensors (running their
// pending ops) and reading them to the host.
func (th *Thread) Format(v Value) (string, error) {
	var b strings.Builder
	f := formatter{b: &b, read: th.RT.Read, check: th.RT.HostPool().CheckValue}
	f.value(v, false)
	return b.String(), f.err
}

// Repr renders v as print shows it inside a list: a string quoted
// ("a\tb" as "\"a\\tb\""), the rest as Format does; Python's repr() and
// the !r of str.format.
func (th *Thread) Repr(v Value) (string, error) {
	var b strings.Builder
	f := formatter{b: &b, read: th.RT.Read, check: th.RT.HostPool().CheckValue}
	f.value(v, true)
	return b.String(), f.err
}

type formatter struct {
	b     *strings.Builder
	read  func(*refs.Ref) (*tensor.Dense, error)
	err   error
	depth int // of lists and records around the value being written
	// check, when set, is asked before the text grows past next bytes:
	// a printed value counts against the host memory limit as a string
	// does (HostPool.CheckValue); full stops the writing once it failed.
	check func(n int64) error
	next  int
	full  bool
}

// room checks, before v is written, that the text may grow by v's size
// (a string's) and the doubling a builder does.
func (f *formatter) room(v Value) bool {
	if f.check == nil {
		return true
	}
	need := f.b.Len()
	if s, ok := v.(String); ok {
		need += len(s)
	}
	if f.full || need < f.next {
		return !f.full
	}
	if err := f.check(2 * int64(need)); err != nil {
		f.full = true
		if f.err == nil {
			f.err = fmt.Errorf("the value's text would be too large: %v", err)
		}
		return false
	}
	f.next = 2 * need
	return true
}

// enter goes one level into a list or record; past maxValueDepth it
// writes "..." and fails instead.
func (f *formatter) enter() bool {
	if f.depth >= maxValueDepth {
		f.b.WriteString("...")
		if f.err == nil {
			f.err = fmt.Errorf("cannot print a value nested more than %d levels deep", maxValueDepth)
		}
		return false
	}
	f.depth++
	return true
}

func (f *formatter) leave() { f.depth-- }

// value writes v; inner is set inside lists and records, where strings
// are quoted.
func (f *formatter) value(v Value, inner bool) {
	if !f.room(v) {
		return
	}
	b := f.b
	switch x := v.(type) {
	case Bool:
		if x {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case Int:
		b.WriteString(strconv.FormatInt(int64(x), 10))
	case Float32:
		b.WriteString(FormatFloat(float64(x), 32))
	case Float64:
		b.WriteString(FormatFloat(float64(x), 64))
	case String:
		if inner {
			b.WriteString(strconv.Quote(string(x)))
		} else {
			b.WriteString(string(x))
		}
	case NoneType:
		b.WriteString("none")
	case Tensor:
		f.tensor(x.Ref)
	case *List:
		if !f.enter() {
			return
		}
		defer f.leave()
		b.WriteByte('[')
		for i, e := range x.Elems {
			if i > 0 {
				b.WriteString(", ")
			}
			f.value(e, true)
		}
		b.WriteByte(']')
	case *Record:
		if !f.enter() {
			return
		}
		defer f.leave()
		b.WriteByte('{')
		for i, k := range x.Keys {
			if i > 0 {
				b.WriteString(", ")
			}
			if parser.IsIdent(k) || x.IsIntKey(i) {
				b.WriteString(k) // {0: "a"} is an int key
			} else {
				b.WriteString(strconv.Quote(k)) // {"b c": 1} reads back
			}
			b.WriteString(": ")
			if i < len(x.Values) {
				f.value(x.Values[i], true)
			}
		}
		b.WriteByte('}')
	case Range:
		b.WriteString("range(")
		b.WriteString(strconv.FormatInt(x.Start, 10))
		b.WriteString(", ")
		b.WriteString(strconv.FormatInt(x.Stop, 10))
		if x.Step != 1 {
			b.WriteString(", ")
			b.WriteString(strconv.FormatInt(x.Step, 10))
		}
		b.WriteByte(')')
	case *Closure:
		b.WriteString("<fn " + x.Name() + ">")
	case *Builtin:
		if x.Members != nil {
			b.WriteString("<module " + x.Name + ">")
			break
		}
		b.WriteString("<builtin " + x.Name + ">")
	case *Bound:
		b.WriteString("<fn " + x.Name + ">")
	case *Module:
		b.WriteString("<module " + x.Name + ">")
	case Object:
		b.WriteString(x.String())
	case nil:
		b.WriteString("none")
	default:
		b.WriteString("<" + v.Type() + ">")
	}
}

func (f *formatter) tensor(r *refs.Ref) {
	d, err := f.read(r)
	if err != nil {
		if f.err == nil {
			f.err = err
		}
		f.b.WriteString("<error>")
		return
	}
	if d == nil {
		f.b.WriteString("<pending " + r.Meta().String() + ">")
		return
	}
	if len(d.Shape) == 0 {
		f.value(scalarOf(d), false)
		return
	}
	f.b.WriteString(formatTensor(d))
}

// scalarOf unboxes a 0-d host tensor (half types widen to float32, the
// integer types to int64).
func scalarOf(d *tensor.Dense) Value {
	switch {
	case d.DType == tensor.Bool:
		return Bool(d.Buf[0] != 0)
	case d.DType == tensor.Uint64 && d.U64()[0] >= 1<<63:
		return Float64(float64(d.U64()[0]))
	case d.DType.IsInt():
		return Int(d.IntAt(0))
	case d.DType == tensor.Float64:
		return Float64(d.F64()[0])
	}
	return Float32(float32(d.At(0)))
}

// FormatFloat prints a float the way Python's repr does, with the
// shortest digits that round-trip at the given precision (32 or 64 bits):
// 0.1, 7.0, 1e-05, 1.5e+16, inf, nan.
func FormatFloat(x float64, bits int) string {
	switch {
	case math.IsNaN(x):
		return "nan"
	case math.IsInf(x, 1):
		return "inf"
	case math.IsInf(x, -1):
		return "-inf"
	}
	e := strconv.FormatFloat(x, 'e', -1, bits)
	i := strings.IndexByte(e, 'e')
	exp, _ := strconv.Atoi(e[i+1:])
	if exp < -4 || exp >= 16 {
		return e
	}
	s := strconv.FormatFloat(x, 'f', -1, bits)
	if !strings.ContainsAny(s, ".") {
		s += ".0"
	}
	return s
}

// formatTensor prints a tensor of at least one dimension as PyTorch does.
func formatTensor(d *tensor.Dense) string { return tensor.Format(d) }
