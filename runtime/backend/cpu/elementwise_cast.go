package cpu

import (
	"fmt"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// Casts between dtypes, as torch's .to(dtype): floats to integers truncate
// toward zero (NaN and out-of-range values give what x86 gives, as torch
// on this hardware), integers wrap into uint8, anything nonzero (NaN too)
// is true.

func init() {
	Register(ops.Astype, castKernel)
}

func castKernel(out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
	if err := checkInputs("astype", ins, 1); err != nil {
		return err
	}
	if a, ok := attrs.(ops.CastAttrs); !ok || a.To != out.DType {
		return fmt.Errorf("astype: attributes %v do not match the output %v", attrs, out.Meta)
	}
	castInto(out, ins[0])
	return nil
}

// castTo returns d converted to dt, or d itself when it already is.
func castTo(d *tensor.Dense, dt tensor.DType) *tensor.Dense {
	if d.DType == dt {
		return d
	}
	c := tensor.NewDense(tensor.Meta{Shape: d.Shape, DType: dt})
	castInto(c, d)
	return c
}

// castInto converts every element of src into dst (same element count).
func castInto(dst, src *tensor.Dense) {
	n := src.Numel()
	if src.DType == dst.DType {
		copy(dst.Buf, src.Buf)
		return
	}
	parallelFor(n, func(lo, hi int) error {
		switch dst.DType {
		case tensor.Float32:
			convertRange(dst.F32()[lo:hi], src, lo)
		case tensor.Float64:
			convertRange(dst.F64()[lo:hi], src, lo)
		case tensor.Int64:
			convertRange(dst.I64()[lo:hi], src, lo)
		case tensor.Uint8:
			convertRange(dst.U8()[lo:hi], src, lo)
		case tensor.Int8:
			convertRange(dst.I8()[lo:hi], src, lo)
		case tensor.Int16:
			convertRange(dst.I16()[lo:hi], src, lo)
		case tensor.Int32:
			convertRange(dst.I32()[lo:hi], src, lo)
		case tensor.Uint16:
			convertRange(dst.U16()[lo:hi], src, lo)
		case tensor.Uint32:
			convertRange(dst.U32()[lo:hi], src, lo)
		case tensor.Uint64:
			convertRange(dst.U64()[lo:hi], src, lo)
		case tensor.Bool:
			boolRange(dst.U8()[lo:hi], src, lo)
		default:
			for i := lo; i < hi; i++ {
				dst.Set(i, src.At(i))
			}
		}
		return nil
	})
}

// castNumber is every element type a cast reads or writes directly.
type castNumber interface {
	number | ~int8 | ~int16 | ~int32 | ~uint16 | ~uint32 | ~uint64
}

func isFloatElem[T castNumber]() bool {
	var z T
	switch any(z).(type) {
	case float32, float64:
		return true
	}
	return false
}

// convertRange fills dst with src's elements from lo on.
func convertRange[D castNumber](dst []D, src *tensor.Dense, lo int) {
	hi := lo + len(dst)
	switch src.DType {
	case tensor.Float32:
		convertSlice(dst, src.F32()[lo:hi])
	case tensor.Float64:
		convertSlice(dst, src.F64()[lo:hi])
	case tensor.Int64:
		convertSlice(dst, src.I64()[lo:hi])
	case tensor.Uint8, tensor.Bool:
		convertSlice(dst, src.U8()[lo:hi])
	case tensor.Int8:
		convertSlice(dst, src.I8()[lo:hi])
	case tensor.Int16:
		convertSlice(dst, src.I16()[lo:hi])
	case tensor.Int32:
		convertSlice(dst, src.I32()[lo:hi])
	case tensor.Uint16:
		convertSlice(dst, src.U16()[lo:hi])
	case tensor.Uint32:
		convertSlice(dst, src.U32()[lo:hi])
	case tensor.Uint64:
		convertSlice(dst, src.U64()[lo:hi])
	default: // float16, bfloat16
		toInt := !isFloatElem[D]()
		for i := range dst {
			v := src.At(lo + i)
			if toInt {
				dst[i] = D(int64(v))
			} else {
				dst[i] = D(v)
			}
		}
	}
}

func convertSlice[D, S castNumber](dst []D, src []S) {
	src = src[:len(dst)]
	if isFloatElem[S]() && !isFloatElem[D]() {
		// Through int64 so that narrow integers wrap like an integer cast.
		for i, v := range src {
			dst[i] = D(int64(v))
		}
		return
	}
	for i, v := range src {
		dst[i] = D(v)
	}
}

// boolRange fills dst with 1 where src is nonzero.
func boolRange(dst []uint8, src *tensor.Dense, lo int) {
	hi := lo + len(dst)
	switch src.DType {
	case tensor.Float32:
		nonzero(dst, src.F32()[lo:hi])
	case tensor.Float64:
		nonzero(dst, src.F64()[lo:hi])
	case tensor.Int64:
		nonzero(dst, src.I64()[lo:hi])
	case tensor.Uint8, tensor.Bool, tensor.Int8:
		nonzero(dst, src.U8()[lo:hi])
	case tensor.Int16, tensor.Uint16:
		nonzero(dst, src.U16()[lo:hi])
	case tensor.Int32, tensor.Uint32:
		nonzero(dst, src.U32()[lo:hi])
	case tensor.Uint64:
		nonzero(dst, src.U64()[lo:hi])
	default:
		for i := range dst {
			dst[i] = b2u(src.At(lo+i) != 0)
		}
	}
}

func nonzero[S castNumber](dst []uint8, src []S) {
	src = src[:len(dst)]
	for i, v := range src {
		dst[i] = b2u(v != 0)
	}
}
