package cpu

import (
	"fmt"
	"math"

	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/tensor"
)

// The nn kernels compute in float32 or float64 with float64 accumulators,
// one row at a time (a row stays in cache between its passes), parallel
// over rows for large inputs. Integer inputs are computed as float32;
// float16 and bfloat16 through float32.

func init() {
	Register(ops.Softmax, softmaxKernel(false))
	Register(ops.LogSoftmax, softmaxKernel(true))
	Register(ops.LayerNorm, normKernel(false))
	Register(ops.RMSNorm, normKernel(true))
	Register(ops.Embedding, embeddingKernel)
	Register(ops.Dropout, dropoutKernel)
	Register(ops.CrossEntropy, crossEntropyKernel)
	Register(ops.MSE, mseKernel)
}

type nnFloat interface{ float32 | float64 }

// nnView is the typed view of a float32 or float64 tensor.
func nnView[T nnFloat](d *tensor.Dense) []T {
	var z T
	if _, ok := any(z).(float32); ok {
		return any(d.F32()).([]T)
	}
	return any(d.F64()).([]T)
}

// nnIO gives the float input and output buffers of a kernel whose output
// dtype is out.DType: the input converted to the compute dtype (float64
// for float64 outputs, else float32), and a compute-dtype output with a
// finish function that stores it into out.
func nnIO(in, out *tensor.Dense) (x, y *tensor.Dense, finish func()) {
	ct := tensor.Float32
	if out.DType == tensor.Float64 {
		ct = tensor.Float64
	}
	x = castDense(in, ct)
	if out.DType == ct {
		return x, out, func() {}
	}
	y = tensor.NewDense(tensor.Meta{Shape: out.Shape, DType: ct})
	return x, y, func() { copy(out.Buf, castDense(y, out.DType).Buf) }
}

// nnExp is the exponential for element type T: expF32 for float32,
// math.Exp for float64.
func nnExp[T nnFloat]() func(float64) float64 {
	var z T
	if _, ok := any(z).(float32); ok {
		return expF32
	}
	return math.Exp
}

// nnWeights reads an optional weight or bias vector as float64.
func nnWeights(d *tensor.Dense) []float64 {
	w := make([]float64, d.Numel())
	for i := range w {
		w[i] = d.At(i)
	}
	return w
}

func softmaxKernel(log bool) Kernel {
	return func(out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
		a, err := ops.AttrsAs[ops.SoftmaxAttrs]("softmax", attrs)
		if err != nil {
			return err
		}
		dim, err := tensor.NormDim(a.Dim, len(out.Shape))
		if err != nil {
			return err
		}
		outer, n, inner := 1, 1, 1
		if len(out.Shape) > 0 {
			outer, n, inner = out.Shape[:dim].Numel(), out.Shape[dim], out.Shape[dim+1:].Numel()
		}
		x, y, finish := nnIO(ins[0], out)
		if y.DType == tensor.Float64 {
			softmaxRows(nnView[float64](y), nnView[float64](x), outer, n, inner, log)
		} else {
			softmaxRows(nnView[float32](y), nnView[float32](x), outer, n, inner, log)
		}
		finish()
		return nil
	}
}

// softmaxRows computes softmax (or log_softmax) over the middle dimension
// of a [outer, n, inner] tensor.
func softmaxRows[T nnFloat](dst, src []T, outer, n, inner int, log bool) {
	if n == 0 || outer*inner == 0 {
		return
	}
	if inner == 1 {
		stridedParallel(outer, 4*n, func(lo, hi int) {
			for o := lo; o < hi; o++ {
				softmaxRow(dst[o*n:(o+1)*n], src[o*n:(o+1)*n], log)
			}
		})
		return
	}
	// The reduced dimension is strided: sweep whole [n, inner] planes so
	// that every read is contiguous, keeping a max and a sum per column.
	exp := nnExp[T]()
	stridedParallel(outer, 4*n*inner, func(lo, hi int) {
		mx := make([]T, inner)
		sum := make([]float64, inner)
		for o := lo; o < hi; o++ {
			s, d := src[o*n*inner:(o+1)*n*inner], dst[o*n*inner:(o+1)*n*inner]
			copy(mx, s[:inner])
			for k := 1; k < n; k++ {
				for j, v := range s[k*inner : (k+1)*inner] {
					if v > mx[j] || v != v {
						mx[j] = v
					}
				}
			}
			clear(sum)
			finite := true
			for _, m := range mx {
				finite = finite && !math.IsInf(float64(m), 0) && m == m
			}
			// The exponentials go into d, then become the result in place.
			for k := range n {
				row, out := s[k*inner:(k+1)*inner], d[k*inner:(k+1)*inner]
				if o32, ok := any(out).([]float32); ok && finite {
					for j, v := range row {
						out[j] = v - mx[j]
					}
					expSubSum(o32, 0)
				} else {
					for j, v := range row {
						out[j] = T(exp(float64(v - mx[j])))
					}
				}
				for j, e := range out {
					sum[j] += float64(e)
				}
			}
			for j, t := range sum {
				if log {
					sum[j] = math.Log(t)
				} else {
					sum[j] = 1 / t
				}
			}
			for k := range n {
				row, out := s[k*inner:(k+1)*inner], d[k*inner:(k+1)*inner]
				for j := range out {
					if log {
						out[j] = T(float64(row[j]-mx[j]) - sum[j])
					} else {
						out[j] = T(float64(out[j]) * sum[j])
					}
				}
			}
		}
	})
}

// softmaxRow is the contiguous case: max, then exp and sum, then scale.
// A NaN anywhere makes the row NaN, as in PyTorch.
func softmaxRow[T nnFloat](dst, src []T, log bool) {
	m := src[0]
	for _, v := range src[1:] {
		if v > m || v != v {
			m = v
		}
	}
	if d32, ok := any(dst).([]float32); ok && !math.IsInf(float64(m), 0) && m == m {
		softmaxRowF32Fast(d32, any(src).([]float32), float32(m), log)
		return
	}
	exp := nnExp[T]()
	sum := 0.0
	if log {
		for _, v := range src {
			sum += exp(float64(v - m))
		}
		lse := math.Log(sum)
		for i, v := range src {
			dst[i] = T(float64(v-m) - lse)
		}
		return
	}
	for i, v := range src {
		e := exp(float64(v - m))
		dst[i] = T(e)
		sum += e
	}
	inv := 1 / sum
	for i, v := range dst {
		dst[i] = T(float64(v) * inv)
	}
}

// softmaxRowF32Fast is softmaxRow for float32 rows with a finite maximum
// m: the exponentials come from expSubSum (the 8-wide AVX2 exp shared
// with attention), computed in dst.
func softmaxRowF32Fast(dst, src []float32, m float32, log bool) {
	copy(dst, src)
	sum := float64(expSubSum(dst, m))
	if log {
		lse := float32(math.Log(sum))
		for i, v := range src {
			dst[i] = v - m - lse
		}
		return
	}
	inv := float32(1 / sum)
	for i := range dst {
		dst[i] *= inv
	}
}

func normKernel(rms bool) Kernel {
	op := "layer_norm"
	if rms {
		op = "rms_norm"
	}
	return func(out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
		a, err := ops.AttrsAs[ops.NormAttrs](op, attrs)
		if err != nil {
			return err
		}
		var w, b []float64
		rest := ins[1:]
		if a.HasWeight {
			w, rest = nnWeights(rest[0]), rest[1:]
		}
		if a.HasBias {
			b = nnWeights(rest[0])
		}
		d := out.Shape[len(out.Shape)-1]
		x, y, finish := nnIO(ins[0], out)
		if y.DType == tensor.Float64 {
			normRows(nnView[float64](y), nnView[float64](x), d, w, b, a.Eps, rms)
		} else {
			normRows(nnView[float32](y), nnView[float32](x), d, w, b, a.Eps, rms)
		}
		finish()
		return nil
	}
}

// normRows normalises each row of length d: layer norm subtracts the mean
// and divides by the biased standard deviation; RMS norm divides by the
// root mean square. Then weight and bias (either may be nil) apply.
func normRows[T nnFloat](dst, src []T, d int, w, b []float64, eps float64, rms bool) {
	if d == 0 {
		return
	}
	rows := len(src) / d
	stridedParallel(rows, 8*d, func(lo, hi int) {
		for r := lo; r < hi; r++ {
			x, y := src[r*d:(r+1)*d], dst[r*d:(r+1)*d]
			mean := 0.0
			if !rms {
				mean = nnSum(x) / float64(d)
			}
			scale := 1 / math.Sqrt(nnSqDev(x, mean)/float64(d)+eps)
			shift := -mean * scale
			switch {
			case w != nil && b != nil:
				for i, v := range x {
					y[i] = T((float64(v)*scale+shift)*w[i] + b[i])
				}
			case w != nil:
				for i, v := range x {
					y[i] = T((float64(v)*scale + shift) * w[i])
				}
			case b != nil:
				for i, v := range x {
					y[i] = T(float64(v)*scale + shift + b[i])
				}
			default:
				for i, v := range x {
					y[i] = T(float64(v)*scale + shift)
				}
			}
		}
	})
}

// nnSum is the float64 sum of x; four accumulators keep the adds
// independent of each other.
func nnSum[T nnFloat](x []T) float64 {
	var a, b, c, d float64
	i := 0
	for ; i+4 <= len(x); i += 4 {
		a += float64(x[i])
		b += float64(x[i+1])
		c += float64(x[i+2])
		d += float64(x[i+3])
	}
	for ; i < len(x); i++ {
		a += float64(x[i])
	}
	return (a + b) + (c + d)
}

// nnSqDev is the float64 sum of (x - center)^2.
func nnSqDev[T nnFloat](x []T, center float64) float64 {
	var a, b, c, d float64
	i := 0
	for ; i+4 <= len(x); i += 4 {
		v0, v1, v2, v3 := float64(x[i])-center, float64(x[i+1])-center, float64(x[i+2])-center, float64(x[i+3])-center
		a += v0 * v0
		b += v1 * v1
		c += v2 * v2
		d += v3 * v3
	}
	for ; i < len(x); i++ {
		v := float64(x[i]) - center
		a += v * v
	}
	return (a + b) + (c + d)
}

// nnIDs reads integer ids (int64 or uint8) as int64.
func nnIDs(d *tensor.Dense) []int64 {
	if d.DType == tensor.Int64 {
		return d.I64()
	}
	ids := make([]int64, d.Numel())
	for i := range ids {
		ids[i] = int64(d.At(i))
	}
	return ids
}

func embeddingKernel(out *tensor.Dense, ins []*tensor.Dense, _ any) error {
	ids, table := nnIDs(ins[0]), ins[1]
	rows := table.Shape[0]
	row := table.Shape[1] * table.DType.Size()
	for i, id := range ids {
		if id < 0 || id >= int64(rows) {
			return fmt.Errorf("id %d at position %v of the ids is out of range for a table of %d rows",
				id, unravelIndex(i, ins[0].Shape), rows)
		}
		copy(out.Buf[i*row:(i+1)*row], table.Buf[int(id)*row:(int(id)+1)*row])
	}
	return nil
}

// unravelIndex formats the multi-index of element i for error messages.
func unravelIndex(i int, s tensor.Shape) tensor.Shape {
	idx := make(tensor.Shape, len(s))
	for k := len(s) - 1; k >= 0; k-- {
		idx[k] = i % s[k]
		i /= s[k]
	}
	return idx
}

func dropoutKernel(out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
	a, err := ops.AttrsAs[ops.DropoutAttrs]("dropout", attrs)
	if err != nil {
		return err
	}
	mask := ins[1].U8()
	x, y, finish := nnIO(ins[0], out)
	if y.DType == tensor.Float64 {
		dropoutApply(nnView[float64](y), nnView[float64](x), mask, a.P)
	} else {
		dropoutApply(nnView[float32](y), nnView[float32](x), mask, a.P)
	}
	finish()
	return nil
}

// dropoutApply multiplies by the noise mask/(1-p) as PyTorch does (so a
// dropped infinity gives NaN); p = 1 multiplies everything by zero.
func dropoutApply[T nnFloat](dst, src []T, mask []uint8, p float64) {
	scale := T(0)
	if p < 1 {
		scale = T(1 / (1 - p))
	}
	for i, v := range src {
		noise := T(0)
		if mask[i] != 0 {
			noise = scale
		}
		dst[i] = v * noise
	}
}

func crossEntropyKernel(out *tensor.Dense, ins []*tensor.Dense, attrs any) error {
	a, err := ops.AttrsAs[ops.CrossEntropyAttrs]("cross_entropy", attrs)
	if err != nil {
		return err
	}
	logits := castDense(ins[0], tensor.Float64)
	targets := nnIDs(ins[1])
	outer, classes, inner, _ := ops.CrossEntropyLayout(ins[0].Shape)
	x := logits.F64()
	total, count := 0.0, 0
	err = eachTarget(targets, ins[1].Shape, outer, classes, inner, a.IgnoreIndex, func(o, j int, t int64) {
		plane := x[o*classes*inner : (o+1)*classes*inner]
		m := math.Inf(-1)
		for c := range classes {
			if v := plane[c*inner+j]; v > m || v != v {
				m = v
			}
		}
		sum := 0.0
		for c := range classes {
			sum += math.Exp(plane[c*inner+j] - m)
		}
		total += m + math.Log(sum) - plane[int(t)*inner+j]
		count++
	})
	if err != nil {
		return err
	}
	out.Set(0, total/float64(count)) // no counted target gives NaN, as in PyTorch
	return nil
}

// eachTarget calls f for every target not equal to ignore, at row o and
// position j, after checking it names one of the classes.
func eachTarget(targets []int64, shape tensor.Shape, outer, classes, inner, ignore int, f func(o, j int, t int64)) error {
	for o := range outer {
		for j := range inner {
			t := targets[o*inner+j]
			if t == int64(ignore) {
				continue
			}
			if t < 0 || t >= int64(classes) {
				return fmt.Errorf("target %d at position %v is out of range for %d classes", t, unravelIndex(o*inner+j, shape), classes)
			}
			f(o, j, t)
		}
	}
	return nil
}

func mseKernel(out *tensor.Dense, ins []*tensor.Dense, _ any) error {
	shape, err := tensor.Broadcast(ins[0].Shape, ins[1].Shape)
	if err != nil {
		return err
	}
	ab := [2][]float64{}
	for i, in := range ins {
		d := castDense(in, tensor.Float64)
		if !d.Shape.Equal(shape) {
			e := tensor.NewDense(tensor.Meta{Shape: shape, DType: tensor.Float64})
			stridedGather(e.Buf, d.Buf, 8, broadcastView(d.Shape, shape))
			d = e
		}
		ab[i] = d.F64()
	}
	sum := 0.0
	for i, v := range ab[0] {
		dv := v - ab[1][i]
		sum += dv * dv
	}
	out.Set(0, sum/float64(len(ab[0])))
	return nil
}
