// Package train runs the training examples: check.tr and cnn_check.tr
// against torch's first steps (gen_torch.py, gen_torch_cnn.py) and
// mlp.tr's five epochs of Fashion-MNIST.
package train

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"regexp"
	"strconv"
	"testing"

	"github.com/tref-lang/tref/lang/eval"
	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/refs"
	"github.com/tref-lang/tref/stdlib"
)

const dataset = "/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz"

// run runs name.tr with argv and returns what it printed; it fails on a
// script error or a tensor left alive.
func run(t *testing.T, name string, argv ...string) string {
	if _, err := os.Stat(dataset); err != nil {
		t.Skip("Fashion-MNIST is not installed (apt-get install dataset-fashion-mnist)")
	}
	rt := refs.New(&cpu.Device{}, refs.Options{Lookahead: refs.DefaultLookahead, TrackRefs: true})
	var stdout bytes.Buffer
	in := eval.NewInterpreter(eval.Config{RT: rt, Universe: stdlib.Universe(), Stdout: &stdout, Argv: argv})
	err := in.RunFile(name + ".tr")
	in.Close()
	t.Logf("%s.tr output:\n%s", name, stdout.String())
	if err != nil {
		t.Fatalf("%s.tr failed: %v", name, err)
	}
	if n := rt.LiveRefs(); n != 0 {
		t.Errorf("%d refs alive after the run: %v", n, rt.Leaks())
	}
	return stdout.String()
}

// TestFirstStepsMatchTorch: step 1's loss and gradients within 1e-6 of
// torch's, the parameters after 10 steps within 1e-5 (asserted by the
// script).
func TestFirstStepsMatchTorch(t *testing.T) { run(t, "check") }

// TestCNNFirstStepsMatchTorch: the same for a small CNN (conv2d,
// max_pool2d and their backward kernels).
func TestCNNFirstStepsMatchTorch(t *testing.T) { run(t, "cnn_check") }

// TestEpochs trains five epochs: the test accuracy is at least 0.80 after
// the first and 0.85 after the fifth (asserted by the script); the first
// epoch, in torch's order, is within 0.01 of torch's accuracy and the
// fifth, shuffled by each its own way, within 0.015.
func TestEpochs(t *testing.T) {
	out := run(t, "mlp", "5")
	raw, err := os.ReadFile("torch_results.json")
	if err != nil {
		t.Fatal(err)
	}
	var want struct {
		Epoch1 float64 `json:"epoch1_test_accuracy"`
		Epoch5 float64 `json:"epoch5_test_accuracy"`
	}
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		epoch     int
		torch, by float64
	}{{1, want.Epoch1, 0.01}, {5, want.Epoch5, 0.015}} {
		m := regexp.MustCompile(`epoch ` + strconv.Itoa(c.epoch) + `: .* test accuracy (\S+)`).FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("mlp.tr printed no test accuracy for epoch %d", c.epoch)
		}
		got, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-c.torch) > c.by {
			t.Errorf("epoch %d: test accuracy %v, torch's %v", c.epoch, got, c.torch)
		}
	}
}
