package tensor

import (
	"fmt"
	"unsafe"
)

// Dense is a contiguous row-major tensor in host memory. Kernels, loaders
// and the printer work on Dense values; scripts only ever see refs.
type Dense struct {
	Meta
	// Buf holds Meta.Bytes() bytes, 8-byte aligned so typed views are safe.
	Buf []byte
}

// AlignedBytes returns a zeroed, 8-byte aligned byte slice of length n.
func AlignedBytes(n int) []byte {
	if n == 0 {
		return []byte{}
	}
	words := make([]uint64, (n+7)/8)
	return unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), n)
}

// NewDense allocates a zeroed host tensor.
func NewDense(m Meta) *Dense {
	return &Dense{Meta: Meta{Shape: m.Shape.Clone(), DType: m.DType}, Buf: AlignedBytes(int(m.Bytes()))}
}

// Wrap builds a Dense over an existing buffer, checking its length.
func Wrap(m Meta, buf []byte) (*Dense, error) {
	if int64(len(buf)) != m.Bytes() {
		return nil, fmt.Errorf("buffer of %d bytes does not hold %v (%d bytes)", len(buf), m, m.Bytes())
	}
	if len(buf) > 0 && uintptr(unsafe.Pointer(&buf[0]))%8 != 0 {
		b := AlignedBytes(len(buf))
		copy(b, buf)
		buf = b
	}
	return &Dense{Meta: m, Buf: buf}, nil
}

// Numel is the number of elements.
func (d *Dense) Numel() int { return d.Shape.Numel() }

func view[T any](b []byte) []T {
	var z T
	n := len(b) / int(unsafe.Sizeof(z))
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), n)
}

// F32 views the buffer as float32 elements. The dtype must be Float32.
func (d *Dense) F32() []float32 { return view[float32](d.Buf) }

// F64 views the buffer as float64 elements.
func (d *Dense) F64() []float64 { return view[float64](d.Buf) }

// I64 views the buffer as int64 elements.
func (d *Dense) I64() []int64 { return view[int64](d.Buf) }

// U8 views the buffer as uint8 elements (also used for bool: 0 or 1).
func (d *Dense) U8() []uint8 { return d.Buf }

// U16 views the buffer as raw 16-bit elements (uint16, and float16 and
// bfloat16 bits).
func (d *Dense) U16() []uint16 { return view[uint16](d.Buf) }

// I8 views the buffer as int8 elements.
func (d *Dense) I8() []int8 { return view[int8](d.Buf) }

// I16 views the buffer as int16 elements.
func (d *Dense) I16() []int16 { return view[int16](d.Buf) }

// I32 views the buffer as int32 elements.
func (d *Dense) I32() []int32 { return view[int32](d.Buf) }

// U32 views the buffer as uint32 elements.
func (d *Dense) U32() []uint32 { return view[uint32](d.Buf) }

// U64 views the buffer as uint64 elements.
func (d *Dense) U64() []uint64 { return view[uint64](d.Buf) }

// IntAt returns integer element i exactly (uint64 as its bits). The dtype
// must be an integer type or Bool.
func (d *Dense) IntAt(i int) int64 {
	switch d.DType {
	case Int64:
		return d.I64()[i]
	case Uint8, Bool:
		return int64(d.Buf[i])
	case Int8:
		return int64(d.I8()[i])
	case Int16:
		return int64(d.I16()[i])
	case Int32:
		return int64(d.I32()[i])
	case Uint16:
		return int64(d.U16()[i])
	case Uint32:
		return int64(d.U32()[i])
	case Uint64:
		return int64(d.U64()[i])
	}
	panic("tensor: IntAt on " + d.DType.String())
}

// SetInt stores v at integer element i, wrapping it into the dtype's width
// (Bool stores v != 0). The dtype must be an integer type or Bool.
func (d *Dense) SetInt(i int, v int64) {
	switch d.DType {
	case Int64:
		d.I64()[i] = v
	case Uint8:
		d.Buf[i] = uint8(v)
	case Bool:
		d.Buf[i] = 0
		if v != 0 {
			d.Buf[i] = 1
		}
	case Int8:
		d.I8()[i] = int8(v)
	case Int16:
		d.I16()[i] = int16(v)
	case Int32:
		d.I32()[i] = int32(v)
	case Uint16:
		d.U16()[i] = uint16(v)
	case Uint32:
		d.U32()[i] = uint32(v)
	case Uint64:
		d.U64()[i] = uint64(v)
	default:
		panic("tensor: SetInt on " + d.DType.String())
	}
}

// At returns element i converted to float64, whatever the dtype.
func (d *Dense) At(i int) float64 {
	switch d.DType {
	case Float32:
		return float64(d.F32()[i])
	case Float64:
		return d.F64()[i]
	case Int64:
		return float64(d.I64()[i])
	case Uint8, Bool:
		return float64(d.Buf[i])
	case Float16:
		return float64(HalfToFloat(d.U16()[i]))
	case BFloat16:
		return float64(BFloatToFloat(d.U16()[i]))
	case Uint64:
		return float64(d.U64()[i])
	case Int8, Int16, Int32, Uint16, Uint32:
		return float64(d.IntAt(i))
	}
	panic("tensor: At on invalid dtype")
}

// Set stores v (converted to the dtype, as a cast would) at element i.
func (d *Dense) Set(i int, v float64) {
	switch d.DType {
	case Float32:
		d.F32()[i] = float32(v)
	case Float64:
		d.F64()[i] = v
	case Int64:
		d.I64()[i] = int64(v)
	case Uint8:
		d.Buf[i] = uint8(int64(v))
	case Bool:
		if v != 0 {
			d.Buf[i] = 1
		} else {
			d.Buf[i] = 0
		}
	case Float16:
		d.U16()[i] = FloatToHalf(float32(v))
	case BFloat16:
		d.U16()[i] = FloatToBFloat(float32(v))
	case Uint64:
		if v >= 1<<63 {
			d.U64()[i] = uint64(v)
		} else {
			d.U64()[i] = uint64(int64(v))
		}
	case Int8, Int16, Int32, Uint16, Uint32:
		d.SetInt(i, int64(v))
	default:
		panic("tensor: Set on invalid dtype")
	}
}

// Clone returns a deep copy.
func (d *Dense) Clone() *Dense {
	c := NewDense(d.Meta)
	copy(c.Buf, d.Buf)
	return c
}
