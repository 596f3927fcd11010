// Package tensor holds the backend-free vocabulary of tref's runtime: element
// types, shapes, broadcasting and promotion rules, and Dense, the contiguous
// host representation that kernels and file loaders read and write.
package tensor

import (
	"fmt"
	"math"
)

// DType is an element type.
type DType uint8

// The element types tref knows. Float16 and BFloat16 exist for file formats
// and backends that support them; the cpu backend computes in Float32. The
// integer widths after Float64 (torch's int8, int16, int32, and the unsigned
// uint16, uint32, uint64 that ONNX models use) compute in Int64 on the cpu
// backend and wrap back into their width, as a C cast would; uint64 values
// of 2^63 or more are exact only in storage, casts, +, - and *.
const (
	Invalid DType = iota
	Bool
	Uint8
	Int64
	Float16
	BFloat16
	Float32
	Float64
	Int8
	Int16
	Int32
	Uint16
	Uint32
	Uint64
)

var dtypeNames = [...]string{
	Invalid:  "invalid",
	Bool:     "bool",
	Uint8:    "uint8",
	Int64:    "int64",
	Float16:  "float16",
	BFloat16: "bfloat16",
	Float32:  "float32",
	Float64:  "float64",
	Int8:     "int8",
	Int16:    "int16",
	Int32:    "int32",
	Uint16:   "uint16",
	Uint32:   "uint32",
	Uint64:   "uint64",
}

var dtypeSizes = [...]int{Bool: 1, Uint8: 1, Int64: 8, Float16: 2, BFloat16: 2, Float32: 4, Float64: 8,
	Int8: 1, Int16: 2, Int32: 4, Uint16: 2, Uint32: 4, Uint64: 8}

// String returns the dtype's name as scripts spell it ("float32").
func (d DType) String() string {
	if int(d) < len(dtypeNames) {
		return dtypeNames[d]
	}
	return fmt.Sprintf("dtype(%d)", uint8(d))
}

// Size is the number of bytes one element occupies.
func (d DType) Size() int {
	if int(d) < len(dtypeSizes) {
		return dtypeSizes[d]
	}
	return 0
}

// IsFloat reports whether d is a floating-point type.
func (d DType) IsFloat() bool {
	return d == Float16 || d == BFloat16 || d == Float32 || d == Float64
}

// IsInt reports whether d is an integer type (bool excluded).
func (d DType) IsInt() bool { return d == Uint8 || d == Int64 || d >= Int8 && d <= Uint64 }

// IsUnsigned reports whether d is an unsigned integer type.
func (d DType) IsUnsigned() bool { return d == Uint8 || d == Uint16 || d == Uint32 || d == Uint64 }

// MaxFinite is the largest finite value of a floating-point dtype
// (float32's for any other).
func (d DType) MaxFinite() float64 {
	switch d {
	case Float64:
		return math.MaxFloat64
	case Float16:
		return 65504
	case BFloat16:
		return 3.3895313892515355e38 // 0x7f7f
	}
	return math.MaxFloat32
}

// IsNarrowInt reports whether d is an integer type the cpu backend computes
// in Int64 (every integer width but Int64 and Uint8).
func (d DType) IsNarrowInt() bool { return d >= Int8 && d <= Uint64 }

// DTypeList names every dtype, for error messages that list them.
const DTypeList = "float32, float64, float16, bfloat16, int64, int32, int16, int8, uint8, uint16, uint32, uint64, bool"

// ParseDType maps a script name ("float32", "int64", ...) to a DType.
func ParseDType(name string) (DType, bool) {
	for i, n := range dtypeNames {
		if n == name && DType(i) != Invalid {
			return DType(i), true
		}
	}
	return Invalid, false
}

// category orders dtypes the way PyTorch's type promotion does:
// bool < integer < floating point.
func category(d DType) int {
	switch {
	case d == Bool:
		return 0
	case d.IsInt():
		return 1
	default:
		return 2
	}
}

// promoteSame promotes two dtypes that carry the same weight (both
// dimensioned or both 0-d): the higher category wins, and within a category
// the wider type.
func promoteSame(a, b DType) DType {
	ca, cb := category(a), category(b)
	switch {
	case ca > cb:
		return a
	case cb > ca:
		return b
	}
	if a == b {
		return a
	}
	if ca == 2 {
		// float16 with bfloat16 has no exact common half type; PyTorch picks float32.
		if (a == Float16 && b == BFloat16) || (a == BFloat16 && b == Float16) {
			return Float32
		}
	}
	if ca == 1 && a.IsUnsigned() != b.IsUnsigned() {
		return promoteMixedInts(a, b)
	}
	if a.Size() >= b.Size() {
		return a
	}
	return b
}

// promoteMixedInts promotes a signed and an unsigned integer type as torch
// does (uint8 with int8 gives int16): the signed type when it is wider,
// else the signed type twice the unsigned one's width, int64 at most.
func promoteMixedInts(a, b DType) DType {
	s, u := a, b
	if a.IsUnsigned() {
		s, u = b, a
	}
	if s.Size() > u.Size() {
		return s
	}
	switch u.Size() {
	case 1:
		return Int16
	case 2:
		return Int32
	}
	return Int64
}

// ResultType is PyTorch's torch.result_type for a binary op: tensors with
// dimensions decide the dtype, and a 0-d operand decides it only when its
// category is higher, at its own dtype. So int64[3] + 2.5 is float32 (a
// float literal is a float32 0-d), int64[3] + a float16 0-d is float16,
// and float32[3] + a float64 0-d stays float32.
func ResultType(a, b Meta) DType {
	az, bz := len(a.Shape) == 0, len(b.Shape) == 0
	if az == bz {
		return promoteSame(a.DType, b.DType)
	}
	dim, zero := a.DType, b.DType
	if az {
		dim, zero = b.DType, a.DType
	}
	if category(zero) > category(dim) {
		return zero
	}
	return dim
}

// NumberType is the dtype a number (a literal, or a host number such as
// item's) takes when it meets a tensor of meta other in a binary op, as a
// Python number meets a tensor in PyTorch (a "wrapped number", which
// weighs less than any tensor, 0-d ones included): of a higher category
// than other's, the category's default dtype (float32, int64); of the
// same category as a 0-d other, other's dtype (the number is cast to it,
// as torch casts it); else its own, which ResultType then ranks below
// other's (a lower category keeps its dtype, so that sub and the other
// ops that refuse a bool operand see it).
func NumberType(num DType, other Meta) DType {
	switch cn, co := category(num), category(other.DType); {
	case cn > co:
		if cn == 1 {
			return Int64
		}
		return Float32
	case cn == co && len(other.Shape) == 0:
		return other.DType
	}
	return num
}
