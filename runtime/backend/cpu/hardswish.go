package cpu

// hardswishF32 sets o = x·clamp(x+3, 0, 6)/6 with every step rounded to
// float32, as torch computes it and as the four ONNX nodes exporters
// write it (Add, Clip, Mul, Div) do: one pass over x instead of four.
// o may be x.
func hardswishF32(o, x []float32) {
	x = x[:len(o)]
	m := 0
	if m8 := len(o) &^ 7; hardswishSIMD(o[:m8], x[:m8]) {
		m = m8
	}
	for i := m; i < len(o); i++ {
		v := x[i]
		o[i] = v * min(max(v+3, 0), 6) / 6
	}
}
