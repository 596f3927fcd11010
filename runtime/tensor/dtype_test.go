package tensor

import (
	"math"
	"testing"
)

func TestDTypeNamesSizesRoundTrip(t *testing.T) {
	for d := Bool; d <= Uint64; d++ {
		got, ok := ParseDType(d.String())
		if !ok || got != d {
			t.Errorf("ParseDType(%q) = %v, %v", d.String(), got, ok)
		}
		if d.Size() == 0 {
			t.Errorf("%v has no size", d)
		}
	}
	if IsIntAll := Int8.IsInt() && Int16.IsInt() && Int32.IsInt() && Uint16.IsInt() && Uint32.IsInt() && Uint64.IsInt(); !IsIntAll {
		t.Error("a narrow integer type is not IsInt")
	}
	if Int64.IsNarrowInt() || Uint8.IsNarrowInt() || !Int32.IsNarrowInt() || Float32.IsInt() || Bool.IsInt() {
		t.Error("IsNarrowInt or IsInt misclassifies")
	}
}

// TestPromoteIntegers checks torch.result_type between integer widths
// (torch 1.13 for the signed types and uint8; the wider unsigned types
// follow the same rule: the signed type twice as wide).
func TestPromoteIntegers(t *testing.T) {
	cases := []struct{ a, b, want DType }{
		{Int8, Uint8, Int16},
		{Int8, Int16, Int16},
		{Int16, Int32, Int32},
		{Int32, Int64, Int64},
		{Uint8, Int32, Int32},
		{Uint8, Int16, Int16},
		{Uint16, Int16, Int32},
		{Uint16, Int32, Int32},
		{Uint32, Int8, Int64},
		{Uint64, Int64, Int64},
		{Uint16, Uint32, Uint32},
		{Uint8, Uint64, Uint64},
		{Int32, Float16, Float16},
		{Int32, Bool, Int32},
		{Uint32, Float32, Float32},
	}
	for _, c := range cases {
		for _, swap := range []bool{false, true} {
			a, b := c.a, c.b
			if swap {
				a, b = b, a
			}
			got := ResultType(Meta{Shape: Shape{2}, DType: a}, Meta{Shape: Shape{2}, DType: b})
			if got != c.want {
				t.Errorf("%v with %v: %v, want %v", a, b, got, c.want)
			}
		}
	}
	// A 0-d integer keeps the dimensioned tensor's width; a 0-d of a
	// higher category gives its own dtype (torch.result_type).
	if got := ResultType(Meta{Shape: Shape{2}, DType: Int8}, Meta{DType: Int64}); got != Int8 {
		t.Errorf("int8[2] with a 0-d int64: %v", got)
	}
	zeroD := []struct{ zero, dim, want DType }{
		{Float64, Uint16, Float64},
		{Float16, Int64, Float16},
		{BFloat16, Int32, BFloat16},
		{Int8, Bool, Int8},
		{Float32, Int64, Float32},
		{Float64, Float16, Float16},
		{Int64, Uint8, Uint8},
	}
	for _, c := range zeroD {
		for _, swap := range []bool{false, true} {
			a, b := Meta{DType: c.zero}, Meta{Shape: Shape{2}, DType: c.dim}
			if swap {
				a, b = b, a
			}
			if got := ResultType(a, b); got != c.want {
				t.Errorf("0-d %v with %v[2]: %v, want %v", c.zero, c.dim, got, c.want)
			}
		}
	}
}

func TestIntAccessWraps(t *testing.T) {
	for _, dt := range []DType{Int8, Int16, Int32, Uint16, Uint32, Uint64, Int64, Uint8} {
		d := NewDense(Meta{Shape: Shape{3}, DType: dt})
		d.SetInt(0, -1)
		d.SetInt(1, 1<<40+5)
		d.Set(2, 7.9)
		bits := 8 * dt.Size()
		wantNeg := int64(-1)
		if dt.IsUnsigned() && bits < 64 {
			wantNeg = 1<<bits - 1
		}
		if got := d.IntAt(0); got != wantNeg {
			t.Errorf("%v: -1 reads back as %d, want %d", dt, got, wantNeg)
		}
		want := int64(1<<40 + 5)
		if bits < 64 {
			want &= 1<<bits - 1
			if !dt.IsUnsigned() && want >= 1<<(bits-1) {
				want -= 1 << bits
			}
		}
		if got := d.IntAt(1); got != want {
			t.Errorf("%v: 2^40+5 reads back as %d, want %d", dt, got, want)
		}
		if got := d.At(2); got != 7 {
			t.Errorf("%v: Set(7.9) reads back as %v, want 7", dt, got)
		}
	}
	u := NewDense(Meta{Shape: Shape{1}, DType: Uint64})
	u.Set(0, math.Ldexp(1, 63))
	if u.U64()[0] != 1<<63 {
		t.Errorf("uint64 Set(2^63) = %d", u.U64()[0])
	}
	if s := Format(u); s != "tensor([9223372036854775808], dtype=uint64)" {
		t.Errorf("uint64 prints %q", s)
	}
	i := NewDense(Meta{Shape: Shape{2}, DType: Int32})
	i.SetInt(0, -5)
	i.SetInt(1, 300)
	if s := Format(i); s != "tensor([ -5, 300], dtype=int32)" {
		t.Errorf("int32 prints %q", s)
	}
}

// TestNumberType: a number weighs only by category against a tensor, and
// takes a 0-d tensor's dtype in its own category (torch's wrapped
// numbers); result is the binary op's dtype (torch 1.13's).
func TestNumberType(t *testing.T) {
	vec, zero := Shape{3}, Shape{}
	cases := []struct {
		num          DType
		other        Meta
		want, result DType
	}{
		{Float64, Meta{Shape: vec, DType: Int64}, Float32, Float32},
		{Float64, Meta{Shape: zero, DType: Int8}, Float32, Float32},
		{Float32, Meta{Shape: vec, DType: Bool}, Float32, Float32},
		{Int64, Meta{Shape: vec, DType: Bool}, Int64, Int64},
		{Float64, Meta{Shape: zero, DType: Float32}, Float32, Float32},
		{Float32, Meta{Shape: zero, DType: Float16}, Float16, Float16},
		{Int64, Meta{Shape: zero, DType: Uint8}, Uint8, Uint8},
		{Float64, Meta{Shape: vec, DType: Float32}, Float64, Float32},
		{Int64, Meta{Shape: vec, DType: Int8}, Int64, Int8},
		{Bool, Meta{Shape: zero, DType: Int64}, Bool, Int64},
		{Int64, Meta{Shape: zero, DType: Float64}, Int64, Float64},
	}
	for _, c := range cases {
		got := NumberType(c.num, c.other)
		if got != c.want {
			t.Errorf("a %v number with %v: %v, want %v", c.num, c.other, got, c.want)
		}
		if r := ResultType(Meta{DType: got}, c.other); r != c.result {
			t.Errorf("a %v number with %v: result %v, want %v", c.num, c.other, r, c.result)
		}
	}
}
