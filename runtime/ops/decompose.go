package ops

import (
	"fmt"

	"github.com/tref-lang/tref/runtime/tensor"
)

// Matrix decompositions with several factors: torch.linalg's qr, eigh
// and svd. Each is one op whose result packs the factors of every matrix
// of the batch, flattened and concatenated in order along one last
// dimension, [..., size]; Builder.Unpack cuts them out. One
// factorisation thus serves every factor, and the gradient rule sees the
// cotangents of all of them at once.
//
// Factors that are unique only up to sign are made unique: each column
// of Q's complement, of eigh's eigenvectors and of svd's U (with the
// matching row of Vh) has its entry of largest magnitude (the first such)
// positive, on every backend. Where a factor is not unique beyond that
// (repeated eigenvalues or singular values, zero singular values, the
// completed columns of complete Q and full U), backends may pick
// different bases of the same space.
var (
	// QR is A = Q·R for A [..., m, n]: Q with orthonormal columns, R upper
	// triangular, by Householder reflections (LAPACK's geqrf: the signs
	// of R's diagonal are LAPACK's, so Q and R are torch's). QRAttrs.
	QR = Register(&Def{Name: "qr", Infer: inferPacked("qr", false), Flops: decompositionFlops})
	// Eigh is the eigenvalues (ascending) and eigenvectors (columns) of
	// each symmetric A [..., n, n], one triangle read (EighAttrs).
	Eigh = Register(&Def{Name: "eigh", Infer: inferPacked("eigh", true), Flops: decompositionFlops})
	// SVD is A = U·diag(S)·Vh for A [..., m, n], S descending (SVDAttrs).
	SVD = Register(&Def{Name: "svd", Infer: inferPacked("svd", false), Flops: decompositionFlops})
	// Pinv is the Moore-Penrose pseudo-inverse [..., n, m] of A [..., m,
	// n]: V·diag(1/S)·Uᵀ over the singular values above PinvAttrs'
	// tolerance (torch.linalg.pinv).
	Pinv = Register(&Def{Name: "pinv", Infer: inferPinv, Flops: decompositionFlops})
	// LU is P·A = L·U for A [..., m, n] by Gaussian elimination with
	// partial pivoting (LAPACK's getrf: the first row of largest
	// magnitude pivots each column), packed as torch.linalg.lu_factor
	// gives it, with the permutation read two ways (LUAttrs.Factors).
	// Float32 and float64 only, as torch's.
	LU = Register(&Def{Name: "lu", Infer: inferLU, Flops: decompositionFlops})
)

// LUAttrs are lu's. Its packed factors are LU [m, n] (U on and above the
// diagonal, L's multipliers below it, L's unit diagonal implied), the
// pivots [k] (k = min(m, n); row i was exchanged with row pivots[i],
// both counted from 1, as LAPACK's ipiv and torch's pivots) and the
// permutation [m] they make (row i of Pᵀ·A is row perm[i] of A, counted
// from 0), the integers held in A's float dtype. Check makes a zero on
// U's diagonal an error (torch.linalg.lu_factor's) instead of a result
// (torch.linalg.lu's).
type LUAttrs struct{ Check bool }

// Factors lists LU's, the pivots' and the permutation's shapes.
func (LUAttrs) Factors(m, n int) []tensor.Shape { return []tensor.Shape{{m, n}, {min(m, n)}, {m}} }

func inferLU(in []tensor.Meta, attrs any) (tensor.Meta, error) {
	if len(in) == 1 && in[0].DType.IsFloat() && in[0].DType != tensor.Float32 && in[0].DType != tensor.Float64 {
		return tensor.Meta{}, fmt.Errorf("lu: expected float32 or float64, got %v (torch's lu has no kernel for it either; use astype)", in[0].DType)
	}
	return inferPacked("lu", false)(in, attrs)
}

// PinvAttrs are pinv's: singular values at or below max(Atol, Rtol·S_max)
// count as zero; Hermitian reads A's lower triangle as a symmetric matrix
// and uses its eigenvalues (in magnitude) instead.
type PinvAttrs struct {
	Atol, Rtol float64
	Hermitian  bool
}

func inferPinv(in []tensor.Meta, attrs any) (tensor.Meta, error) {
	if err := wantInputs("pinv", in, 1); err != nil {
		return tensor.Meta{}, err
	}
	a, ok := attrs.(PinvAttrs)
	if !ok {
		return tensor.Meta{}, fmt.Errorf("pinv: attributes %T, want PinvAttrs", attrs)
	}
	x := in[0]
	if a.Hermitian {
		if _, err := SquareBatch("pinv", x); err != nil {
			return tensor.Meta{}, err
		}
	} else if !x.DType.IsFloat() {
		return tensor.Meta{}, fmt.Errorf("pinv: expected a float tensor, got %v", x.DType)
	} else if len(x.Shape) < 2 {
		return tensor.Meta{}, fmt.Errorf("pinv: expected matrices [..., m, n], got shape %v", x.Shape)
	}
	r := len(x.Shape)
	return tensor.Meta{Shape: append(x.Shape[:r-2].Clone(), x.Shape[r-1], x.Shape[r-2]), DType: x.DType}, nil
}

// QRAttrs are qr's: the reduced factors Q [m, k], R [k, n] (k = min(m,
// n)), or, Complete, Q [m, m] and R [m, n].
type QRAttrs struct{ Complete bool }

// EighAttrs are eigh's: Upper reads A's upper triangle instead of its
// lower one (torch's UPLO="U").
type EighAttrs struct{ Upper bool }

// SVDAttrs are svd's: the reduced factors U [m, k], S [k], Vh [k, n], or,
// Full, U [m, m] and Vh [n, n].
type SVDAttrs struct{ Full bool }

// Factors lists the shapes of the factors of an m×n matrix, in the order
// they are packed.
func (a QRAttrs) Factors(m, n int) []tensor.Shape {
	k := min(m, n)
	if a.Complete {
		k = m
	}
	return []tensor.Shape{{m, k}, {k, n}}
}

// Factors lists the eigenvalues' shape, then the eigenvectors'.
func (EighAttrs) Factors(n, _ int) []tensor.Shape { return []tensor.Shape{{n}, {n, n}} }

// Factors lists U's, S's and Vh's shapes.
func (a SVDAttrs) Factors(m, n int) []tensor.Shape {
	k := min(m, n)
	if a.Full {
		return []tensor.Shape{{m, m}, {k}, {n, n}}
	}
	return []tensor.Shape{{m, k}, {k}, {k, n}}
}

// Decomposition is the attributes of qr, eigh, svd or lu.
type Decomposition interface {
	Factors(m, n int) []tensor.Shape
}

// factorShapes are the shapes of the factors a decomposition op packs for
// an input of meta in: each factor's shape behind in's batch dimensions.
func factorShapes(in tensor.Meta, attrs Decomposition) []tensor.Shape {
	r := len(in.Shape)
	batch := in.Shape[:r-2]
	parts := attrs.Factors(in.Shape[r-2], in.Shape[r-1])
	for i, p := range parts {
		parts[i] = append(batch.Clone(), p...)
	}
	return parts
}

func inferPacked(name string, square bool) InferFunc {
	return func(in []tensor.Meta, attrs any) (tensor.Meta, error) {
		if err := wantInputs(name, in, 1); err != nil {
			return tensor.Meta{}, err
		}
		a, ok := attrs.(Decomposition)
		if !ok {
			return tensor.Meta{}, fmt.Errorf("%s: attributes %T, want its own", name, attrs)
		}
		x := in[0]
		if square {
			if _, err := SquareBatch(name, x); err != nil {
				return tensor.Meta{}, err
			}
		} else if !x.DType.IsFloat() {
			return tensor.Meta{}, fmt.Errorf("%s: expected a float tensor, got %v", name, x.DType)
		} else if len(x.Shape) < 2 {
			return tensor.Meta{}, fmt.Errorf("%s: expected matrices [..., m, n], got shape %v", name, x.Shape)
		}
		r := len(x.Shape)
		size := 0
		for _, p := range a.Factors(x.Shape[r-2], x.Shape[r-1]) {
			size += p.Numel()
		}
		return tensor.Meta{Shape: append(x.Shape[:r-2].Clone(), size), DType: x.DType}, nil
	}
}

// About 4·m·n·k per matrix for a Householder QR; the iterative eigh and
// svd take several such sweeps, counted as one.
func decompositionFlops(in []tensor.Meta, _ tensor.Meta, _ any) int64 {
	s := in[0].Shape
	m, n := int64(s[len(s)-2]), int64(s[len(s)-1])
	return int64(s[:len(s)-2].Numel()) * 4 * m * n * min(m, n)
}

// factorSlices are, for each factor of a decomposition op's packed
// result over an input of meta in, the index items that cut it out (a
// slice of the last dimension) and its shape (factorShapes).
func factorSlices(in tensor.Meta, attrs Decomposition) (items [][]IndexItem, shapes []tensor.Shape) {
	shapes = factorShapes(in, attrs)
	batch := len(in.Shape) - 2
	offset := 0
	for _, s := range shapes {
		size := s[batch:].Numel()
		items = append(items, SliceAlong(batch, offset, offset+size))
		offset += size
	}
	return items, shapes
}

// Unpack cuts the factors of a decomposition op's packed result over an
// input of meta in out of packed.
func (b *Builder) Unpack(packed T, in tensor.Meta, attrs Decomposition) []T {
	items, shapes := factorSlices(in, attrs)
	parts := make([]T, len(items))
	for i := range items {
		parts[i] = b.Reshape(b.Op(Index, &IndexAttrs{Items: items[i]}, packed), shapes[i])
	}
	return parts
}
