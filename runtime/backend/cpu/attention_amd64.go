//go:build amd64 && !purego

package cpu

import "golang.org/x/sys/cpu"

// expSubSumAVX2 is the 8-wide exp of softmax rows (attention_amd64.s).
//
//go:noescape
func expSubSumAVX2(x *float32, n int, mx float32) float32

var expHasAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// expSubSum replaces row[i] by exp(row[i] - mx) and returns the sum; mx is
// finite and at least every element.
func expSubSum(row []float32, mx float32) float32 {
	n := 0
	var sum float32
	if expHasAVX2 {
		n = len(row) &^ 7
		if n > 0 {
			sum = expSubSumAVX2(&row[0], n, mx)
		}
	}
	for j := n; j < len(row); j++ {
		e := expf(row[j] - mx)
		row[j] = e
		sum += e
	}
	return sum
}
