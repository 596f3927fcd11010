package stdlib

import (
	"bytes"
	"strings"
	"testing"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/refs"
)

// runLimited runs src under a host limit of 1e9 bytes (set here, not read
// from the machine) and gives what it printed and its error.
func runLimited(t *testing.T, src string) (string, error) {
	t.Helper()
	t.Setenv("TREF_HOST_LIMIT", "1000000000")
	rt := refs.New(&cpu.Device{}, refs.Options{})
	var out bytes.Buffer
	in := eval.NewInterpreter(eval.Config{RT: rt, Universe: Universe(), Stdout: &out})
	defer in.Close()
	err := in.RunSource("nn_more.tr", []byte(src))
	return out.String(), err
}

// TestNNMoreFitsTheHostLimit: builtins whose intermediates grow with their
// output fail up front, with their name and the sizes, when those do not
// fit the host limit, rather than running into it (or past it) later.
func TestNNMoreFitsTheHostLimit(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		// ~145 bytes a window: 2.9 GB, where the Go tables alone fit.
		{"print(adaptive_max_pool1d(ones(1, 1, 5), 20000000).sum())", "adaptive_max_pool1d: 20000000 windows of up to 1 elements: allocating"},
		{"print(adaptive_max_pool2d(ones(1, 1, 5, 5), [5000, 4000]).sum())", "adaptive_max_pool2d: 20000000 windows of up to 1 elements: allocating"},
		// Tensor.unfold copies every window: 2 × 720 MB here.
		{"print(ones(1000, 1000, dtype=\"float64\").unfold(1, 100, 1).mean())", "unfold: 901 windows of 100 elements: allocating"},
		// embedding_bag's [n, dim] rows and index: 160M values, 3.2 GB.
		{"print(embedding_bag(zeros(20000000, dtype=\"int64\"), ones(1, 8), zeros(1, dtype=\"int64\"), mode=\"sum\"))", "embedding_bag: 20000000 ids of 8 values: allocating"},
		{"print(embedding_bag(zeros(2000000, 10, dtype=\"int64\"), ones(1, 8), mode=\"max\"))", "embedding_bag: 20000000 ids of 8 values: allocating"},
	} {
		_, err := runLimited(t, c.src)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error with %q", c.src, err, c.want)
		}
	}
}

// TestFoldPaddingIsNotMade: unfold and fold index the image itself (the
// padding reads or drops one extra slot), so a padding far larger than
// the image costs no memory, as in torch.
func TestFoldPaddingIsNotMade(t *testing.T) {
	src := "print(unfold(ones(1, 1, 1, 1), 1, padding=[0, 268435456], stride=[1, 536870913]), fold(ones(1, 1, 1), [1, 1], 1, padding=[0, 268435456], stride=[1, 536870913]))"
	out, err := runLimited(t, src)
	if want := "tensor([[[0.]]]) tensor([[[[0.]]]])\n"; err != nil || out != want {
		t.Errorf("%s: got %q, %v; want %q", src, out, err, want)
	}
}
