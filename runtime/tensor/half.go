package tensor

import "math"

// HalfToFloat converts IEEE 754 binary16 bits to float32.
func HalfToFloat(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h) & 0x3ff
	switch {
	case exp == 0 && mant == 0:
		return math.Float32frombits(sign)
	case exp == 0: // subnormal: normalise
		e := uint32(127 - 15 + 1)
		for mant&0x400 == 0 {
			mant <<= 1
			e--
		}
		mant &= 0x3ff
		return math.Float32frombits(sign | e<<23 | mant<<13)
	case exp == 0x1f:
		return math.Float32frombits(sign | 0xff<<23 | mant<<13)
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | mant<<13)
}

// FloatToHalf converts float32 to binary16 bits, rounding to nearest even.
func FloatToHalf(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int32(b>>23) & 0xff
	mant := b & 0x7fffff
	if exp == 0xff {
		if mant != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	}
	e := exp - 127 + 15
	if e >= 0x1f {
		return sign | 0x7c00
	}
	if e <= 0 {
		if e < -10 {
			return sign
		}
		mant |= 0x800000
		shift := uint32(14 - e)
		half := uint32(1) << (shift - 1)
		rem := mant & (1<<shift - 1)
		m := mant >> shift
		if rem > half || (rem == half && m&1 == 1) {
			m++
		}
		return sign | uint16(m)
	}
	m := mant >> 13
	rem := mant & 0x1fff
	out := uint32(sign) | uint32(e)<<10 | m
	if rem > 0x1000 || (rem == 0x1000 && m&1 == 1) {
		out++ // may carry into the exponent, which is the correct rounding
	}
	return uint16(out)
}

// BFloatToFloat converts bfloat16 bits to float32.
func BFloatToFloat(h uint16) float32 { return math.Float32frombits(uint32(h) << 16) }

// FloatToBFloat converts float32 to bfloat16 bits, rounding to nearest even.
func FloatToBFloat(f float32) uint16 {
	b := math.Float32bits(f)
	if f != f {
		return uint16(b>>16) | 0x40
	}
	b += 0x7fff + (b>>16)&1
	return uint16(b >> 16)
}
