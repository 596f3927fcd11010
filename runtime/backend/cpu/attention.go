package cpu

import (
	"fmt"
	"math"

	"github.com/tref-lang/tref/runtime/backend/cpu/gemm"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

func init() {
	Register(ops.Attention, viaFloat32Inputs(attentionKernel))
}

// attnBlock is the number of query rows handled at once: the scratch of one
// goroutine is an attnBlock×S block of scores, never a whole L×S matrix.
const attnBlock = 64

func attentionKernel(out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
	d, causal, scale, err := attentionArgs("attention", ins, attrs)
	if err != nil {
		return err
	}
	switch out.DType {
	case tensor.Float32:
		attend(d, causal, float32(scale), matF32(ins[0]), matF32(ins[1]), matF32(ins[2]), out.F32(), sgemmMM, softmaxRowF32)
	case tensor.Float64:
		attend(d, causal, scale, matF64(ins[0]), matF64(ins[1]), matF64(ins[2]), out.F64(), gemm.GemmWorkers[float64], softmaxRowF64)
	default:
		return fmt.Errorf("attention: no kernel for %s", out.DType)
	}
	return nil
}

// attentionArgs reads the attributes of attention (ins q, k, v) or
// attention_weights (ins q, k): the layout, causal and the scale.
func attentionArgs(op string, ins []*tensor.Dense, attrs any) (ops.AttentionDims, bool, float64, error) {
	a, err := ops.AttrsAs[ops.AttentionAttrs](op, attrs)
	if err != nil {
		return ops.AttentionDims{}, false, 0, err
	}
	var d ops.AttentionDims
	switch {
	case op == "attention" && len(ins) == 3:
		d, err = ops.AttentionLayout(ins[0].Shape, ins[1].Shape, ins[2].Shape)
	case op == "attention_weights" && len(ins) == 2:
		d, _, err = ops.AttentionWeightsLayout(ins[0].Shape, ins[1].Shape)
	default:
		err = fmt.Errorf("%s: got %d tensors", op, len(ins))
	}
	if err != nil {
		return d, false, 0, err
	}
	scale := a.Scale
	if !a.HasScale {
		scale = 1 / math.Sqrt(float64(d.E))
	}
	return d, a.Causal, scale, nil
}

// attend computes softmax(q·kᵀ·scale)·v for every (broadcast) batch, one
// block of query rows at a time: scores for the block (only the keys a
// causal block can see), an in-place row softmax, then the block's output
// rows straight into out.
func attend[T float32 | float64](d ops.AttentionDims, causal bool, scale T, q, k, v, out []T, mm mmFunc[T], softmax func(row []T) T) {
	L, S, E, Ev := d.L, d.S, d.E, d.Ev
	if d.Batch.Numel() == 0 || L == 0 || Ev == 0 {
		return
	}
	if S == 0 {
		clear(out) // no keys: an empty weighted sum, as PyTorch gives
		return
	}
	qOff := batchOffsets(d.Batch, d.QBatch, L*E)
	kOff := batchOffsets(d.Batch, d.KBatch, S*E)
	vOff := batchOffsets(d.Batch, d.VBatch, S*Ev)
	newScores := func() []T { return make([]T, min(L, attnBlock)*S) }
	forAttnBlocks(d, causal, newScores, func(b, i0, rows, keys, inner int, scores []T) {
		sc := scores[:rows*keys]
		o := out[(b*L+i0)*Ev : (b*L+i0+rows)*Ev]
		mm(inner, false, true, rows, keys, E, q[qOff[b]+i0*E:], E, k[kOff[b]:], E, false, sc, keys)
		weightRows(sc, rows, keys, keys, i0, causal, scale, softmax)
		mm(inner, false, false, rows, Ev, keys, sc, keys, v[vOff[b]:], Ev, false, o, Ev)
	})
}

// forAttnBlocks calls f for every block of at most attnBlock query rows
// of every batch: batch b, first row i0, rows, the keys a causal block can
// see (all S otherwise), the goroutines its matmuls may use, and the
// goroutine's scratch. Blocks are spread over the cores; with fewer blocks
// than cores, each block's matmuls use them all.
func forAttnBlocks[S any](d ops.AttentionDims, causal bool, newScratch func() S, f func(b, i0, rows, keys, inner int, scratch S)) {
	blocks := (d.L + attnBlock - 1) / attnBlock
	nb := d.Batch.Numel()
	workers := linalgWorkers()
	inner := 1
	if nb*blocks < workers {
		inner, workers = workers, 1
	}
	forTasks(workers, nb*blocks, newScratch, func(t int, s S) {
		b, i0 := t/blocks, (t%blocks)*attnBlock
		rows := min(attnBlock, d.L-i0)
		keys := d.S
		if causal {
			keys = min(d.S, i0+rows) // later keys are masked for every row here
		}
		f(b, i0, rows, keys, inner, s)
	})
}

// weightRows turns rows of scores (row i of query i0+i, keys of them in
// each, ld apart) into attention weights in place: scaled, masked to zero
// above the diagonal when causal, and a softmax over the rest.
func weightRows[T float32 | float64](sc []T, rows, keys, ld, i0 int, causal bool, scale T, softmax func(row []T) T) {
	for i := range rows {
		row := sc[i*ld : i*ld+keys]
		if scale != 1 {
			for j := range row {
				row[j] *= scale
			}
		}
		visible := row
		if causal {
			visible = row[:min(keys, i0+i+1)]
			clear(row[len(visible):])
		}
		inv := 1 / softmax(visible)
		for j := range visible {
			visible[j] *= inv
		}
	}
}

// softmaxRowF32 replaces row by exp(row - max(row)) and returns the sum.
func softmaxRowF32(row []float32) float32 {
	mx := float32(math.Inf(-1))
	for _, x := range row {
		if x > mx || x != x {
			mx = x
		}
	}
	if math.IsInf(float64(mx), 0) || mx != mx {
		// NaN or infinite scores: the scalar path gives NaN or the limit.
		var sum float32
		for j, x := range row {
			e := expf(x - mx)
			row[j] = e
			sum += e
		}
		return sum
	}
	return expSubSum(row, mx)
}

// softmaxRowF64 is softmaxRowF32 in float64.
func softmaxRowF64(row []float64) float64 {
	mx := math.Inf(-1)
	for _, x := range row {
		if x > mx || x != x {
			mx = x
		}
	}
	var sum float64
	for j, x := range row {
		e := math.Exp(x - mx)
		row[j] = e
		sum += e
	}
	return sum
}

// expf is exp for float32 arguments ≤ 0, as softmax needs (Cephes' expf:
// reduce by multiples of ln 2, a degree-6 polynomial on the remainder),
// within 2 ulp of math.Exp; results below float32's normal range flush to
// zero, where they cannot change a softmax whose largest term is 1.
func expf(x float32) float32 {
	const (
		log2e = 1.44269504088896341
		ln2Hi = 0.693359375
		ln2Lo = -2.12194440e-4
	)
	switch {
	case x != x:
		return x
	case x < -87:
		return 0
	case x > 88:
		return float32(math.Exp(float64(x)))
	}
	n := float32(math.Floor(float64(x*log2e + 0.5)))
	r := x - n*ln2Hi - n*ln2Lo
	z := r * r
	p := ((((1.9875691500e-4*r+1.3981999507e-3)*r+8.3334519073e-3)*r+4.1665795894e-2)*r+1.6666665459e-1)*r + 5.0000001201e-1
	y := p*z + r + 1
	return y * math.Float32frombits(uint32(int32(n)+127)<<23)
}
