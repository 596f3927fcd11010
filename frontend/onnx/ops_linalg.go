package onnx

import (
	"fmt"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Matrix products and the softmax family.

func init() {
	lower([]string{"MatMul"}, func(c *ctx, ins []*value) ([]*value, error) {
		if err := need(ins, 0, 1); err != nil {
			return nil, err
		}
		return one(c.op(ops.Matmul, nil, ins[0], ins[1]))
	})
	lower([]string{"Gemm"}, lowerGemm)
	lower([]string{"Softmax", "LogSoftmax"}, lowerSoftmax)
}

// lowerGemm is alpha A' B' + beta C (A' is A or its transpose).
func lowerGemm(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0, 1); err != nil {
		return nil, err
	}
	a, b := ins[0], ins[1]
	if len(a.meta.Shape) != 2 || len(b.meta.Shape) != 2 {
		return nil, fmt.Errorf("A and B must be matrices, not of shapes %v and %v", a.meta.Shape, b.meta.Shape)
	}
	cin := input(ins, 2)
	alpha, beta := c.attrFloat("alpha", 1), c.attrFloat("beta", 1)
	transA, transB := c.attrInt("transA", 0) != 0, c.attrInt("transB", 0) != 0
	// The common form, x Wᵀ + b with W stored [out, in], is the runtime's
	// linear op, which reads W as it is stored (no transpose per call).
	if !transA && transB && alpha == 1 && beta == 1 && (cin == nil || len(cin.meta.Shape) == 1 && cin.meta.Shape[0] == b.meta.Shape[0]) {
		lins := []*value{a, b}
		if cin != nil {
			lins = append(lins, cin)
		}
		metas := make([]tensor.Meta, len(lins))
		for i, v := range lins {
			metas[i] = v.meta
		}
		if _, err := ops.Linear.Def().Infer(metas, nil); err == nil {
			return one(c.op(ops.Linear, nil, lins...))
		}
	}
	var err error
	if transA {
		if a, err = c.permute(a, []int{1, 0}); err != nil {
			return nil, err
		}
	}
	if transB {
		if b, err = c.permute(b, []int{1, 0}); err != nil {
			return nil, err
		}
	}
	y, err := c.op(ops.Matmul, nil, a, b)
	if err != nil {
		return nil, err
	}
	if alpha != 1 {
		if y, err = c.op(ops.Mul, nil, y, c.scalar(y.meta.DType, alpha)); err != nil {
			return nil, err
		}
	}
	if cin == nil {
		return []*value{y}, nil
	}
	if beta != 1 {
		if cin, err = c.op(ops.Mul, nil, cin, c.scalar(cin.meta.DType, beta)); err != nil {
			return nil, err
		}
	}
	return one(c.op(ops.Add, nil, y, cin))
}

// lowerSoftmax: from opset 13 over one axis (default -1); before, over
// the input flattened to 2-d at axis (default 1).
func lowerSoftmax(c *ctx, ins []*value) ([]*value, error) {
	if err := need(ins, 0); err != nil {
		return nil, err
	}
	x := ins[0]
	op := map[string]ops.Op{"Softmax": ops.Softmax, "LogSoftmax": ops.LogSoftmax}[c.node.OpType]
	r := len(x.meta.Shape)
	if c.opset >= 13 {
		ax, err := axis(c.attrInt("axis", -1), r)
		if err != nil {
			return nil, err
		}
		return one(c.op(op, ops.SoftmaxAttrs{Dim: ax}, x))
	}
	ax, err := axis(c.attrInt("axis", 1), max(r, 1))
	if err != nil {
		return nil, err
	}
	outer, inner := 1, 1
	for i, d := range x.meta.Shape {
		if i < ax {
			outer *= d
		} else {
			inner *= d
		}
	}
	x2, err := c.reshape(x, tensor.Shape{outer, inner})
	if err != nil {
		return nil, err
	}
	y, err := c.op(op, ops.SoftmaxAttrs{Dim: 1}, x2)
	if err != nil {
		return nil, err
	}
	return one(c.reshape(y, x.meta.Shape))
}

// spatial checks that x is [N, C, spatial...] with 1 to 3 spatial dims.
func spatial(x *value) (int, error) {
	n := len(x.meta.Shape) - 2
	if n < 1 || n > 3 {
		return 0, fmt.Errorf("expected an input of shape [N, C, D1 (, D2 (, D3))], got %v", x.meta.Shape)
	}
	return n, nil
}
