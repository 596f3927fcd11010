package cpu

// hardswishChunk is the block hardswishF32 works in: its intermediate
// stays in L1.
const hardswishChunk = 1024

// hardswishF32 sets o = x·clamp(x+3, 0, 6)/6 with every step rounded to
// float32, as torch computes it and as the four ONNX nodes exporters
// write it (Add, Clip, Mul, Div) do: one pass over x instead of four.
// o may be x.
func hardswishF32(o, x []float32) {
	x = x[:len(o)]
	simd := simdHardswishF32()
	var t [hardswishChunk]float32
	for lo := 0; lo < len(o); lo += hardswishChunk {
		hi := min(len(o), lo+hardswishChunk)
		m := lo
		if simd != nil {
			m = lo + (hi-lo)&^7
			simd(o[lo:m], x[lo:m], t[:m-lo])
		}
		for i := m; i < hi; i++ {
			v := x[i]
			o[i] = v * min(max(v+3, 0), 6) / 6
		}
	}
}
