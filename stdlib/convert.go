package stdlib

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// torch's tensor methods for creation from a tensor, sizes and
// conversions. Method syntax makes them read as in torch: x.size(1),
// x.float(), x.to("float16"), x.tolist().
func init() {
	register("zeros_like", "zeros_like(input, dtype=none): zeros of input's shape and dtype (or dtype)", builtinLike("zeros", false))
	register("ones_like", "ones_like(input, dtype=none): ones of input's shape and dtype (or dtype)", builtinLike("ones", false))
	register("full_like", "full_like(input, fill_value, dtype=none): fill_value in input's shape and dtype (or dtype)", builtinLike("full", true))
	register("rand_like", "rand_like(input, dtype=none): uniform [0, 1) values of input's shape and floating-point dtype (or dtype)", builtinLike("rand", false))
	register("randn_like", "randn_like(input, dtype=none): standard normal values of input's shape and floating-point dtype (or dtype)", builtinLike("randn", false))
	register("size", "size(input, dim=none): input's shape as a list of ints, or the size of dimension dim (negative counts from the end), as torch's x.size()", builtinSize)
	register("numel", "numel(input): the number of elements, as torch's x.numel()", builtinNumel)
	register("t", "t(input): input with its two dimensions swapped (0-d and 1-d unchanged), as torch's x.t()", builtinT)
	for name, dt := range map[string]tensor.DType{"double": tensor.Float64, "half": tensor.Float16, "bfloat16": tensor.BFloat16, "long": tensor.Int64,
		"short": tensor.Int16, "char": tensor.Int8, "byte": tensor.Uint8} {
		register(name, fmt.Sprintf("%s(input): input converted to %s, as torch's x.%s()", name, dt, name), builtinConvert(name, dt))
	}
	register("float", "float(v): a string parsed as a number, or a tensor converted to float32 (torch's x.float(); a number stays a number)", builtinFloat)
	register("int", "int(v): a string parsed as an int (Python's int(s)), a number truncated toward zero to an int64 number (Python's int(x)), or a tensor with dimensions converted to int32 (torch's x.int())", builtinInt)
	register("bool", "bool(input): input converted to bool (nonzero is true), as torch's x.bool()", builtinConvert("bool", tensor.Bool))
	register("to", "to(input, dtype): input converted to dtype (a name, or another tensor's dtype); a device name (\"cpu\", \"cuda\", \"cuda:0\", ...) returns input unchanged, since the runtime places tensors itself", builtinTo)
	register("clone", "clone(input): input itself (tensors are immutable, so a copy is never needed)", builtinIdentity)
	register("contiguous", "contiguous(input): input itself (tref's tensors are always contiguous), so that torch code calling x.contiguous() runs unchanged", builtinIdentity)
	register("tolist", "tolist(input): input's elements as nested lists of numbers (a number for a 0-d tensor), as torch's x.tolist()", builtinTolist)
}

// builtinLike makes name_like: the creation builtin name called with
// input's shape and (unless given) dtype.
func builtinLike(name string, withValue bool) eval.BuiltinFunc {
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		fname := b.Name // name_like, or a torch name for it (empty_like)
		var x *refs.Ref
		var value, dtv eval.Value = eval.None, eval.None
		pairs := []any{"input", &x}
		if withValue {
			pairs = append(pairs, "fill_value", &value)
		}
		pairs = append(pairs, "dtype?", &dtv)
		if err := eval.UnpackArgs(th, fname, args, kwargs, pairs...); err != nil {
			return nil, err
		}
		dt, err := dtypeOr(fname, dtv, x.DType())
		if err != nil {
			return nil, err
		}
		if (name == "rand" || name == "randn") && !dt.IsFloat() {
			return nil, fmt.Errorf("%s: expected a floating-point dtype, got %s (pass dtype=\"float32\")", fname, dt)
		}
		shape := shapeList(x.Shape())
		call := []eval.Value{shape}
		if withValue {
			call = append(call, value)
		}
		return eval.CallBuiltin(th, table[name], call, []eval.Kwarg{{Name: "dtype", Value: eval.String(dt.String())}})
	}
}

// shapeList is a shape as a script list of ints.
func shapeList(s tensor.Shape) *eval.List {
	elems := make([]eval.Value, len(s))
	for i, d := range s {
		elems[i] = eval.Int(d)
	}
	return eval.NewList(elems)
}

func builtinSize(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	var dim eval.OptInt
	if err := eval.UnpackArgs(th, "size", args, kwargs, "input", &x, "dim?", &dim); err != nil {
		return nil, err
	}
	s := x.Shape()
	if !dim.Set {
		return shapeList(s), nil
	}
	d, err := tensor.NormDim(dim.V, len(s))
	if err != nil {
		return nil, fmt.Errorf("size: %v (shape %v)", err, s)
	}
	return eval.Int(s[d]), nil
}

func builtinNumel(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	if err := eval.UnpackArgs(th, "numel", args, kwargs, "input", &x); err != nil {
		return nil, err
	}
	return eval.Int(x.Shape().Numel()), nil
}

func builtinT(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	if err := eval.UnpackArgs(th, "t", args, kwargs, "input", &x); err != nil {
		return nil, err
	}
	switch s := x.Shape(); len(s) {
	case 0, 1:
		th.RT.Retain(x)
		return eval.Tensor{Ref: x}, nil
	case 2:
		return th.Submit(ops.Permute, ops.PermuteAttrs{Dims: []int{1, 0}}, x)
	default:
		return nil, fmt.Errorf("t: expects a tensor with at most 2 dimensions, got shape %v (use transpose or permute)", s)
	}
}

// convert returns x as dt (x itself, retained, when it already is).
func convert(th *eval.Thread, x *refs.Ref, dt tensor.DType) (eval.Value, error) {
	if x.DType() == dt {
		th.RT.Retain(x)
		return eval.Tensor{Ref: x}, nil
	}
	return th.Submit(ops.Astype, ops.CastAttrs{To: dt}, x)
}

func builtinConvert(name string, dt tensor.DType) eval.BuiltinFunc {
	return func(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		var x *refs.Ref
		if err := eval.UnpackArgs(th, name, args, kwargs, "input", &x); err != nil {
			return nil, err
		}
		return convert(th, x, dt)
	}
}

func builtinFloat(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var v eval.Value
	if err := eval.UnpackArgs(th, "float", args, kwargs, "v", &v); err != nil {
		return nil, err
	}
	if s, ok := v.(eval.String); ok {
		f, err := strconv.ParseFloat(strings.TrimSpace(strings.ReplaceAll(string(s), "_", "")), 32)
		if err != nil && !isRangeErr(err) {
			return nil, fmt.Errorf("float: could not convert string to float: %q", string(s))
		}
		return eval.Float32(f), nil
	}
	x, err := th.ToRef(v)
	if err != nil {
		return nil, fmt.Errorf("float: argument \"v\" must be a string, a number or a tensor, not %s", eval.Describe(v))
	}
	return convert(th, x, tensor.Float32)
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

func builtinInt(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var v eval.Value
	if err := eval.UnpackArgs(th, "int", args, kwargs, "v", &v); err != nil {
		return nil, err
	}
	if s, ok := v.(eval.String); ok {
		n, err := strconv.ParseInt(strings.ReplaceAll(strings.TrimSpace(string(s)), "_", ""), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("int: invalid literal for int() with base 10: %q", string(s))
		}
		return eval.Int(n), nil
	}
	x, err := th.ToRef(v)
	if err != nil {
		return nil, fmt.Errorf("int: argument \"v\" must be a string, a number or a tensor, not %s", eval.Describe(v))
	}
	if len(x.Shape()) == 0 {
		return convert(th, x, tensor.Int64)
	}
	return convert(th, x, tensor.Int32)
}

func builtinTo(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	var target eval.Value
	if err := eval.UnpackArgs(th, "to", args, kwargs, "input", &x, "dtype", &target); err != nil {
		return nil, err
	}
	switch t := target.(type) {
	case eval.Tensor:
		return convert(th, x, t.Ref.DType())
	case eval.String:
		if dt, ok := tensor.ParseDType(string(t)); ok {
			return convert(th, x, dt)
		}
		if isDeviceName(string(t)) {
			th.RT.Retain(x)
			return eval.Tensor{Ref: x}, nil
		}
		return nil, fmt.Errorf("to: %q is neither a dtype (%s) nor a device", string(t), tensor.DTypeList)
	}
	return nil, fmt.Errorf("to: argument \"dtype\" must be a dtype name, a device name or a tensor, not %s", eval.Describe(target))
}

// isDeviceName accepts torch's device strings: "cpu", "cuda", "cuda:N",
// "mps".
func isDeviceName(s string) bool {
	if s == "cpu" || s == "cuda" || s == "mps" {
		return true
	}
	n, ok := strings.CutPrefix(s, "cuda:")
	if !ok || n == "" {
		return false
	}
	_, err := strconv.Atoi(n)
	return err == nil
}

// builtinIdentity returns its tensor argument: clone and contiguous,
// which immutable contiguous tensors make no-ops.
func builtinIdentity(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input", &x); err != nil {
		return nil, err
	}
	th.RT.Retain(x)
	return eval.Tensor{Ref: x}, nil
}

// maxListElements bounds tolist: a script list holds each element as a
// value of its own.
const maxListElements = 1 << 24

func builtinTolist(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	if err := eval.UnpackArgs(th, "tolist", args, kwargs, "input", &x); err != nil {
		return nil, err
	}
	n := x.Shape().Numel()
	if n > maxListElements {
		return nil, fmt.Errorf("tolist: %v has %d elements, more than the %d a list may hold", x.Shape(), n, maxListElements)
	}
	// Each element takes a list slot and a boxed number: lists count
	// against the host memory limit.
	if err := th.RT.HostPool().CheckValue(int64(n) * 24); err != nil {
		return nil, fmt.Errorf("tolist: %w", err)
	}
	d, err := th.RT.Read(x)
	if err != nil {
		return nil, err
	}
	next := 0
	var build func(dims tensor.Shape) eval.Value
	build = func(dims tensor.Shape) eval.Value {
		if len(dims) == 0 {
			v := elementValue(d, next)
			next++
			return v
		}
		elems := make([]eval.Value, dims[0])
		for i := range elems {
			elems[i] = build(dims[1:])
		}
		return eval.NewList(elems)
	}
	return build(d.Shape), nil
}

// elementValue is element i of d as a script number.
func elementValue(d *tensor.Dense, i int) eval.Value {
	switch {
	case d.DType == tensor.Bool:
		return eval.Bool(d.Buf[i] != 0)
	case d.DType == tensor.Uint64 && d.U64()[i] >= 1<<63:
		return eval.Float64(float64(d.U64()[i]))
	case d.DType.IsInt():
		return eval.Int(d.IntAt(i))
	case d.DType == tensor.Float64:
		return eval.Float64(d.F64()[i])
	}
	return eval.Float32(float32(d.At(i)))
}
