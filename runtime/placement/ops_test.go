package placement

import (
	"fmt"

	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Private test ops, so the engine is tested without depending on the
// stdlib's kernels: float32 only, simple loops. Tests name them by handle
// or, through the harness, by name.
var ptestAdd, ptestRelu, ptestMix, ptestMatmul, ptestFail ops.Op

func init() {
	same := func(in []tensor.Meta, _ any) (tensor.Meta, error) {
		for _, m := range in[1:] {
			if !m.Shape.Equal(in[0].Shape) {
				return tensor.Meta{}, fmt.Errorf("shapes %v and %v differ", in[0].Shape, m.Shape)
			}
		}
		return in[0], nil
	}
	ptestAdd = ops.Register(&ops.Def{Name: "ptest_add", Infer: same, Inplace: []int{0, 1}})
	cpu.Register(ptestAdd, func(out *tensor.Dense, ins []*tensor.Dense, _ any) error {
		a, b, o := ins[0].F32(), ins[1].F32(), out.F32()
		for i := range o {
			o[i] = a[i] + b[i]
		}
		return nil
	})
	ptestRelu = ops.Register(&ops.Def{Name: "ptest_relu", Infer: same, Inplace: []int{0}})
	cpu.Register(ptestRelu, func(out *tensor.Dense, ins []*tensor.Dense, _ any) error {
		a, o := ins[0].F32(), out.F32()
		for i := range o {
			o[i] = max(a[i], 0)
		}
		return nil
	})
	// ptest_mix(a, b) = a*0.5 + tanh-free nonlinearity of b, not in place:
	// a result that differs from both inputs, to catch stale buffers.
	ptestMix = ops.Register(&ops.Def{Name: "ptest_mix", Infer: same})
	cpu.Register(ptestMix, func(out *tensor.Dense, ins []*tensor.Dense, _ any) error {
		a, b, o := ins[0].F32(), ins[1].F32(), out.F32()
		for i := range o {
			o[i] = a[i]*0.5 - b[i]*b[i]*0.25 + 0.125
		}
		return nil
	})
	ptestMatmul = ops.Register(&ops.Def{Name: "ptest_matmul",
		Infer: func(in []tensor.Meta, _ any) (tensor.Meta, error) {
			a, b := in[0].Shape, in[1].Shape
			if len(a) != 2 || len(b) != 2 || a[1] != b[0] {
				return tensor.Meta{}, fmt.Errorf("cannot multiply %v by %v", a, b)
			}
			return tensor.Meta{Shape: tensor.Shape{a[0], b[1]}, DType: tensor.Float32}, nil
		},
		Flops: func(in []tensor.Meta, _ tensor.Meta, _ any) int64 {
			return 2 * int64(in[0].Shape[0]) * int64(in[0].Shape[1]) * int64(in[1].Shape[1])
		},
	})
	cpu.Register(ptestMatmul, func(out *tensor.Dense, ins []*tensor.Dense, _ any) error {
		a, b, o := ins[0].F32(), ins[1].F32(), out.F32()
		n, k, m := ins[0].Shape[0], ins[0].Shape[1], ins[1].Shape[1]
		for i := range n {
			for j := range m {
				var s float32
				for p := range k {
					s += a[i*k+p] * b[p*m+j]
				}
				o[i*m+j] = s
			}
		}
		return nil
	})
	// ptest_fail always fails, to test error paths.
	ptestFail = ops.Register(&ops.Def{Name: "ptest_fail", Infer: same})
	cpu.Register(ptestFail, func(*tensor.Dense, []*tensor.Dense, any) error {
		return fmt.Errorf("ptest_fail: failed on purpose")
	})
}
