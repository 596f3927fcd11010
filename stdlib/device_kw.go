package stdlib

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tref-lang/tref/lang/eval"
)

// Torch's creation functions take device= (torch.arange(n,
// device=x.device), torch.zeros(..., device="cuda")). tref places every
// tensor itself, so these builtins check the keyword names a device and
// drop it: ported code runs unchanged.

// takesDevice are the builtins that accept device=.
var takesDevice = map[string]bool{
	"tensor": true, "zeros": true, "ones": true, "full": true, "arange": true, "linspace": true,
	"eye": true, "rand": true, "randn": true, "randint": true, "randperm": true,
	"zeros_like": true, "ones_like": true, "full_like": true, "rand_like": true, "randn_like": true,
}

// deviceDoc is what the reference adds to those builtins' docs.
const deviceDoc = `; device= ("cpu", "cuda:0", x.device) is accepted and changes nothing: the runtime places every tensor`

// dropDevice wraps fn so that a device= keyword is checked and removed.
func dropDevice(fn eval.BuiltinFunc) eval.BuiltinFunc {
	return func(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
		for _, k := range kwargs {
			if k.Name == "requires_grad" {
				return nil, fmt.Errorf("%s: requires_grad is not needed: gradients come from grad(f) or value_and_grad(f) of a function of the parameters, not from marked tensors", b.Name)
			}
		}
		for i, k := range kwargs {
			if k.Name != "device" {
				continue
			}
			if err := checkDevice(b.Name, k.Value); err != nil {
				return nil, err
			}
			rest := make([]eval.Kwarg, 0, len(kwargs)-1)
			rest = append(append(rest, kwargs[:i]...), kwargs[i+1:]...)
			return fn(th, b, args, rest)
		}
		return fn(th, b, args, kwargs)
	}
}

// checkDevice accepts none, torch's device strings and tref's own device
// names (what x.device reads: "sim:0", "torch:cpu", "disk").
func checkDevice(fname string, v eval.Value) error {
	switch d := v.(type) {
	case eval.NoneType:
		return nil
	case eval.String:
		if isDeviceName(string(d)) || isTrefDevice(string(d)) {
			return nil
		}
		return fmt.Errorf("%s: %q is not a device (\"cpu\", \"cuda\", \"cuda:N\", or what x.device reads)", fname, string(d))
	}
	return fmt.Errorf("%s: argument \"device\" must be a device name, not %s", fname, eval.Describe(v))
}

// isTrefDevice accepts the device names x.device reads: sim, sim:N,
// torch:cpu, disk.
func isTrefDevice(s string) bool {
	switch s {
	case "sim", "torch:cpu", "disk":
		return true
	}
	n, ok := strings.CutPrefix(s, "sim:")
	if !ok {
		return false
	}
	_, err := strconv.Atoi(n)
	return err == nil
}
