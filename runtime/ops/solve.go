package ops

import (
	"fmt"
	"strings"

	"github.com/tref-lang/tref/runtime/tensor"
)

// Square systems, determinants and Cholesky factors: torch.linalg's
// solve, det and cholesky.
var (
	// Solve is X with A·X = B: A [..., n, n], B [..., n, k] of the same
	// batch shape (stdlib's solve broadcasts them and takes vectors), X
	// [..., n, k]. A singular A is an error.
	Solve = Register(&Def{Name: "solve", Infer: inferSolve, Flops: solveFlops})
	// Det is the determinant of A [..., n, n], of shape [...] (1 for n = 0).
	Det = Register(&Def{Name: "det", Infer: inferDet, Flops: detFlops})
	// Cholesky is the lower triangular L, with a positive diagonal, of
	// L·Lᵀ = A for each symmetric positive-definite A [..., n, n], of A's
	// shape; only A's lower triangle is read. An A that is not
	// positive-definite is an error.
	Cholesky = Register(&Def{Name: "cholesky", Infer: inferCholesky, Flops: choleskyFlops})
	// Slogdet is the sign and the log of the absolute value of the
	// determinant of A [..., n, n], stacked: [2, ...], sign first (0 and
	// -inf for a singular A).
	Slogdet = Register(&Def{Name: "slogdet", Infer: inferSlogdet, Flops: detFlops})
	// MatrixExp is the exponential Σ Aᵏ/k! of each square A [..., n, n],
	// of A's shape (torch.linalg.matrix_exp).
	MatrixExp = Register(&Def{Name: "matrix_exp", Infer: inferMatrixExp, Flops: matrixExpFlops})
	// TriangularSolve is X with A·X = B for the triangle of A [..., n, n]
	// that TriangularAttrs name (the other entries are not read), B [...,
	// n, k] of the same batch shape, X [..., n, k]: substitution, so a
	// zero on the diagonal gives inf or NaN, as torch's
	// linalg.solve_triangular (left=true).
	TriangularSolve = Register(&Def{Name: "solve_triangular", Infer: inferTriangularSolve, Flops: triangularSolveFlops})
)

// TriangularAttrs are solve_triangular's: A's upper (else lower)
// triangle, its diagonal taken as ones when Unit.
type TriangularAttrs struct{ Upper, Unit bool }

func inferTriangularSolve(in []tensor.Meta, attrs any) (tensor.Meta, error) {
	if _, err := AttrsAs[TriangularAttrs]("solve_triangular", attrs); err != nil {
		return tensor.Meta{}, err
	}
	m, err := inferSolve(in, nil)
	if err != nil {
		return tensor.Meta{}, fmt.Errorf("solve_triangular%s", strings.TrimPrefix(err.Error(), "solve"))
	}
	return m, nil
}

// n² multiply-adds per right-hand side.
func triangularSolveFlops(in []tensor.Meta, out tensor.Meta, _ any) int64 {
	s := in[0].Shape
	n, k := int64(s[len(s)-1]), int64(out.Shape[len(out.Shape)-1])
	return int64(s[:len(s)-2].Numel()) * n * n * k
}

func inferMatrixExp(in []tensor.Meta, _ any) (tensor.Meta, error) {
	if err := wantInputs("matrix_exp", in, 1); err != nil {
		return tensor.Meta{}, err
	}
	if _, err := SquareBatch("matrix_exp", in[0]); err != nil {
		return tensor.Meta{}, err
	}
	return in[0], nil
}

// About a dozen matrix products per matrix (Padé 13 and its squarings).
func matrixExpFlops(in []tensor.Meta, _ tensor.Meta, _ any) int64 {
	s := in[0].Shape
	n := int64(s[len(s)-1])
	return int64(s[:len(s)-2].Numel()) * 12 * 2 * n * n * n
}

func inferSlogdet(in []tensor.Meta, _ any) (tensor.Meta, error) {
	m, err := inferDet(in, nil)
	if err != nil {
		return tensor.Meta{}, fmt.Errorf("slogdet%s", strings.TrimPrefix(err.Error(), "det"))
	}
	return tensor.Meta{Shape: append(tensor.Shape{2}, m.Shape...), DType: m.DType}, nil
}

func inferCholesky(in []tensor.Meta, _ any) (tensor.Meta, error) {
	if err := wantInputs("cholesky", in, 1); err != nil {
		return tensor.Meta{}, err
	}
	if _, err := SquareBatch("cholesky", in[0]); err != nil {
		return tensor.Meta{}, err
	}
	return in[0], nil
}

// n³/3 multiply-adds per matrix.
func choleskyFlops(in []tensor.Meta, _ tensor.Meta, _ any) int64 {
	s := in[0].Shape
	n := int64(s[len(s)-1])
	return int64(s[:len(s)-2].Numel()) * n * n * n / 3
}

// SquareBatch checks that m holds square float matrices, [..., n, n], and
// returns n.
func SquareBatch(name string, m tensor.Meta) (int, error) {
	if !m.DType.IsFloat() {
		return 0, fmt.Errorf("%s: expected a float tensor, got %v", name, m.DType)
	}
	r := len(m.Shape)
	if r < 2 || m.Shape[r-1] != m.Shape[r-2] {
		return 0, fmt.Errorf("%s: expected square matrices [..., n, n], got shape %v", name, m.Shape)
	}
	return m.Shape[r-1], nil
}

func inferSolve(in []tensor.Meta, _ any) (tensor.Meta, error) {
	if err := wantInputs("solve", in, 2); err != nil {
		return tensor.Meta{}, err
	}
	a, b := in[0], in[1]
	n, err := SquareBatch("solve", a)
	if err != nil {
		return tensor.Meta{}, err
	}
	if b.DType != a.DType {
		return tensor.Meta{}, fmt.Errorf("solve: A is %v and B %v: they must have one dtype", a.DType, b.DType)
	}
	r := len(a.Shape)
	if len(b.Shape) != r || !b.Shape[:r-2].Equal(a.Shape[:r-2]) || b.Shape[r-2] != n {
		return tensor.Meta{}, fmt.Errorf("solve: B of shape %v does not go with A of shape %v (want %v with any last dimension)", b.Shape, a.Shape, a.Shape)
	}
	return b, nil
}

func inferDet(in []tensor.Meta, _ any) (tensor.Meta, error) {
	if err := wantInputs("det", in, 1); err != nil {
		return tensor.Meta{}, err
	}
	if _, err := SquareBatch("det", in[0]); err != nil {
		return tensor.Meta{}, err
	}
	s := in[0].Shape
	return tensor.Meta{Shape: s[:len(s)-2].Clone(), DType: in[0].DType}, nil
}

// LU factorisation (2n³/3) and, per right-hand side, two triangular
// solves (2n²).
func solveFlops(in []tensor.Meta, out tensor.Meta, _ any) int64 {
	s := in[0].Shape
	n, k := int64(s[len(s)-1]), int64(out.Shape[len(out.Shape)-1])
	return int64(s[:len(s)-2].Numel()) * (2*n*n*n/3 + 2*n*n*k)
}

func detFlops(in []tensor.Meta, _ tensor.Meta, _ any) int64 {
	s := in[0].Shape
	n := int64(s[len(s)-1])
	return int64(s[:len(s)-2].Numel()) * 2 * n * n * n / 3
}
