package torch

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/ops"
	"github.com/tref-lang/tref/runtime/placement/trace"
	"github.com/tref-lang/tref/runtime/tensor"
)

// positiveDefinite is a batch of symmetric positive-definite matrices of
// shape s, [..., n, n]: M·Mᵀ + n·I for random M.
func positiveDefinite(r *rand.Rand, dt tensor.DType, s ...int) *tensor.Dense {
	d := tensor.NewDense(m(dt, s...))
	n := s[len(s)-1]
	mm := make([]float64, n*n)
	for b := 0; b*n*n < d.Numel(); b++ {
		for i := range mm {
			mm[i] = r.NormFloat64()
		}
		for i := range n {
			for j := range n {
				v := 0.0
				for k := range n {
					v += mm[i*n+k] * mm[j*n+k]
				}
				if i == j {
					v += float64(n)
				}
				d.Set(b*n*n+i*n+j, v)
			}
		}
	}
	return d
}

// TestCholeskyAgrees: cholesky of positive-definite batches agrees with
// cpu's; one that is not positive-definite is an error on both.
func TestCholeskyAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	c := opCase{op: ops.Cholesky}
	dev, stats := onTorch(t, 0, "", nil)
	for _, in := range []*tensor.Dense{positiveDefinite(r, f32, 4, 4), positiveDefinite(r, f64, 2, 3, 5, 5),
		positiveDefinite(r, tensor.BFloat16, 3, 3), tensor.NewDense(m(f32, 0, 0))} {
		want, err := runCase(t, &cpu.Device{}, c, []*tensor.Dense{in})
		if err != nil {
			t.Fatalf("cpu over %v: %v", in.Meta, err)
		}
		got, err := runCase(t, dev, c, []*tensor.Dense{in})
		if err != nil {
			t.Fatalf("torch:cpu over %v: %v", in.Meta, err)
		}
		if msg := agree(got, want); msg != "" {
			t.Errorf("cholesky over %v: %s", in.Meta, msg)
		}
	}
	if stats.Count[trace.Fallback] != 0 {
		t.Errorf("cholesky ran on the host, not in libtorch (a plugin built before the op was added? rebuild it: scripts/build-torch.sh)")
	}
	bad := positiveDefinite(r, f32, 2, 3, 3)
	bad.Set(9+4, -100) // the second matrix's second diagonal element
	if _, err := runCase(t, &cpu.Device{}, c, []*tensor.Dense{bad}); err == nil || !strings.Contains(err.Error(), "matrix 1 of A's batch is not positive-definite (its leading minor of order 2 is not)") {
		t.Errorf("cpu: %v", err)
	}
	if _, err := runCase(t, dev, c, []*tensor.Dense{bad}); err == nil || !strings.Contains(err.Error(), "positive-definite") {
		t.Errorf("torch:cpu: %v", err)
	}
}
