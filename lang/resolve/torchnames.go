package resolve

import (
	"fmt"
	"strings"
)

// torchNames maps names a PyTorch user reaches for to tref's spelling of
// the same thing. An entry starting with "!" is advice instead of a name.
var torchNames = map[string]string{
	"torch":          "!tref's builtins are global: torch.zeros(...) is zeros(...)",
	"F":              "!tref's builtins are global: F.relu(x) is relu(x)",
	"nn":             "!tref's builtins are global: nn.functional.relu(x) is relu(x)",
	"as_tensor":      "tensor",
	"from_numpy":     "tensor",
	"Tensor":         "tensor",
	"FloatTensor":    "tensor",
	"LongTensor":     "tensor",
	"numpy":          "tolist",
	"ndimension":     "!a tensor's number of dimensions is the field x.ndim",
	"nelement":       "numel",
	"no_grad":        "!tref computes gradients only inside grad(f) and value_and_grad(f); nothing needs turning off",
	"backward":       "!gradients come from grad(f) or value_and_grad(f), not from backward()",
	"requires_grad_": "!grad(f, argnums=...) says which arguments get gradients",
	"device":         "!the runtime places tensors itself; x.device only reports where x is now",
	"to_":            "!tensors are values: x = x.to(dtype)",
	"fill_":          "!tensors are values: x = full_like(x, value) (or x[...] = value)",
	"zero_":          "!tensors are values: x = zeros_like(x)",
	"copy_":          "!tensors are values: x = y, or x[...] = y",
}

// TorchHint is the advice for a name a PyTorch user might write where
// tref spells it differently: "; did you mean "cat"? (torch's concat)"
// when the tref name exists (have says whether it does), other advice
// for torch idioms tref does without, or "".
func TorchHint(name string, have func(string) bool) string {
	t, ok := torchNames[name]
	switch {
	case !ok && len(name) > 1 && strings.HasSuffix(name, "_") && have(name[:len(name)-1]):
		// torch's in-place form of an op tref has.
		op := name[:len(name)-1]
		return fmt.Sprintf("; tensors are values: rebind, x = x.%s(...) (torch's in-place %s)", op, name)
	case !ok:
		return ""
	case t[0] == '!':
		return "; " + t[1:]
	case have(t):
		return fmt.Sprintf("; did you mean %q? (torch's %s is tref's %s)", t, name, t)
	}
	return ""
}
