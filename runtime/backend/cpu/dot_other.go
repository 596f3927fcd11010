//go:build !amd64 || purego

package cpu

// dotF32 is the dot product of x and y[:len(x)].
func dotF32(x, y []float32) float32 { return dotF32Go(x, y[:len(x)]) }
