//go:build !amd64 || purego

package cpu

// expSubSum replaces row[i] by exp(row[i] - mx) and returns the sum; mx is
// finite and at least every element.
func expSubSum(row []float32, mx float32) float32 {
	var sum float32
	for j, x := range row {
		e := expf(x - mx)
		row[j] = e
		sum += e
	}
	return sum
}
