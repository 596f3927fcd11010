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
	var t [hardswishChunk]float32
	for lo := 0; lo < len(o); lo += hardswishChunk {
		hi := min(len(o), lo+hardswishChunk)
		m := lo
		if m8 := lo + (hi-lo)&^7; hardswishSIMD(o[lo:m8], x[lo:m8], t[:m8-lo]) {
			m = m8
		}
		for i := m; i < hi; i++ {
			v := x[i]
			o[i] = v * min(max(v+3, 0), 6) / 6
		}
	}
}
