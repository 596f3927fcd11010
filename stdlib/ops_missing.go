package stdlib

import (
	"fmt"
	"slices"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/runtime/tensor"
)

// torch's Tensor.index_reduce and F.conv_transpose3d, composed of ops so
// that their gradients are the ops' own:
//
//   - index_reduce is scatter_reduce with the index repeated over each
//     slice, read and checked on the host as index_add's (index_more.go);
//   - conv_transpose3d is one conv_transpose2d over height and width of
//     every input depth plane at once (the kernel's kd depth taps stacked
//     as output channels), then one conv_transpose2d along depth with a
//     constant one-hot kernel that adds tap kd's planes at output depth
//     id·stride - padding + kd·dilation, so torch's depth padding and
//     output_padding are the op's own.
func init() {
	register("index_reduce", `index_reduce(input, dim, index, source, reduce, include_self=true): input with source's slices along dim combined into the slices the 1-d (or 0-d) int64 or int32 index names by reduce ("prod", "mean", "amax" or "amin"; input's own slice too unless include_self is false, and a slice no index names kept as it is), a repeated index combining each, as torch.Tensor.index_reduce (out of place); an integer mean floors, a NaN wins amax and amin; the gradients are scatter_reduce's (amax and amin share it among the values equal to the result; without include_self, input's element there is not one of them, where torch 1.13 counts it when it equals the result)`, indexReduceBuiltin)
	register("conv_transpose3d", "conv_transpose3d(input, weight, bias=none, stride=1, padding=0, output_padding=0, groups=1, dilation=1): transposed 3-d convolution of [N, C, D, H, W] (or [C, D, H, W]) by weight [C, Cout/groups, kd, kh, kw], as torch's F.conv_transpose3d; stride, padding, output_padding and dilation are an int or a list of 3 (depth, height, width); it runs as a conv_transpose2d of every depth plane by the kd kernel slices stacked as channels, then one along depth that adds them up (so it holds kd times the output's planes for a moment)", builtinConvTranspose3d)
}

// indexReductions are the reduce values of index_reduce.
var indexReductions = []string{"prod", "mean", "amax", "amin"}

func indexReduceBuiltin(th *eval.Thread, b *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	var x, index, src *refs.Ref
	var dim int
	var reduce string
	includeSelf := true
	if err := eval.UnpackArgs(th, b.Name, args, kwargs, "input|x", &x, "dim", &dim, "index", &index, "source", &src,
		"reduce", &reduce, "include_self?", &includeSelf); err != nil {
		return nil, err
	}
	if !slices.Contains(indexReductions, reduce) {
		return nil, fmt.Errorf(`%s: reduce must be "prod", "mean", "amax" or "amin", got %q`, b.Name, reduce)
	}
	if x.DType() == tensor.Bool {
		return nil, fmt.Errorf("%s: the input must not be bool (torch has no bool index_reduce)", b.Name)
	}
	ix, ws, err := readIndexedSource(th, b.Name, x, dim, index, src, true)
	if err != nil {
		return nil, err
	}
	a := ops.ScatterReduceAttrs{Dim: ix.dim, Reduce: reduce, IncludeSelf: includeSelf}
	return scatterSlices(th, b.Name, ops.ScatterReduce, a, x, src, ix, ws)
}

// convT3 is the layout of a 3-d transposed convolution along depth,
// height and width (0, 1, 2).
type convT3 struct {
	stride, padding, outPad, dilation, kernel, in, out [3]int
}

// layout checks the window parameters as torch does and gives each
// axis's output size, (in-1)·stride - 2·padding + dilation·(kernel-1) +
// output_padding + 1, failing before the arithmetic could wrap.
func (g *convT3) layout(fname string) error {
	for _, p := range []struct {
		name string
		v    [3]int
		min  int
	}{{"stride", g.stride, 1}, {"padding", g.padding, 0}, {"output_padding", g.outPad, 0}, {"dilation", g.dilation, 1}} {
		if min(p.v[0], p.v[1], p.v[2]) < p.min {
			return fmt.Errorf("%s: %s must be at least %d, got %s", fname, p.name, p.min, tripleString(p.v))
		}
	}
	for i := range 3 {
		if g.outPad[i] >= g.stride[i] && g.outPad[i] >= g.dilation[i] {
			return fmt.Errorf("%s: output_padding %s must be smaller than either stride %s or dilation %s along each axis (not along the %s)",
				fname, tripleString(g.outPad), tripleString(g.stride), tripleString(g.dilation), axes3[i])
		}
	}
	const most = tensor.MaxElements
	for i := range 3 {
		n, k, s, d, p := g.in[i], g.kernel[i], g.stride[i], g.dilation[i], g.padding[i]
		if s > most/max(n-1, 1) || d > most/max(k-1, 1) || p > most || g.outPad[i] > most {
			return fmt.Errorf("%s: the output's %s would be longer than %d elements (input %d, kernel %d, stride %d, padding %d, dilation %d)",
				fname, axes3[i], most, n, k, s, p, d)
		}
		g.out[i] = (n-1)*s - 2*p + d*(k-1) + g.outPad[i] + 1
		if g.out[i] < 1 {
			return fmt.Errorf("%s: the input's %s %d gives an output %s of %d; padding %s is too large", fname, axes3[i], n, axes3[i], g.out[i], tripleString(g.padding))
		}
	}
	return nil
}

func builtinConvTranspose3d(th *eval.Thread, _ *eval.Builtin, args []eval.Value, kwargs []eval.Kwarg) (eval.Value, error) {
	const fname = "conv_transpose3d"
	ca, err := unpackConvTranspose(th, fname, args, kwargs)
	if err != nil {
		return nil, err
	}
	x, w, groups := ca.x, ca.w, ca.groups
	var g convT3
	dsts := []*[3]int{&g.stride, &g.padding, &g.outPad, &g.dilation}
	for i, p := range ca.params() {
		if *dsts[i], err = intTriple(fname, p.name, p.v); err != nil {
			return nil, err
		}
	}
	xs, err := volume(fname, x)
	if err != nil {
		return nil, err
	}
	ws := w.Shape()
	if len(ws) != 5 {
		return nil, fmt.Errorf("%s: expected a weight of shape [C, Cout/groups, kd, kh, kw], got %v", fname, ws)
	}
	n, ch, cg := xs[0], xs[1], ws[1]
	switch {
	case groups < 1:
		return nil, fmt.Errorf("%s: groups must be at least 1, got %d", fname, groups)
	case ws[0] != ch:
		return nil, fmt.Errorf("%s: input %v has %d channels, weight %v expects %d", fname, x.Shape(), ch, ws, ws[0])
	case ch < groups || ch%groups != 0:
		return nil, fmt.Errorf("%s: %d input channels are not divisible by groups=%d", fname, ch, groups)
	case slices.Contains(ws[2:], 0):
		return nil, fmt.Errorf("%s: the kernel of weight %v is empty", fname, ws)
	case slices.Contains(xs[2:], 0):
		return nil, fmt.Errorf("%s: the input %v has an empty depth, height or width (only the batch may be empty)", fname, x.Shape())
	}
	if cg > tensor.MaxElements/groups {
		return nil, fmt.Errorf("%s: weight %v with groups=%d has more than %d output channels", fname, ws, groups, tensor.MaxElements)
	}
	cout := cg * groups
	metas := []tensor.Meta{x.Meta(), w.Meta()}
	bias, err := convBias(fname, ca.bias, cout)
	if err != nil {
		return nil, err
	}
	if bias != nil {
		metas = append(metas, bias.Meta())
	}
	dt, err := ops.FloatDType(fname, metas)
	if err != nil {
		return nil, err
	}
	g.in, g.kernel = [3]int{xs[2], xs[3], xs[4]}, [3]int{ws[2], ws[3], ws[4]}
	if err := g.layout(fname); err != nil {
		return nil, err
	}
	kd, depth := g.kernel[0], xs[2]
	// Over height and width, every input depth plane a batch element and
	// the kd depth taps output channels, group-major: [N·D, groups·kd·
	// Cout/groups, Hout, Wout] from [N·D, C, H, W] and [C, kd·Cout/groups,
	// kh, kw].
	a2 := ops.ConvTranspose2dAttrs{Groups: groups,
		Stride: [2]int{g.stride[1], g.stride[2]}, Padding: [2]int{g.padding[1], g.padding[2]},
		OutputPadding: [2]int{g.outPad[1], g.outPad[2]}, Dilation: [2]int{g.dilation[1], g.dilation[2]}}
	in2, w2 := tensor.Shape{n * depth, ch, xs[3], xs[4]}, tensor.Shape{ch, kd * cg, ws[3], ws[4]}
	if _, err := ops.ConvTranspose2dLayout(in2, w2, nil, a2); err != nil {
		return nil, fmt.Errorf("%s over %v with weight %v: %s", fname, x.Shape(), ws, stripOp("conv_transpose2d", err))
	}
	outShape := tensor.Shape{n, cout, g.out[0], g.out[1], g.out[2]}
	if _, err := tensor.CheckedNumel(outShape); err != nil {
		return nil, fmt.Errorf("%s: the result: %v", fname, err)
	}
	// Along depth: [N·Cout, kd, D, Hout·Wout] by the one-hot kernel
	// [kd, 1, kd, 1] (tap j of input channel kd is 1 where j = kd).
	hw := g.out[1] * g.out[2]
	taps := tensor.Shape{n * cout, kd, depth, hw}
	oneHot := tensor.Meta{Shape: tensor.Shape{kd, 1, kd, 1}, DType: dt}
	if _, err := tensor.CheckedNumel(oneHot.Shape); err != nil {
		return nil, fmt.Errorf("%s: the kernel's depth %d: %v", fname, kd, err)
	}
	if err := th.RT.HostPool().Check(oneHot.Bytes()); err != nil {
		return nil, fmt.Errorf("%s: the kernel's depth %d: %v", fname, kd, err)
	}
	direct := kd == 1 && g.stride[0] == 1 && g.padding[0] == 0 && g.outPad[0] == 0
	c := newChain(th)
	xd := c.Reshape(c.permuted(c.Reshape(x, xs), []int{0, 2, 1, 3, 4}), in2) // [N·D, C, H, W]
	wd := c.Reshape(c.permuted(w, []int{0, 2, 1, 3, 4}), w2)                 // [C, kd·Cout/groups, kh, kw]
	y := c.Op(ops.ConvTranspose2d, a2, xd, wd)                               // [N·D, groups·kd·Cout/groups, Hout, Wout]
	y = c.Reshape(y, tensor.Shape{n, depth, groups, kd, cg, hw})
	y = c.permuted(y, []int{0, 2, 4, 3, 1, 5}) // [N, groups, Cout/groups, kd, D, Hout·Wout]
	if direct {
		y = c.Reshape(y, outShape)
	} else {
		k := tensor.NewDense(oneHot)
		for j := range kd {
			k.Set(j*kd+j, 1)
		}
		ad := ops.ConvTranspose2dAttrs{Groups: 1, Stride: [2]int{g.stride[0], 1}, Padding: [2]int{g.padding[0], 0},
			OutputPadding: [2]int{g.outPad[0], 0}, Dilation: [2]int{g.dilation[0], 1}}
		y = c.Reshape(c.Op(ops.ConvTranspose2d, ad, c.Reshape(y, taps), c.Host(k)), outShape)
	}
	if bias != nil {
		y = c.Op(ops.Add, nil, y, c.Reshape(bias, tensor.Shape{cout, 1, 1, 1}))
	}
	return named(fname)(c.Result(c.unbatched(y, x)))
}
