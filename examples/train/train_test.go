// Package train runs the training examples: check.tr, cnn_check.tr and
// gpt_check.tr against torch's first steps (gen_torch.py,
// gen_torch_cnn.py, gen_torch_gpt.py), gpt_check.tr and gpt_offload.tr
// with their activations offloaded on sim, and mlp.tr's five epochs of
// Fashion-MNIST.
package train

import (
	"encoding/json"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tref-lang/tref/internal/scripttest"
	"github.com/tref-lang/tref/runtime/backend/cpu"
	_ "github.com/tref-lang/tref/runtime/backend/sim" // registers sim
	"github.com/tref-lang/tref/runtime/placement"
	"github.com/tref-lang/tref/runtime/refs"
)

const (
	dataset = "/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz"
	text    = "/usr/share/games/fortunes/literature"
)

// run runs name.tr on cpu with argv and returns what it printed (see
// runOn).
func run(t *testing.T, name string, argv ...string) string {
	out, _ := runOn(t, &cpu.Device{}, name, argv...)
	return out
}

// runOn runs name.tr with argv on the executor ex (see scripttest.Run),
// and skips when the data the script reads is not installed (fails under
// CI=true, where .ci/run installs it).
func runOn(t *testing.T, ex refs.Executor, name string, argv ...string) (string, []refs.DeviceStats) {
	need, pkg := dataset, "dataset-fashion-mnist"
	if strings.HasPrefix(name, "gpt") {
		need, pkg = text, "fortunes-min"
	}
	if _, err := os.Stat(need); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not installed: .ci/run installs %s", need, pkg)
		}
		t.Skipf("%s is not installed (apt-get install %s)", need, pkg)
	}
	return scripttest.Run(t, ex, name+".tr", nil, argv...)
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

// TestGPTMatchesTorch: the character-level GPT's first 20 losses within
// 1e-5 of torch's from the same weights and batches (asserted by
// gpt_check.tr).
func TestGPTMatchesTorch(t *testing.T) { run(t, "gpt_check") }

// TestGPTOffload runs each GPT on sim under a budget well below what
// the run holds on cpu, mostly the activations saved for backward: the
// engine evicts them during forward and brings them back for backward.
// The output (every loss) is cpu's byte for byte and the device's peak
// stays within the budget. gpt_check.tr (2 blocks) peaks at 12.8 MB on
// cpu, 9.5 MB of it saved activations, against 2 MiB; gpt_offload.tr (12
// blocks) at 62.8 MB, about 45 MB of them, against 14 MiB.
func TestGPTOffload(t *testing.T) {
	for _, c := range []struct {
		name   string
		budget int64
	}{{"gpt_check", 2 << 20}, {"gpt_offload", 14 << 20}} {
		t.Run(c.name, func(t *testing.T) {
			want, cpuStats := runOn(t, &cpu.Device{}, c.name)
			ex, err := placement.NewExecutor(placement.Config{Device: "sim", Mem: c.budget, Lookahead: refs.DefaultLookahead})
			if err != nil {
				t.Fatal(err)
			}
			got, simStats := runOn(t, ex, c.name)
			if got != want {
				t.Errorf("sim's output differs from cpu's:\n%s\ncpu:\n%s", got, want)
			}
			if p := scripttest.Peak(t, cpuStats, "cpu"); p < 4*c.budget {
				t.Errorf("the cpu run's peak is %d bytes, not the 4x the budget this test offloads", p)
			}
			if p := scripttest.Peak(t, simStats, "sim:0"); p > c.budget || p < c.budget/2 {
				t.Errorf("sim's peak is %d bytes, want at most the budget %d (and the budget used)", p, c.budget)
			}
		})
	}
}
