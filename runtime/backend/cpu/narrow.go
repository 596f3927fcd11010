package cpu

import (
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Integer widths other than int64 and uint8 (int8, int16, int32, uint16,
// uint32, uint64) have no kernels of their own: widenNarrow runs an op's
// int64 kernel on widened copies of such operands and wraps the int64
// result back into the output's width. Wrapping is exact for every op
// whose result fits the width and gives two's complement overflow (what
// torch's int32 kernels give) otherwise.

// narrowExempt lists kernels that handle every dtype themselves.
var narrowExempt = map[ops.Op]bool{ops.Astype: true}

// widenNarrow wraps k so that narrow integer operands and results go
// through int64.
func widenNarrow(k Kernel) Kernel {
	return func(out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
		narrow := out.DType.IsNarrowInt()
		for _, in := range ins {
			narrow = narrow || in.DType.IsNarrowInt()
		}
		if !narrow {
			return k(out, ins, attrs)
		}
		wide := make([]*tensor.Dense, len(ins))
		for i, in := range ins {
			wide[i] = in
			if in.DType.IsNarrowInt() {
				wide[i] = castTo(in, tensor.Int64)
			}
		}
		if !out.DType.IsNarrowInt() {
			return k(out, wide, attrs)
		}
		tmp := tensor.NewDense(tensor.Meta{Shape: out.Shape, DType: tensor.Int64})
		if err := k(tmp, wide, attrs); err != nil {
			return err
		}
		castInto(out, tmp)
		return nil
	}
}
