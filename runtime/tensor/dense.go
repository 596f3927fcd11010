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

// U16 views the buffer as raw 16-bit elements (float16 and bfloat16 bits).
func (d *Dense) U16() []uint16 { return view[uint16](d.Buf) }

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
