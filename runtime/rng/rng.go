// Package rng is tref's random number generator: one deterministic stream
// per interpreter, always drawn on the host so that a seed gives the same
// numbers whatever device later computes with them.
//
// The algorithm is fixed so that streams stay stable across versions:
//
//   - bits: PCG-XSH-RR 64/32 (O'Neill, "PCG: A Family of Simple Fast
//     Space-Efficient Statistically Good Algorithms for Random Number
//     Generation", 2014), seeded as the reference pcg32_srandom_r(seed, 54);
//     a 64-bit draw is two 32-bit draws, high word first;
//   - uniform float32 in [0, 1): the top 24 bits of one draw times 2^-24;
//     uniform float64 in [0, 1): the top 53 bits of a 64-bit draw times 2^-53;
//   - integers in [lo, hi): Lemire's multiply-and-reject method on 64-bit
//     draws (unbiased);
//   - normals: the Box-Muller transform, producing values in pairs
//     (cos then sin) from two uniforms u1 in (0, 1] and u2 in [0, 1); float32
//     normals take each uniform from one 32-bit draw, float64 normals from
//     one 64-bit draw. A fill of odd length drops the last pair's sine.
package rng

import (
	"math"
	"math/bits"
)

// DefaultSeed seeds a Source that the script never seeded: runs are
// reproducible by default.
const DefaultSeed = 0

// stream is the PCG stream selector (initseq), the reference demo's.
const stream = 54

const multiplier = 6364136223846793005

// Source is a PCG32 generator. It is not safe for concurrent use; each
// interpreter thread owns one.
type Source struct {
	state, inc uint64
}

// New returns a Source seeded with seed.
func New(seed uint64) *Source {
	s := &Source{}
	s.Seed(seed)
	return s
}

// Seed resets the stream, as the script's seed(n) does.
func (s *Source) Seed(seed uint64) {
	s.state = 0
	s.inc = stream<<1 | 1
	s.Uint32()
	s.state += seed
	s.Uint32()
}

// Uint32 returns the next 32 random bits.
func (s *Source) Uint32() uint32 {
	old := s.state
	s.state = old*multiplier + s.inc
	xorshifted := uint32(((old >> 18) ^ old) >> 27)
	rot := uint32(old >> 59)
	return bits.RotateLeft32(xorshifted, -int(rot))
}

// Uint64 returns 64 random bits from two draws, high word first.
func (s *Source) Uint64() uint64 {
	hi := uint64(s.Uint32())
	return hi<<32 | uint64(s.Uint32())
}

// Float32 returns a uniform float32 in [0, 1).
func (s *Source) Float32() float32 {
	return float32(s.Uint32()>>8) * (1.0 / (1 << 24))
}

// Float64 returns a uniform float64 in [0, 1).
func (s *Source) Float64() float64 {
	return float64(s.Uint64()>>11) * (1.0 / (1 << 53))
}

// Below returns a uniform integer in [0, n); n must be positive.
func (s *Source) Below(n uint64) uint64 {
	hi, lo := bits.Mul64(s.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(s.Uint64(), n)
		}
	}
	return hi
}

// FillUniform32 fills dst with uniform float32 values in [0, 1).
func (s *Source) FillUniform32(dst []float32) {
	for i := range dst {
		dst[i] = s.Float32()
	}
}

// FillUniform64 fills dst with uniform float64 values in [0, 1).
func (s *Source) FillUniform64(dst []float64) {
	for i := range dst {
		dst[i] = s.Float64()
	}
}

// FillInt64 fills dst with uniform integers in [lo, hi); hi must exceed lo.
func (s *Source) FillInt64(dst []int64, lo, hi int64) {
	n := uint64(hi) - uint64(lo) // the width fits in uint64 even when hi-lo overflows int64
	for i := range dst {
		dst[i] = lo + int64(s.Below(n))
	}
}

// FillNormal32 fills dst with standard normal float32 values.
func (s *Source) FillNormal32(dst []float32) {
	const inv32 = 1.0 / (1 << 32)
	for i := 0; i < len(dst); i += 2 {
		u1 := (float64(s.Uint32()) + 1) * inv32 // (0, 1]: log never sees 0
		u2 := float64(s.Uint32()) * inv32
		r := math.Sqrt(-2 * math.Log(u1))
		sin, cos := math.Sincos(2 * math.Pi * u2)
		dst[i] = float32(r * cos)
		if i+1 < len(dst) {
			dst[i+1] = float32(r * sin)
		}
	}
}

// FillNormal64 fills dst with standard normal float64 values.
func (s *Source) FillNormal64(dst []float64) {
	for i := 0; i < len(dst); i += 2 {
		u1 := 1 - s.Float64() // (0, 1]
		u2 := s.Float64()
		r := math.Sqrt(-2 * math.Log(u1))
		sin, cos := math.Sincos(2 * math.Pi * u2)
		dst[i] = r * cos
		if i+1 < len(dst) {
			dst[i+1] = r * sin
		}
	}
}

// FillBernoulli sets dst[i] to 1 with probability p and to 0 otherwise,
// comparing one uniform float32 per element with p.
func (s *Source) FillBernoulli(dst []uint8, p float64) {
	for i := range dst {
		if float64(s.Float32()) < p {
			dst[i] = 1
		} else {
			dst[i] = 0
		}
	}
}
