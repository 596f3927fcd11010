package stdlib

import (
	"fmt"
	"math"
	"strings"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Creation builtins. zeros, ones, full and their _like forms are the op
// full (ops.Full), which the placement engine runs where the tensor is
// wanted; every other tensor is built on the host and handed to the
// runtime ready (refs.Runtime.FromHost). Random ones draw from the
// thread's stream (eval.Thread.Rand), so a seed gives the same numbers on
// every device.
func init() {
	register("tensor", "tensor(data, dtype=none): a tensor from a nested list of numbers (dtype inferred like torch.tensor: bool, int64, else float32)", builtinTensor)
	register("zeros", "zeros(shape, dtype=\"float32\"): a tensor of zeros; shape is a list of ints, one int, or several ints (zeros(2, 3))", builtinFill(0))
	register("ones", "ones(shape, dtype=\"float32\"): a tensor of ones", builtinFill(1))
	register("full", "full(shape, value, dtype=none): a tensor filled with value (dtype from the value: bool, int64 or float32)", builtinFull)
	register("arange", "arange(start, end=none, step=1, dtype=none): start, start+step, ... up to end (excluded); arange(n) is 0..n-1; int arguments give int64, any float float32", builtinArange)
	register("linspace", "linspace(start, end, steps, dtype=\"float32\"): steps evenly spaced values from start to end inclusive", builtinLinspace)
	register("eye", "eye(n, m=none, dtype=\"float32\"): an n x m identity matrix (m defaults to n)", builtinEye)
	register("rand", "rand(shape, dtype=\"float32\"): uniform random values in [0, 1)", builtinRand)
	register("randn", "randn(shape, dtype=\"float32\"): standard normal random values", builtinRandn)
	register("randint", "randint(lo, hi, shape, dtype=\"int64\"): uniform random integers in [lo, hi)", builtinRandint)
	register("seed", "seed(n): restart the random stream of rand, randn, randint, randperm, multinomial and dropout from seed n", builtinSeed)
}

// newHost takes a zeroed host tensor from the host pool (so creation in a
// loop reuses freed blocks) after checking that its size is sane and fits
// in host memory.
func newHost(th *eval.Thread, fname string, shape tensor.Shape, dt tensor.DType) (*tensor.Dense, error) {
	if _, err := tensor.CheckedNumel(shape); err != nil {
		return nil, fmt.Errorf("%s: %v", fname, err)
	}
	d, err := th.RT.HostPool().Take(tensor.Meta{Shape: shape.Clone(), DType: dt})
	if err != nil {
		return nil, fmt.Errorf("%s: a tensor of shape %v (%s): %v", fname, shape, dt, err)
	}
	return d, nil
}

// hostResult hands a host tensor to the runtime as an owned value.
func hostResult(th *eval.Thread, d *tensor.Dense) eval.Value {
	return eval.Tensor{Ref: th.RT.FromHost(th.Site(), d)}
}

// optDType reads an optional dtype argument (none or absent: ok is false).
func optDType(fname string, v eval.Value) (dt tensor.DType, ok bool, err error) {
	switch v := v.(type) {
	case nil, eval.NoneType:
		return tensor.Invalid, false, nil
	case eval.String:
		d, ok := tensor.ParseDType(string(v))
		if !ok {
			return tensor.Invalid, false, fmt.Errorf("%s: unknown dtype %q (%s)", fname, string(v), tensor.DTypeList)
		}
		return d, true, nil
	}
	return tensor.Invalid, false, fmt.Errorf("%s: argument \"dtype\" must be a dtype name, not %s", fname, eval.Describe(v))
}

// dtypeOr reads an optional dtype argument, def when absent or none.
func dtypeOr(fname string, v eval.Value, def tensor.DType) (tensor.DType, error) {
	dt, set, err := optDType(fname, v)
	if !set {
		dt = def
	}
	return dt, err
}

// valueDType is the dtype of a number argument: a scalar's own, or a
// tensor's.
func valueDType(v eval.Value) tensor.DType {
	if t, ok := v.(eval.Tensor); ok {
		return t.Ref.DType()
	}
	return eval.ScalarDType(v)
}

// unpackShapeDType reads the (shape, dtype=) arguments of zeros, ones,
// rand and randn. The shape may also be spelled as separate ints, as in
// zeros(2, 3).
func unpackShapeDType(th *eval.Thread, fname string, args []eval.Value, kwargs []eval.Kwarg) (tensor.Shape, eval.Value, error) {
	var shape tensor.Shape
	var dtv eval.Value
	k := 0
	for k < len(args) && isIntValue(args[k]) {
		k++
	}
	if k >= 2 {
		shape = make(tensor.Shape, k)
		for i := range k {
			shape[i], _ = th.AsInt(args[i])
		}
		err := eval.UnpackArgs(th, fname, args[k:], kwargs, "dtype?", &dtv)
		return shape, dtv, err
	}
	err := eval.UnpackArgs(th, fname, args, kwargs, "shape|size", &shape, "dtype?", &dtv)
	return shape, dtv, err
}

func builtinFill(v float64) eval.BuiltinFunc {
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		shape, dtv, err := unpackShapeDType(th, b.Name, args, kwargs)
		if err != nil {
			return nil, err
		}
		dt, err := dtypeOr(b.Name, dtv, tensor.Float32)
		if err != nil {
			return nil, err
		}
		return submitFull(th, b.Name, shape, ops.FloatScalar(v, dt))
	}
}

// submitFull submits the op that fills shape with v (ops.Full): the
// placement engine makes it where it is wanted, on an accelerator a fill
// of device memory rather than a host tensor copied over.
func submitFull(th *eval.Thread, fname string, shape tensor.Shape, v ops.Scalar) (eval.Value, error) {
	n, err := tensor.CheckedNumel(shape)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", fname, err)
	}
	// As a host tensor would be, it is refused before anything runs when
	// it cannot fit under the host limit (it may have to live there).
	if err := th.RT.HostPool().Check(int64(n) * int64(v.DType.Size())); err != nil {
		return nil, fmt.Errorf("%s: a tensor of shape %v (%s): %v", fname, shape, v.DType, err)
	}
	return th.Submit(ops.Full, ops.FullAttrs{Shape: shape.Clone(), Value: v})
}

func builtinFull(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var shape tensor.Shape
	var value, dtv eval.Value
	if err := eval.UnpackArgs(th, "full", args, kwargs, "shape|size", &shape, "value|fill_value", &value, "dtype?", &dtv); err != nil {
		return nil, err
	}
	v, ok := th.AsFloat(value)
	if !ok {
		return nil, fmt.Errorf("full: argument \"value\" must be a number, not %s", eval.Describe(value))
	}
	dt, set, err := optDType("full", dtv)
	if err != nil {
		return nil, err
	}
	if !set {
		switch vd := valueDType(value); {
		case vd == tensor.Bool:
			dt = tensor.Bool
		case vd.IsInt():
			dt = tensor.Int64
		case vd == tensor.Float64:
			dt = tensor.Float64
		default:
			dt = tensor.Float32
		}
	}
	if dt == tensor.Int64 {
		if n, ok := th.AsInt(value); ok {
			return submitFull(th, "full", shape, ops.IntScalar(int64(n))) // exact beyond 2^53
		}
	}
	return submitFull(th, "full", shape, ops.FloatScalar(v, dt))
}

// nested is the flattened content of tensor()'s nested list.
type nested struct {
	dtypes []tensor.DType // every leaf's dtype, for inference
	vals   []float64
	ints   []int64 // exact integer values (valid where the leaf is an integer)
}

// pathString formats a position in a nested list: [1, 0].
func pathString(path []int) string {
	parts := make([]string, len(path))
	for i, p := range path {
		parts[i] = fmt.Sprint(p)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// walk appends the leaves of v (a number, a tensor or a list) found at
// path, and returns v's shape.
func (n *nested) walk(th *eval.Thread, v eval.Value, path []int) (tensor.Shape, error) {
	switch v := v.(type) {
	case *eval.List:
		if len(v.Elems) == 0 {
			return tensor.Shape{0}, nil
		}
		var first tensor.Shape
		for i, e := range v.Elems {
			at := append(path[:len(path):len(path)], i)
			s, err := n.walk(th, e, at)
			if err != nil {
				return nil, err
			}
			if i == 0 {
				first = s
				continue
			}
			if !s.Equal(first) {
				return nil, fmt.Errorf("tensor: ragged nested list: element %s has shape %v, but element %s has shape %v",
					pathString(at), s, pathString(append(path[:len(path):len(path)], 0)), first)
			}
		}
		return append(tensor.Shape{len(v.Elems)}, first...), nil
	case eval.Tensor:
		d, err := th.RT.Read(v.Ref)
		if err != nil {
			return nil, err
		}
		for i := range d.Numel() {
			n.dtypes = append(n.dtypes, d.DType)
			n.vals = append(n.vals, d.At(i))
			var iv int64
			if d.DType.IsInt() {
				iv = d.IntAt(i)
			}
			n.ints = append(n.ints, iv)
		}
		return d.Shape.Clone(), nil
	case eval.Bool, eval.Int, eval.Float32, eval.Float64:
		n.dtypes = append(n.dtypes, eval.ScalarDType(v))
		f, _ := th.AsFloat(v)
		n.vals = append(n.vals, f)
		iv := int64(0)
		if i, ok := v.(eval.Int); ok {
			iv = int64(i)
		}
		n.ints = append(n.ints, iv)
		return tensor.Shape{}, nil
	}
	where := "the data"
	if len(path) > 0 {
		where = "element " + pathString(path)
	}
	return nil, fmt.Errorf("tensor: %s is %s, expected a number or a list", where, eval.Describe(v))
}

func builtinTensor(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var data, dtv eval.Value
	if err := eval.UnpackArgs(th, "tensor", args, kwargs, "data", &data, "dtype?", &dtv); err != nil {
		return nil, err
	}
	dt, set, err := optDType("tensor", dtv)
	if err != nil {
		return nil, err
	}
	var n nested
	shape, err := n.walk(th, data, nil)
	if err != nil {
		return nil, err
	}
	if !set {
		dt = tensor.Float32 // an empty list, as in torch
		if len(n.dtypes) > 0 {
			metas := make([]tensor.Meta, len(n.dtypes))
			for i, d := range n.dtypes {
				metas[i] = tensor.Meta{Shape: tensor.Shape{1}, DType: d}
			}
			dt = ops.PromoteAll(metas)
		}
	}
	d, err := newHost(th, "tensor", shape, dt)
	if err != nil {
		return nil, err
	}
	for i, v := range n.vals {
		if dt.IsInt() && n.dtypes[i].IsInt() {
			d.SetInt(i, n.ints[i])
			continue
		}
		d.Set(i, v)
	}
	return hostResult(th, d), nil
}

// isIntValue reports whether a number argument is an integer (or bool).
func isIntValue(v eval.Value) bool {
	dt := valueDType(v)
	return dt == tensor.Bool || dt.IsInt()
}

func builtinArange(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var a, b, dtv eval.Value
	var step eval.Value = eval.Int(1)
	if err := eval.UnpackArgs(th, "arange", args, kwargs, "start", &a, "end?", &b, "step?", &step, "dtype?", &dtv); err != nil {
		return nil, err
	}
	if b == nil || b == eval.None {
		a, b = eval.Int(0), a
	}
	allInt := true
	var f [3]float64
	for i, v := range []eval.Value{a, b, step} {
		x, ok := th.AsFloat(v)
		if !ok {
			return nil, fmt.Errorf("arange: %s must be a number, not %s", []string{"start", "end", "step"}[i], eval.Describe(v))
		}
		f[i] = x
		allInt = allInt && isIntValue(v)
	}
	dt, set, err := optDType("arange", dtv)
	if err != nil {
		return nil, err
	}
	if !set {
		dt = tensor.Float32
		if allInt {
			dt = tensor.Int64
		}
	}
	start, end, st := f[0], f[1], f[2]
	switch {
	case st == 0:
		return nil, fmt.Errorf("arange: step must be nonzero")
	case math.IsNaN(start) || math.IsNaN(end) || math.IsInf(start, 0) || math.IsInf(end, 0):
		return nil, fmt.Errorf("arange: start and end must be finite, got %v and %v", start, end)
	case math.IsNaN(st) || math.IsInf(st, 0):
		return nil, fmt.Errorf("arange: step must be finite, got %v", st)
	case (st > 0 && end < start) || (st < 0 && end > start):
		return nil, fmt.Errorf("arange: step %v goes away from end %v starting at %v", st, end, start)
	}
	count := math.Ceil((end - start) / st)
	if count > tensor.MaxElements {
		return nil, fmt.Errorf("arange: %v values is more than %d elements", count, tensor.MaxElements)
	}
	d, err := newHost(th, "arange", tensor.Shape{int(count)}, dt)
	if err != nil {
		return nil, err
	}
	if allInt && dt == tensor.Int64 {
		s0, _ := th.AsInt(a)
		s1, _ := th.AsInt(step)
		for i := range d.I64() {
			d.I64()[i] = int64(s0) + int64(i)*int64(s1)
		}
		return hostResult(th, d), nil
	}
	for i := range int(count) {
		d.Set(i, start+st*float64(i)) // computed in float64, as torch's accumulate type
	}
	return hostResult(th, d), nil
}

func builtinLinspace(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var start, end float64
	var steps int
	var dtv eval.Value
	if err := eval.UnpackArgs(th, "linspace", args, kwargs, "start", &start, "end", &end, "steps", &steps, "dtype?", &dtv); err != nil {
		return nil, err
	}
	dt, err := dtypeOr("linspace", dtv, tensor.Float32)
	if err != nil {
		return nil, err
	}
	if steps < 0 {
		return nil, fmt.Errorf("linspace: steps must be non-negative, got %d", steps)
	}
	d, err := newHost(th, "linspace", tensor.Shape{steps}, dt)
	if err != nil {
		return nil, err
	}
	linspaceInto(d, start, end)
	return hostResult(th, d), nil
}

// linspaceInto fills the 1-d d with evenly spaced values from start to
// end inclusive, as torch's linspace kernel: the first half counts up
// from start, the second half down from end, so both ends are exact;
// float32 in float32 arithmetic.
func linspaceInto(d *tensor.Dense, start, end float64) {
	steps := d.Numel()
	if steps == 1 {
		d.Set(0, start)
		return
	}
	half := steps / 2
	if d.DType == tensor.Float32 {
		s, e := float32(start), float32(end)
		step := (e - s) / float32(steps-1)
		out := d.F32()
		for i := range out {
			if i < half {
				out[i] = s + step*float32(i)
			} else {
				out[i] = e - step*float32(steps-i-1)
			}
		}
		return
	}
	step := (end - start) / float64(steps-1)
	for i := range steps {
		if i < half {
			d.Set(i, start+step*float64(i))
		} else {
			d.Set(i, end-step*float64(steps-i-1))
		}
	}
}

func builtinEye(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var n int
	var m eval.OptInt
	var dtv eval.Value
	if err := eval.UnpackArgs(th, "eye", args, kwargs, "n", &n, "m?", &m, "dtype?", &dtv); err != nil {
		return nil, err
	}
	dt, err := dtypeOr("eye", dtv, tensor.Float32)
	if err != nil {
		return nil, err
	}
	cols := n
	if m.Set {
		cols = m.V
	}
	d, err := identity(th, "eye", n, cols, dt)
	if err != nil {
		return nil, err
	}
	return hostResult(th, d), nil
}

// identity is an n x m host matrix of dtype dt with ones on its diagonal
// (eye, inverse), taken from the host pool within its limit.
func identity(th *eval.Thread, fname string, n, m int, dt tensor.DType) (*tensor.Dense, error) {
	d, err := newHost(th, fname, tensor.Shape{n, m}, dt)
	if err != nil {
		return nil, err
	}
	for i := range min(n, m) {
		d.Set(i*m+i, 1)
	}
	return d, nil
}

// randomFloats is rand and randn: float32 and float64 are drawn directly,
// the half types are drawn as float32 and rounded.
func randomFloats(fname string, normal bool) eval.BuiltinFunc {
	return func(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		shape, dtv, err := unpackShapeDType(th, fname, args, kwargs)
		if err != nil {
			return nil, err
		}
		dt, err := dtypeOr(fname, dtv, tensor.Float32)
		if err != nil {
			return nil, err
		}
		if !dt.IsFloat() {
			return nil, fmt.Errorf("%s: dtype must be a floating-point type, got %s", fname, dt)
		}
		d, err := newHost(th, fname, shape, dt)
		if err != nil {
			return nil, err
		}
		src := th.Rand()
		switch {
		case dt == tensor.Float64 && normal:
			src.FillNormal64(d.F64())
		case dt == tensor.Float64:
			src.FillUniform64(d.F64())
		default:
			f := d.F32()
			if dt != tensor.Float32 {
				f = make([]float32, d.Numel())
			}
			if normal {
				src.FillNormal32(f)
			} else {
				src.FillUniform32(f)
			}
			if dt != tensor.Float32 {
				for i, v := range f {
					d.Set(i, float64(v))
				}
			}
		}
		return hostResult(th, d), nil
	}
}

var (
	builtinRand  = randomFloats("rand", false)
	builtinRandn = randomFloats("randn", true)
)

func builtinRandint(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var lo, hi int
	var shape tensor.Shape
	var dtv eval.Value
	if err := eval.UnpackArgs(th, "randint", args, kwargs, "lo|low", &lo, "hi|high", &hi, "shape|size", &shape, "dtype?", &dtv); err != nil {
		return nil, err
	}
	dt, err := dtypeOr("randint", dtv, tensor.Int64)
	if err != nil {
		return nil, err
	}
	if hi <= lo {
		return nil, fmt.Errorf("randint: hi (%d) must be greater than lo (%d)", hi, lo)
	}
	d, err := newHost(th, "randint", shape, tensor.Int64)
	if err != nil {
		return nil, err
	}
	th.Rand().FillInt64(d.I64(), int64(lo), int64(hi))
	if dt != tensor.Int64 {
		c, err := newHost(th, "randint", shape, dt)
		if err != nil {
			return nil, err
		}
		for i, v := range d.I64() {
			if dt.IsInt() {
				c.SetInt(i, v)
			} else {
				c.Set(i, float64(v))
			}
		}
		d = c
	}
	return hostResult(th, d), nil
}

func builtinSeed(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var n int
	if err := eval.UnpackArgs(th, "seed", args, kwargs, "n", &n); err != nil {
		return nil, err
	}
	th.Rand().Seed(uint64(n))
	return eval.None, nil
}
