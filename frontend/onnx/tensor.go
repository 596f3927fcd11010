package onnx

import (
	"encoding/binary"
	"fmt"
	"math"
	"strconv"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/tref-lang/tref/runtime/tensor"
)

// DataType is TensorProto.DataType.
type DataType int32

// The element types of onnx.proto.
const (
	Undefined DataType = iota
	Float
	Uint8
	Int8
	Uint16
	Int16
	Int32
	Int64
	String
	Bool
	Float16
	Double
	Uint32
	Uint64
	Complex64
	Complex128
	BFloat16
)

var dataTypeNames = [...]string{"undefined", "float32", "uint8", "int8", "uint16", "int16", "int32", "int64", "string", "bool", "float16", "float64", "uint32", "uint64", "complex64", "complex128", "bfloat16"}

func (t DataType) String() string {
	if t >= 0 && int(t) < len(dataTypeNames) {
		return dataTypeNames[t]
	}
	return "data type " + strconv.Itoa(int(t))
}

// size is the bytes one element takes in raw_data (0 for strings and
// unknown types).
func (t DataType) size() int {
	switch t {
	case Uint8, Int8, Bool:
		return 1
	case Uint16, Int16, Float16, BFloat16:
		return 2
	case Float, Int32, Uint32:
		return 4
	case Int64, Uint64, Double, Complex64:
		return 8
	case Complex128:
		return 16
	}
	return 0
}

// DType is the tref dtype a tensor of type t is loaded as: the same type,
// except that the half types become float32 (the cpu backend computes in
// float32). ok is false for types tref cannot hold (strings, complex
// numbers, 8-bit floats).
func (t DataType) DType() (d tensor.DType, ok bool) {
	switch t {
	case Float, Float16, BFloat16:
		return tensor.Float32, true
	case Double:
		return tensor.Float64, true
	case Uint8:
		return tensor.Uint8, true
	case Int8:
		return tensor.Int8, true
	case Int16:
		return tensor.Int16, true
	case Int32:
		return tensor.Int32, true
	case Int64:
		return tensor.Int64, true
	case Uint16:
		return tensor.Uint16, true
	case Uint32:
		return tensor.Uint32, true
	case Uint64:
		return tensor.Uint64, true
	case Bool:
		return tensor.Bool, true
	}
	return tensor.Invalid, false
}

// ToDataType is the ONNX type of a tref dtype.
func ToDataType(d tensor.DType) DataType {
	switch d {
	case tensor.Float32:
		return Float
	case tensor.Float64:
		return Double
	case tensor.Float16:
		return Float16
	case tensor.BFloat16:
		return BFloat16
	case tensor.Uint8:
		return Uint8
	case tensor.Int8:
		return Int8
	case tensor.Int16:
		return Int16
	case tensor.Int32:
		return Int32
	case tensor.Int64:
		return Int64
	case tensor.Uint16:
		return Uint16
	case tensor.Uint32:
		return Uint32
	case tensor.Uint64:
		return Uint64
	case tensor.Bool:
		return Bool
	}
	return Undefined
}

// Tensor is a decoded TensorProto: its name, type and shape, and where its
// data is, read by Load.
type Tensor struct {
	Name  string
	Dims  []int64
	DType DataType
	// raw is the file span of raw_data; hasRaw says it was present.
	rawOff, rawLen int64
	hasRaw         bool
	// field is the typed data field that holds the elements (4, 5, 7, 10
	// or 11), packed the spans of its packed occurrences and vals the
	// values of unpacked ones.
	field  protowire.Number
	packed []span
	vals   []uint64
	// Strings is the number of elements of string_data.
	Strings int
	// External is where the data is when it is stored outside the model
	// file.
	External *External
}

// span is a range of bytes of the file.
type span struct{ off, n int64 }

// External is a tensor's external_data: a file relative to the model's
// folder and the range of its bytes.
type External struct {
	Location       string
	Offset, Length int64
	HasLength      bool
}

// decodeTensor reads a TensorProto's header and locates its data.
func decodeTensor(b []byte, base int64) (*Tensor, error) {
	t := &Tensor{}
	var extern []([2]string)
	location := int64(0)
	err := walk(b, base, func(num protowire.Number, typ protowire.Type, v uint64, val []byte, off int64) error {
		bad := func() error { return wireErr("TensorProto", num, typ) }
		switch num {
		case 1:
			switch typ {
			case protowire.VarintType:
				if len(t.Dims) >= MaxRank {
					return fmt.Errorf("more than %d dimensions", MaxRank)
				}
				t.Dims = append(t.Dims, int64(v))
			case protowire.BytesType:
				for p := 0; p < len(val); {
					x, n := protowire.ConsumeVarint(val[p:])
					if n < 0 {
						return fmt.Errorf("dims: %v", protowire.ParseError(n))
					}
					if len(t.Dims) >= MaxRank {
						return fmt.Errorf("more than %d dimensions", MaxRank)
					}
					t.Dims = append(t.Dims, int64(x))
					p += n
				}
			default:
				return bad()
			}
		case 2:
			if typ != protowire.VarintType {
				return bad()
			}
			t.DType = DataType(int32(v))
		case 8:
			if typ != protowire.BytesType {
				return bad()
			}
			t.Name = string(val)
		case 9:
			if typ != protowire.BytesType {
				return bad()
			}
			t.rawOff, t.rawLen, t.hasRaw = off, int64(len(val)), true
		case 6:
			if typ != protowire.BytesType {
				return bad()
			}
			t.Strings++
		case 13:
			if typ != protowire.BytesType {
				return bad()
			}
			k, v, err := stringEntry(val, off)
			if err != nil {
				return err
			}
			extern = append(extern, [2]string{k, v})
		case 14:
			if typ != protowire.VarintType {
				return bad()
			}
			location = int64(v)
		case 4, 5, 7, 10, 11:
			if t.field != 0 && t.field != num {
				return fmt.Errorf("data in two fields (%d and %d)", t.field, num)
			}
			t.field = num
			switch typ {
			case protowire.BytesType:
				t.packed = append(t.packed, span{off, int64(len(val))})
			case protowire.VarintType, protowire.Fixed32Type, protowire.Fixed64Type:
				if typ != typedWire(num) {
					return bad()
				}
				t.vals = append(t.vals, v)
			default:
				return bad()
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("tensor %q: %w", t.Name, err)
	}
	if location == 1 || len(extern) > 0 {
		ext, err := externalOf(extern)
		if err != nil {
			return nil, fmt.Errorf("tensor %q: external data: %w", t.Name, err)
		}
		t.External = ext
	}
	return t, nil
}

// typedWire is the wire type of one unpacked element of a typed data field.
func typedWire(num protowire.Number) protowire.Type {
	switch num {
	case 4:
		return protowire.Fixed32Type
	case 10:
		return protowire.Fixed64Type
	}
	return protowire.VarintType
}

func externalOf(kv [][2]string) (*External, error) {
	e := &External{}
	for _, p := range kv {
		switch p[0] {
		case "location":
			e.Location = p[1]
		case "offset", "length":
			n, err := strconv.ParseInt(p[1], 10, 64)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("%s %q is not a byte count", p[0], p[1])
			}
			if p[0] == "offset" {
				e.Offset = n
			} else {
				e.Length, e.HasLength = n, true
			}
		}
	}
	if e.Location == "" {
		return nil, fmt.Errorf("no location")
	}
	return e, nil
}

// Shape is the tensor's shape as tref holds it, checked: no negative
// dimension, at most tensor.MaxElements elements.
func (t *Tensor) Shape() (tensor.Shape, error) {
	s := make(tensor.Shape, len(t.Dims))
	for i, d := range t.Dims {
		if d < 0 || d > tensor.MaxElements {
			return nil, fmt.Errorf("tensor %q: dimension %d of %d", t.Name, i, d)
		}
		s[i] = int(d)
	}
	if _, err := tensor.CheckedNumel(s); err != nil {
		return nil, fmt.Errorf("tensor %q: %w", t.Name, err)
	}
	return s, nil
}

// Meta is the shape and dtype Load gives, or why the tensor cannot load.
func (t *Tensor) Meta() (tensor.Meta, error) {
	s, err := t.Shape()
	if err != nil {
		return tensor.Meta{}, err
	}
	d, ok := t.DType.DType()
	if !ok {
		return tensor.Meta{}, fmt.Errorf("tensor %q: tref has no %s tensors", t.Name, t.DType)
	}
	return tensor.Meta{Shape: s, DType: d}, nil
}

// StoredBytes is the size of the tensor's data as the file stores it
// (raw or external data; for typed fields, the element size times the
// count).
func (t *Tensor) StoredBytes() int64 {
	s, err := t.Shape()
	if err != nil {
		return 0
	}
	return int64(s.Numel()) * int64(t.DType.size())
}

// reader gives the bytes [off, off+n) of a file to fn (formats.Mapped.Read).
type reader func(off, n int64, fn func([]byte) error) error

// load decodes the tensor's data from the model file (rd) or, for external
// data, from the file open returns.
// check is asked before the host buffer is allocated.
func (t *Tensor) load(rd reader, open func(*External) (reader, int64, error), check func(int64) error) (*tensor.Dense, error) {
	m, err := t.Meta()
	if err != nil {
		return nil, err
	}
	n := m.Shape.Numel()
	size := int64(t.DType.size())
	if !t.hasRaw && t.External == nil {
		if err := t.checkTyped(n); err != nil {
			return nil, err
		}
	}
	if check != nil {
		if err := check(m.Bytes()); err != nil {
			return nil, fmt.Errorf("tensor %q: %w", t.Name, err)
		}
	}
	d := tensor.NewDense(m)
	switch {
	case t.External != nil:
		xr, fsize, err := open(t.External)
		if err != nil {
			return nil, err
		}
		e := t.External
		want := int64(n) * size
		if e.HasLength && e.Length != want {
			return nil, fmt.Errorf("tensor %q: external length %d, expected %d bytes for %v %s", t.Name, e.Length, want, m.Shape, t.DType)
		}
		if e.Offset > fsize || want > fsize-e.Offset {
			return nil, fmt.Errorf("tensor %q: external range [%d, %d) is outside %s (%d bytes)", t.Name, e.Offset, e.Offset+want, e.Location, fsize)
		}
		return d, xr(e.Offset, want, func(src []byte) error { return t.fromRaw(d, src) })
	case t.hasRaw:
		if want := int64(n) * size; t.rawLen != want {
			return nil, fmt.Errorf("tensor %q: raw_data of %d bytes, expected %d for %v %s", t.Name, t.rawLen, want, m.Shape, t.DType)
		}
		return d, rd(t.rawOff, t.rawLen, func(src []byte) error { return t.fromRaw(d, src) })
	}
	return d, t.fromTyped(d, n, rd)
}

// fromRaw converts little-endian elements of t.DType into d.
func (t *Tensor) fromRaw(d *tensor.Dense, src []byte) error {
	n := d.Numel()
	le := binary.LittleEndian
	switch t.DType {
	case Float:
		dst := d.F32()
		for i := range n {
			dst[i] = math.Float32frombits(le.Uint32(src[4*i:]))
		}
	case Double:
		dst := d.F64()
		for i := range n {
			dst[i] = math.Float64frombits(le.Uint64(src[8*i:]))
		}
	case Float16, BFloat16:
		dst := d.F32()
		for i := range n {
			dst[i] = half(t.DType, le.Uint16(src[2*i:]))
		}
	case Uint8:
		copy(d.U8(), src[:n])
	case Bool:
		dst := d.U8()
		for i := range n {
			dst[i] = b2u(src[i] != 0)
		}
	default:
		// The integer types: stored little-endian at their own width,
		// as tref holds them.
		for i := range n {
			d.SetInt(i, intAt(t.DType, src, i))
		}
	}
	return nil
}

// intAt reads element i of little-endian integers of type t (uint64 as
// its bits).
func intAt(t DataType, src []byte, i int) int64 {
	le := binary.LittleEndian
	switch t {
	case Int8:
		return int64(int8(src[i]))
	case Int16:
		return int64(int16(le.Uint16(src[2*i:])))
	case Uint16:
		return int64(le.Uint16(src[2*i:]))
	case Int32:
		return int64(int32(le.Uint32(src[4*i:])))
	case Uint32:
		return int64(le.Uint32(src[4*i:]))
	}
	return int64(le.Uint64(src[8*i:]))
}

func half(t DataType, h uint16) float32 {
	if t == BFloat16 {
		return tensor.BFloatToFloat(h)
	}
	return tensor.HalfToFloat(h)
}

func b2u(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

// fieldFor is the typed data field that holds elements of type t.
func fieldFor(t DataType) protowire.Number {
	switch t {
	case Float, Complex64:
		return 4
	case Int64:
		return 7
	case Double, Complex128:
		return 10
	case Uint32, Uint64:
		return 11
	}
	return 5 // int32_data: the small integers, bool and the half types
}

// checkTyped rejects typed data that cannot hold n elements, before the
// buffer is allocated: a fixed-size element takes 4 or 8 bytes, a varint
// at least one.
func (t *Tensor) checkTyped(n int) error {
	if t.field == 0 {
		if n == 0 {
			return nil
		}
		return fmt.Errorf("tensor %q of %d elements has no data", t.Name, n)
	}
	if t.field != fieldFor(t.DType) {
		return fmt.Errorf("tensor %q: %s data in field %d", t.Name, t.DType, t.field)
	}
	var bytes int64
	for _, s := range t.packed {
		bytes += s.n
	}
	have := int64(len(t.vals))
	switch typedWire(t.field) {
	case protowire.Fixed32Type:
		if bytes%4 != 0 {
			return fmt.Errorf("tensor %q: packed floats of %d bytes", t.Name, bytes)
		}
		have += bytes / 4
	case protowire.Fixed64Type:
		if bytes%8 != 0 {
			return fmt.Errorf("tensor %q: packed doubles of %d bytes", t.Name, bytes)
		}
		have += bytes / 8
	default:
		if have+bytes < int64(n) {
			return fmt.Errorf("tensor %q: %d bytes of data cannot hold its %d elements", t.Name, have+bytes, n)
		}
		return nil
	}
	if have != int64(n) {
		return fmt.Errorf("tensor %q: %d elements for a shape of %d", t.Name, have, n)
	}
	return nil
}

// fromTyped decodes elements from the typed data field (float_data,
// int32_data, ...), packed or not.
func (t *Tensor) fromTyped(d *tensor.Dense, n int, rd reader) error {
	i := 0
	put := func(v uint64) error {
		if i >= n {
			return fmt.Errorf("tensor %q: more than the %d elements of its shape", t.Name, n)
		}
		t.set(d, i, v)
		i++
		return nil
	}
	for _, s := range t.packed {
		err := rd(s.off, s.n, func(src []byte) error {
			for p := 0; p < len(src); {
				var (
					v uint64
					k int
				)
				switch typedWire(t.field) {
				case protowire.Fixed32Type:
					var x uint32
					x, k = protowire.ConsumeFixed32(src[p:])
					v = uint64(x)
				case protowire.Fixed64Type:
					v, k = protowire.ConsumeFixed64(src[p:])
				default:
					v, k = protowire.ConsumeVarint(src[p:])
				}
				if k < 0 {
					return fmt.Errorf("tensor %q: packed data: %v", t.Name, protowire.ParseError(k))
				}
				p += k
				if err := put(v); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	for _, v := range t.vals {
		if err := put(v); err != nil {
			return err
		}
	}
	if i != n {
		return fmt.Errorf("tensor %q: %d elements for a shape of %d", t.Name, i, n)
	}
	return nil
}

// set stores element i of d from its typed-field encoding v.
func (t *Tensor) set(d *tensor.Dense, i int, v uint64) {
	switch t.DType {
	case Float:
		d.F32()[i] = math.Float32frombits(uint32(v))
	case Double:
		d.F64()[i] = math.Float64frombits(v)
	case Float16, BFloat16:
		d.F32()[i] = half(t.DType, uint16(v))
	case Uint8:
		d.U8()[i] = uint8(v)
	case Bool:
		d.U8()[i] = b2u(v != 0)
	case Int8:
		d.SetInt(i, int64(int8(v)))
	case Int16:
		d.SetInt(i, int64(int16(v)))
	case Int32:
		d.SetInt(i, int64(int32(v)))
	case Uint16:
		d.SetInt(i, int64(uint16(v)))
	case Uint32:
		d.SetInt(i, int64(uint32(v)))
	default:
		d.SetInt(i, int64(v))
	}
}
