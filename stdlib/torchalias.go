package stdlib

import (
	"fmt"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/refs"
)

// PyTorch spellings that mean nothing new in tref, accepted so that ported
// code runs unchanged: moving a value to a device (the runtime places
// tensors itself), x.dim(), torch.manual_seed.
func init() {
	register("cpu", "cpu(x): x itself, as PyTorch's x.cpu() (also on records and lists of tensors): the runtime places tensors itself and reads them to the host when a script needs their values", placementNoop("cpu"))
	register("cuda", "cuda(x, device=none, non_blocking=false): x itself, as PyTorch's x.cuda() (also on records and lists of tensors): the runtime places tensors itself; choose the accelerator with tref run --device", placementNoop("cuda"))
	register("dim", "dim(input): input's number of dimensions, as PyTorch's x.dim() (the field x.ndim)", builtinDim)
	register("manual_seed", "manual_seed(n): seed(n), as PyTorch's torch.manual_seed", builtinSeed)
}

// placementNoop is cpu or cuda: the value, after checking the arguments.
func placementNoop(name string) eval.BuiltinFunc {
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		var x eval.Value
		device, nonBlocking := eval.Value(eval.None), false
		var err error
		if name == "cuda" {
			err = eval.UnpackArgs(th, name, args, kwargs, "x|input|module", &x, "device?", &device, "non_blocking?", &nonBlocking)
		} else {
			err = eval.UnpackArgs(th, name, args, kwargs, "x|input|module", &x)
		}
		if err != nil {
			return nil, err
		}
		switch d := device.(type) {
		case eval.NoneType, eval.Int:
		case eval.String:
			if !isDeviceName(string(d)) {
				return nil, fmt.Errorf("%s: %q is not a device name", name, string(d))
			}
		default:
			return nil, fmt.Errorf("%s: device must be an int or a device name, not %s", name, eval.Describe(device))
		}
		eval.Retain(th.RT, x)
		return x, nil
	}
}

func builtinDim(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x *refs.Ref
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x); err != nil {
		return nil, err
	}
	return eval.Int(len(x.Shape())), nil
}
