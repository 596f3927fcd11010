package cpu

// affineRow sets o[i] = x[i]·s + b (o and x of one length; o may be x),
// vectorised where the platform allows: batch norm's per-channel scale
// and shift.
func affineRow[T float32 | float64](o, x []T, s, b T) {
	x = x[:len(o)]
	for i := affineSIMD(o, x, s, b); i < len(o); i++ {
		o[i] = x[i]*s + b
	}
}
