// Package fashionmnist runs the Fashion-MNIST examples end to end and
// compares tref's predictions with those PyTorch made with the same
// weights (scripts/train_fashion_mnist.py), image by image.
package fashionmnist

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tref-lang/tref/internal/scripttest"
	"github.com/tref-lang/tref/runtime/backend/cpu"
	"github.com/tref-lang/tref/runtime/formats"
)

const dataset = "/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz"

type torchResults struct {
	MLP, CNN struct {
		Accuracy float64
		Correct  int
	}
}

func TestMLP(t *testing.T) { runExample(t, "mlp") }

func TestCNN(t *testing.T) {
	if testing.Short() {
		t.Skip("the CNN example takes a while; skipped in -short mode")
	}
	runExample(t, "cnn")
}

// runExample runs name.tr with a save of its predictions appended, then
// compares them with name_predictions.npy (torch's) and its printed
// accuracy with torch_results.json.
func runExample(t *testing.T, name string) {
	if _, err := os.Stat(dataset); err != nil {
		t.Skip("Fashion-MNIST is not installed (apt-get install dataset-fashion-mnist)")
	}
	src, err := os.ReadFile(name + ".tr")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "pred.npy")
	src = append(src, fmt.Sprintf("\nsave(%q, pred)\n", out)...)

	stdout, _ := scripttest.Run(t, &cpu.Device{}, name+".tr", src)

	got := loadInts(t, out)
	want := loadInts(t, name+"_predictions.npy")
	if len(got) != len(want) || len(want) != 10000 {
		t.Fatalf("%d predictions from tref, %d from torch; want 10000 each", len(got), len(want))
	}
	var diff []int
	for i := range want {
		if got[i] != want[i] {
			diff = append(diff, i)
		}
	}
	if len(diff) > 0 {
		t.Fatalf("predictions differ from torch's on %d images, first %v", len(diff), diff[:min(len(diff), 10)])
	}

	raw, err := os.ReadFile("torch_results.json")
	if err != nil {
		t.Fatal(err)
	}
	var res torchResults
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	r := res.MLP
	if name == "cnn" {
		r = res.CNN
	}
	line := fmt.Sprintf("%s: test accuracy %s (%d/10000)", name, formatAccuracy(r.Correct), r.Correct)
	if !strings.Contains(stdout, line+"\n") {
		t.Fatalf("output lacks %q (torch's accuracy)", line)
	}
	if !strings.Contains(stdout, "predictions equal to torch's: 10000/10000\n") {
		t.Fatal("output lacks the line saying all 10000 predictions equal torch's")
	}
}

// formatAccuracy prints correct/10000 the way tref prints a float32.
func formatAccuracy(correct int) string {
	s := fmt.Sprint(float32(correct) / 10000)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}

func loadInts(t *testing.T, path string) []int64 {
	t.Helper()
	f, err := formats.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := f.Entries[0].Load()
	if err != nil {
		t.Fatal(err)
	}
	return d.I64()
}
