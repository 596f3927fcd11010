package formats

import (
	"encoding/binary"
	"fmt"

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
	rawU16
	rawU32
	rawU64
)

var rawSizes = [...]int{rawBool: 1, rawU8: 1, rawI8: 1, rawI16: 2, rawI32: 4, rawI64: 8, rawF16: 2, rawBF16: 2, rawF32: 4, rawF64: 8,
	rawU16: 2, rawU32: 4, rawU64: 8}

// rawDTypes pairs each stored type with the tref dtype of the same
// representation.
var rawDTypes = [...]tensor.DType{rawBool: tensor.Bool, rawU8: tensor.Uint8, rawI8: tensor.Int8, rawI16: tensor.Int16,
	rawI32: tensor.Int32, rawI64: tensor.Int64, rawF16: tensor.Float16, rawBF16: tensor.BFloat16, rawF32: tensor.Float32,
	rawF64: tensor.Float64, rawU16: tensor.Uint16, rawU32: tensor.Uint32, rawU64: tensor.Uint64}

func (r raw) size() int { return rawSizes[r] }

// natural is the tref dtype a stored type loads as: its own, except that
// half types become float32 when keepHalf is false.
func (r raw) natural(keepHalf bool) tensor.DType {
	if (r == rawF16 || r == rawBF16) && !keepHalf {
		return tensor.Float32
	}
	if int(r) < len(rawDTypes) {
		return rawDTypes[r]
	}
	return tensor.Invalid
}

// rawOf is the stored type that holds dtype d without conversion.
func rawOf(d tensor.DType) raw {
	for r, dt := range rawDTypes {
		if dt == d && d != tensor.Invalid {
			return raw(r)
		}
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
	if rawOf(dst.DType) == r {
		// Same representation: a copy, its bytes swapped when big-endian.
		switch {
		case r == rawBool:
			for i, b := range src {
				dst.Buf[i] = b2u(b != 0)
			}
		case !big || r.size() == 1:
			copy(dst.Buf, src)
		case r.size() == 2:
			out := dst.U16()
			for i := range out {
				out[i] = bo.Uint16(src[2*i:])
			}
		case r.size() == 4:
			out := dst.U32()
			for i := range out {
				out[i] = bo.Uint32(src[4*i:])
			}
		default:
			out := dst.U64()
			for i := range out {
				out[i] = bo.Uint64(src[8*i:])
			}
		}
		return nil
	}
	switch dst.DType {
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
		default:
			return fmt.Errorf("internal: no conversion to float32 from stored type %d", r)
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
