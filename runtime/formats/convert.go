package formats

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/tref-lang/tref/runtime/tensor"
)

// raw is an element type as a file stores it.
type raw uint8

const (
	rawInvalid raw = iota
	rawBool
	rawU8
	rawI8
	rawI16
	rawI32
	rawI64
	rawF16
	rawBF16
	rawF32
	rawF64
)

var rawSizes = [...]int{rawBool: 1, rawU8: 1, rawI8: 1, rawI16: 2, rawI32: 4, rawI64: 8, rawF16: 2, rawBF16: 2, rawF32: 4, rawF64: 8}

func (r raw) size() int { return rawSizes[r] }

// natural is the tref dtype a stored type loads as: integers widen to
// int64, half types become float32 unless keepHalf.
func (r raw) natural(keepHalf bool) tensor.DType {
	switch r {
	case rawBool:
		return tensor.Bool
	case rawU8:
		return tensor.Uint8
	case rawI8, rawI16, rawI32, rawI64:
		return tensor.Int64
	case rawF16:
		if keepHalf {
			return tensor.Float16
		}
		return tensor.Float32
	case rawBF16:
		if keepHalf {
			return tensor.BFloat16
		}
		return tensor.Float32
	case rawF32:
		return tensor.Float32
	case rawF64:
		return tensor.Float64
	}
	return tensor.Invalid
}

// rawOf is the stored type that holds dtype d without conversion.
func rawOf(d tensor.DType) raw {
	switch d {
	case tensor.Bool:
		return rawBool
	case tensor.Uint8:
		return rawU8
	case tensor.Int64:
		return rawI64
	case tensor.Float16:
		return rawF16
	case tensor.BFloat16:
		return rawBF16
	case tensor.Float32:
		return rawF32
	case tensor.Float64:
		return rawF64
	}
	return rawInvalid
}

// decode converts src, numel elements of stored type r in the given byte
// order, into dst (whose dtype is r.natural(...)). len(src) must be
// numel*r.size() and dst must hold numel elements.
func decode(dst *tensor.Dense, src []byte, r raw, big bool) error {
	n := dst.Numel()
	if len(src) != n*r.size() || len(dst.Buf) != n*dst.DType.Size() {
		return fmt.Errorf("internal: decode of %d elements from %d bytes into %d", n, len(src), len(dst.Buf))
	}
	var bo binary.ByteOrder = binary.LittleEndian
	if big {
		bo = binary.BigEndian
	}
	// Same representation and little-endian: a plain copy.
	if !big && rawOf(dst.DType) == r {
		if r == rawBool {
			for i, b := range src {
				dst.Buf[i] = b2u(b != 0)
			}
			return nil
		}
		copy(dst.Buf, src)
		return nil
	}
	switch dst.DType {
	case tensor.Bool:
		for i, b := range src {
			dst.Buf[i] = b2u(b != 0)
		}
	case tensor.Uint8:
		copy(dst.Buf, src)
	case tensor.Int64:
		out := dst.I64()
		switch r {
		case rawI8:
			for i := range out {
				out[i] = int64(int8(src[i]))
			}
		case rawI16:
			for i := range out {
				out[i] = int64(int16(bo.Uint16(src[2*i:])))
			}
		case rawI32:
			for i := range out {
				out[i] = int64(int32(bo.Uint32(src[4*i:])))
			}
		case rawI64:
			for i := range out {
				out[i] = int64(bo.Uint64(src[8*i:]))
			}
		default:
			return fmt.Errorf("internal: no conversion to int64 from stored type %d", r)
		}
	case tensor.Float16, tensor.BFloat16:
		out := dst.U16()
		for i := range out {
			out[i] = bo.Uint16(src[2*i:])
		}
	case tensor.Float32:
		out := dst.F32()
		switch r {
		case rawF16:
			for i := range out {
				out[i] = tensor.HalfToFloat(bo.Uint16(src[2*i:]))
			}
		case rawBF16:
			for i := range out {
				out[i] = tensor.BFloatToFloat(bo.Uint16(src[2*i:]))
			}
		case rawF32:
			for i := range out {
				out[i] = math.Float32frombits(bo.Uint32(src[4*i:]))
			}
		default:
			return fmt.Errorf("internal: no conversion to float32 from stored type %d", r)
		}
	case tensor.Float64:
		out := dst.F64()
		for i := range out {
			out[i] = math.Float64frombits(bo.Uint64(src[8*i:]))
		}
	default:
		return fmt.Errorf("internal: cannot decode into %v", dst.DType)
	}
	return nil
}

func b2u(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

// fortranToC reorders d, whose buffer holds its elements in column-major
// (Fortran) order, into row-major order in place of a new buffer.
func fortranToC(d *tensor.Dense) {
	shape := d.Shape
	if len(shape) < 2 || d.Numel() < 2 {
		return
	}
	size := d.DType.Size()
	out := tensor.AlignedBytes(len(d.Buf))
	// fstr[k] is the Fortran stride of dimension k, in elements.
	fstr := make([]int, len(shape))
	acc := 1
	for k := range shape {
		fstr[k] = acc
		acc *= shape[k]
	}
	idx := make([]int, len(shape))
	src := 0
	for i := range d.Numel() {
		copy(out[i*size:(i+1)*size], d.Buf[src*size:(src+1)*size])
		// Advance the row-major index, last dimension fastest.
		for k := len(shape) - 1; k >= 0; k-- {
			idx[k]++
			src += fstr[k]
			if idx[k] < shape[k] {
				break
			}
			src -= idx[k] * fstr[k]
			idx[k] = 0
		}
	}
	d.Buf = out
}
