package gemm

// machine is a set of micro-routines for one kind of CPU.
type machine struct {
	name string
	kern kernelFunc
	// packBT, when set, packs the leading steps of a full (NR-column)
	// transposed B panel: dst as packB lays it out, b starting at the
	// panel's first element; it returns how many steps (a prefix of kc)
	// it packed, the rest being left to the portable loop.
	packBT func(dst, b []float32, ldb, kc int) int
	// packBRow, when set, copies the full panels of one row of plain B:
	// dst[i·stride + j] = src[i·NR + j] for i < panels, j < NR.
	packBRow func(dst, src []float32, panels, stride int)
	// packA, when set, packs the leading steps of a full (MR-row) micro-
	// panel of A, not transposed and not scaled: dst as packA lays it
	// out, a starting at the panel's first element; it returns how many
	// steps it packed.
	packA func(dst, a []float32, lda, kc int) int
}

// portable runs anywhere.
var portable = machine{name: "go 6x16", kern: kernelGo}

// best is the fastest machine this CPU supports; architecture files
// replace it in their init.
var best = portable

// Kernel names the micro-kernel Sgemm uses on this machine ("avx2-fma
// 6x16" or "go 6x16").
func Kernel() string { return best.name }
