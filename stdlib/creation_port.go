package stdlib

import (
	"fmt"
	"math"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// PyTorch's other ways to make a tensor: Tensor.new_* (a tensor like
// another's dtype), empty (tref never hands out uninitialised memory, so
// it is zeros), scalar_tensor, and the signal windows; and the dtype
// questions torch answers (result_type, promote_types, can_cast).
func init() {
	for _, n := range []string{"new_zeros", "new_ones", "new_empty", "new_full", "new_tensor", "empty", "empty_like", "scalar_tensor",
		"hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window"} {
		takesDevice[n] = true
	}
	register("new_zeros", "new_zeros(input, size, dtype=none): zeros of shape size (a list of ints, or several ints) in input's dtype (or dtype), as torch.Tensor.new_zeros", builtinNewFill("zeros"))
	register("new_ones", "new_ones(input, size, dtype=none): ones of shape size in input's dtype (or dtype), as torch.Tensor.new_ones", builtinNewFill("ones"))
	register("new_empty", "new_empty(input, size, dtype=none): a tensor of shape size in input's dtype (or dtype), as torch.Tensor.new_empty; tref never hands out uninitialised memory, so it holds zeros", builtinNewFill("zeros"))
	register("new_full", "new_full(input, size, fill_value, dtype=none): fill_value in shape size and input's dtype (or dtype), as torch.Tensor.new_full", builtinNewFull)
	register("new_tensor", "new_tensor(input, data, dtype=none): a tensor from data (a nested list of numbers, or a tensor) in input's dtype (or dtype), as torch.Tensor.new_tensor", builtinNewTensor)
	register("empty", "empty(shape, dtype=\"float32\"): a tensor of the shape, as torch.empty; tref never hands out uninitialised memory, so it holds zeros (as zeros)", builtinFill(0))
	register("empty_like", "empty_like(input, dtype=none): a tensor of input's shape and dtype (or dtype), as torch.empty_like; it holds zeros (as zeros_like)", builtinLike("zeros", false))
	register("scalar_tensor", "scalar_tensor(s, dtype=\"float32\"): the number s as a 0-d tensor of dtype (float32 unless given, whatever s is), as torch.scalar_tensor", builtinScalarTensor)
	register("hann_window", "hann_window(window_length, periodic=true, dtype=\"float32\"): 0.5 - 0.5·cos(2πn/N) for n < window_length, N = window_length when periodic, else window_length - 1 (a length of 1 gives [1]), as torch.hann_window", builtinWindow("hann"))
	register("hamming_window", "hamming_window(window_length, periodic=true, alpha=0.54, beta=0.46, dtype=\"float32\"): alpha - beta·cos(2πn/N), N as hann_window's, as torch.hamming_window", builtinWindow("hamming"))
	register("blackman_window", "blackman_window(window_length, periodic=true, dtype=\"float32\"): 0.42 - 0.5·cos(2πn/N) + 0.08·cos(4πn/N), N as hann_window's, as torch.blackman_window", builtinWindow("blackman"))
	register("bartlett_window", "bartlett_window(window_length, periodic=true, dtype=\"float32\"): the triangle 1 - |2n/N - 1|, N as hann_window's, as torch.bartlett_window", builtinWindow("bartlett"))
	register("kaiser_window", "kaiser_window(window_length, periodic=true, beta=12.0, dtype=\"float32\"): i0(beta·sqrt(1 - ((n - N/2)/(N/2))²)) / i0(beta), N as hann_window's, as torch.kaiser_window", builtinWindow("kaiser"))
	register("result_type", "result_type(tensor1, tensor2): the dtype name that tensor1 + tensor2 gives (either may be a number), as torch.result_type: tensors with dimensions decide, then 0-d tensors, then numbers (see the arithmetic in spec/README.md)", builtinResultType)
	register("promote_types", "promote_types(type1, type2): the dtype name two tensors of those dtypes promote to (\"int8\" and \"uint8\" give \"int16\"), as torch.promote_types", builtinPromoteTypes)
	register("can_cast", "can_cast(from_, to): whether torch's casting rules let a value of dtype from_ become dtype to without changing its kind: false for a float to an integer or bool and for a non-bool to bool, as torch.can_cast", builtinCanCast)
}

// unpackNewShape reads the (input, size..., dtype=) of Tensor.new_zeros
// and its kin: the size a list of ints or several ints, and the dtype
// (input's unless given).
func unpackNewShape(th *eval.Thread, fname string, args []eval.Value, kwargs []eval.Kwarg) (tensor.Shape, tensor.DType, error) {
	if len(args) == 0 {
		var x *refs.Ref
		var size tensor.Shape
		var dtv eval.Value
		if err := eval.UnpackArgs(th, fname, args, kwargs, "input", &x, "size", &size, "dtype?", &dtv); err != nil {
			return nil, 0, err
		}
		dt, err := dtypeOr(fname, dtv, x.DType())
		return size, dt, err
	}
	x, err := th.ToRef(args[0])
	if err != nil {
		return nil, 0, fmt.Errorf("%s: argument \"input\" must be a tensor, not %s", fname, eval.Describe(args[0]))
	}
	shape, dtv, err := unpackShapeDType(th, fname, args[1:], kwargs)
	if err != nil {
		return nil, 0, err
	}
	dt, err := dtypeOr(fname, dtv, x.DType())
	return shape, dt, err
}

func builtinNewFill(target string) eval.BuiltinFunc {
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		shape, dt, err := unpackNewShape(th, b.Name, args, kwargs)
		if err != nil {
			return nil, err
		}
		return table[target].Fn(th, b, []eval.Value{shapeList(shape)}, []eval.Kwarg{{Name: "dtype", Value: eval.String(dt.String())}})
	}
}

func builtinNewFull(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	var size tensor.Shape
	var value, dtv eval.Value
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input", &x, "size", &size, "fill_value", &value, "dtype?", &dtv); err != nil {
		return nil, err
	}
	dt, err := dtypeOr(b.Name, dtv, x.DType())
	if err != nil {
		return nil, err
	}
	return eval.CallBuiltin(th, table["full"], []eval.Value{shapeList(size), value}, []eval.Kwarg{{Name: "dtype", Value: eval.String(dt.String())}})
}

func builtinNewTensor(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	var data, dtv eval.Value
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input", &x, "data", &data, "dtype?", &dtv); err != nil {
		return nil, err
	}
	dt, err := dtypeOr(b.Name, dtv, x.DType())
	if err != nil {
		return nil, err
	}
	kw := []eval.Kwarg{{Name: "dtype", Value: eval.String(dt.String())}}
	if _, ok := data.(eval.Tensor); ok {
		// torch copies a tensor's values into the new dtype
		return eval.CallBuiltin(th, table["astype"], []eval.Value{data, eval.String(dt.String())}, nil)
	}
	return eval.CallBuiltin(th, table["tensor"], []eval.Value{data}, kw)
}

func builtinScalarTensor(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var s, dtv eval.Value
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "s", &s, "dtype?", &dtv); err != nil {
		return nil, err
	}
	dt, err := dtypeOr(b.Name, dtv, tensor.Float32)
	if err != nil {
		return nil, err
	}
	if t, ok := s.(eval.Tensor); ok && t.Ref.Shape().Numel() != 1 {
		return nil, fmt.Errorf("%s: s must be a number or a one-element tensor, got shape %v", b.Name, t.Ref.Shape())
	}
	v, err := eval.CallBuiltin(th, table["item"], []eval.Value{s}, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: s must be a number, not %s", b.Name, eval.Describe(s))
	}
	return eval.CallBuiltin(th, table["tensor"], []eval.Value{v}, []eval.Kwarg{{Name: "dtype", Value: eval.String(dt.String())}})
}

// builtinWindow makes one of torch's signal windows on the host, in
// float64 rounded to the dtype (torch computes in the dtype: float32
// windows may differ from its in the last place).
func builtinWindow(kind string) eval.BuiltinFunc {
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		var length int
		periodic := true
		alpha, beta := 0.54, 0.46
		var dtv eval.Value
		pairs := []any{"window_length", &length, "periodic?", &periodic}
		switch kind {
		case "hamming":
			pairs = append(pairs, "alpha?", &alpha, "beta?", &beta)
		case "kaiser":
			beta = 12
			pairs = append(pairs, "beta?", &beta)
		}
		pairs = append(pairs, "dtype?", &dtv)
		if err := eval.UnpackArgs(th, b.Name, args, kwargs, pairs...); err != nil {
			return nil, err
		}
		dt, err := dtypeOr(b.Name, dtv, tensor.Float32)
		if err != nil {
			return nil, err
		}
		if !dt.IsFloat() {
			return nil, fmt.Errorf("%s: expected a floating-point dtype, got %s", b.Name, dt)
		}
		if length < 0 {
			return nil, fmt.Errorf("%s: window_length must be non-negative, got %d", b.Name, length)
		}
		d, err := newHost(th, b.Name, tensor.Shape{length}, dt)
		if err != nil {
			return nil, err
		}
		if length == 1 {
			d.Set(0, 1)
			return hostResult(th, d), nil
		}
		n := float64(length - 1)
		if periodic {
			n = float64(length)
		}
		for i := range length {
			d.Set(i, windowAt(kind, float64(i), n, alpha, beta))
		}
		return hostResult(th, d), nil
	}
}

// windowAt is a window's value at position i of a window over [0, n],
// summed in the order torch's kernels sum it (so blackman's first value
// is 0.08 - 0.5 + 0.42 = 0 exactly).
func windowAt(kind string, i, n, alpha, beta float64) float64 {
	switch kind {
	case "hann":
		return 0.5 + -0.5*math.Cos(i*(2*math.Pi/n))
	case "hamming":
		return alpha + -beta*math.Cos(i*(2*math.Pi/n))
	case "blackman":
		a := i * (math.Pi / n)
		return 0.08*math.Cos(4*a) - 0.5*math.Cos(2*a) + 0.42
	case "bartlett":
		return 1 - math.Abs(2*i/n-1)
	}
	// kaiser
	half := n / 2
	r := (i - half) / half
	return besselI0(beta*math.Sqrt(math.Max(0, 1-r*r))) / besselI0(beta)
}

// besselI0 is I0(x) on the host, from the Chebyshev tables of i0 (Cephes',
// as torch's calc_i0).
func besselI0(x float64) float64 {
	x = math.Abs(x)
	if x <= 8 {
		return math.Exp(x) * chbevlHost(x/2-2, i0eA)
	}
	return math.Exp(x) * chbevlHost(32/x-2, i0eB) / math.Sqrt(x)
}

// chbevlHost sums the Chebyshev series coefs at y as Cephes' chbevl.
func chbevlHost(y float64, coefs []float64) float64 {
	b0, b1, b2 := coefs[0], 0.0, 0.0
	for _, a := range coefs[1:] {
		b2, b1 = b1, b0
		b0 = y*b1 - b2 + a
	}
	return 0.5 * (b0 - b2)
}

// operandMeta is the meta of a result_type operand and whether it is a
// number (which weighs less than any tensor).
func operandMeta(fname, param string, v eval.Value) (tensor.Meta, bool, error) {
	if t, ok := v.(eval.Tensor); ok {
		return t.Ref.Meta(), false, nil
	}
	if dt := eval.ScalarDType(v); dt != tensor.Invalid {
		return tensor.Meta{DType: dt}, true, nil
	}
	return tensor.Meta{}, false, fmt.Errorf("%s: argument %q must be a tensor or a number, not %s", fname, param, eval.Describe(v))
}

func builtinResultType(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var av, bv eval.Value
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "tensor1", &av, "tensor2", &bv); err != nil {
		return nil, err
	}
	ma, na, err := operandMeta(b.Name, "tensor1", av)
	if err != nil {
		return nil, err
	}
	mb, nb, err := operandMeta(b.Name, "tensor2", bv)
	if err != nil {
		return nil, err
	}
	switch {
	case na && !nb:
		ma.DType = tensor.NumberType(ma.DType, mb)
	case nb && !na:
		mb.DType = tensor.NumberType(mb.DType, ma)
	}
	return eval.String(tensor.ResultType(ma, mb).String()), nil
}

func builtinPromoteTypes(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var a, c tensor.DType
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "type1", &a, "type2", &c); err != nil {
		return nil, err
	}
	one := tensor.Shape{1}
	return eval.String(tensor.ResultType(tensor.Meta{Shape: one, DType: a}, tensor.Meta{Shape: one, DType: c}).String()), nil
}

func builtinCanCast(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var from, to tensor.DType
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "from_", &from, "to", &to); err != nil {
		return nil, err
	}
	switch {
	case from.IsFloat() && !to.IsFloat():
		return eval.Bool(false), nil
	case from != tensor.Bool && to == tensor.Bool:
		return eval.Bool(false), nil
	}
	return eval.Bool(true), nil
}
