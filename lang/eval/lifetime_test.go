package eval_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/tref-lang/tref/lang/eval"
)

// Each program prints live() at interesting points; flush() first makes
// every pending op run, so that only values the program holds are counted.
func TestLifetime(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"accumulator", `
fn run(n) {
  let acc = zeros([64])
  for i in range(n) {
    acc = acc + 1
    flush()
    print(live())
  }
  return acc
}
let r = run(3)
print(live(), r.shape)
print(live())`, "1 1 1 1 [64] 0"},
		{"value used in the next iteration", `
fn run() {
  let prev = ones([4])
  for i in range(3) {
    let cur = prev * 2
    flush()
    print(live())
    prev = cur + prev
  }
  return 0
}
run()
print(live())`, "2 2 2 0"},
		{"closure captures after the last use in the block", `
fn make() {
  let t = ones([4])
  print(live())
  let g = fn() => t.sum()
  return g
}
let g = make()
print(live(), item(g()))
del g
print(live())`, "1 1 4.0 0"},
		{"break, continue and return", `
fn find(limit) {
  let w = ones([4])
  for i in range(10) {
    let tmp = w * i
    if i < 2 { continue }
    if i == limit { return i }
    if i > 5 { break }
  }
  return -1
}
print(find(3), live())
print(find(100), live())
let k = 0
while true {
  let a = zeros([2])
  k += 1
  if k > 2 { break }
}
print(live())`, "3 0 -1 0 0"},
		{"variable used in one branch only", `
fn pick(c) {
  let big = ones([100])
  let small = ones([1])
  if c {
    print(live())
    return big.sum()
  }
  print(live())
  return small.sum()
}
let a = pick(true)
let b = pick(false)
flush()
print(live())`, "1 1 0"},
		{"temporaries die inside an expression", `
let x = ones([8])
let y = ((x * 2) + (x * 3)).sum()
flush()
print(live())
print(item(y), live())`, "1 40.0 0"},
		{"dead store", `
let x = ones([8])
let unused = x * 2
flush()
print(live())
print(x.shape)`, "1 [8]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := run(t, c.src)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(strings.Fields(out), " "); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

// A 32-layer MLP forward written with a distinct variable per activation
// must hold the weights plus at most three activations at any time: each
// activation dies right after the layer that reads it.
func TestMLPPeak(t *testing.T) {
	src := mlpSource()
	out, err := run(t, src)
	if err != nil {
		t.Fatal(err)
	}
	if n := peakActivations(t, out); n > 3 {
		t.Errorf("peak above the weights is %d activations, want at most 3", n)
	}
	// Without liveness every activation stays alive to the end.
	s := newSession(t, 8)
	s.in = eval.NewInterpreter(eval.Config{RT: s.rt, Universe: testUniverse(), Stdout: &s.out, NoLiveness: true})
	if err := s.in.RunFile(file(t, "mlp.tr", src)); err != nil {
		t.Fatal(err)
	}
	s.in.Close()
	if n := peakActivations(t, s.out.String()); n < 32 {
		t.Errorf("without liveness the peak is %d activations, want all 32 (or 33)", n)
	}
}

func peakActivations(t *testing.T, out string) int {
	t.Helper()
	fields := strings.Fields(out)
	if len(fields) != 2 || fields[0] != "true" {
		t.Fatalf("got %q", out)
	}
	n, err := strconv.Atoi(fields[1])
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func mlpSource() string {
	var b strings.Builder
	b.WriteString("let ws = []\nfor i in range(32) { ws = ws + [ones([64, 64]) * 0.01] }\n")
	b.WriteString("flush()\nlet base = memstats()[\"cpu\"].live_bytes\n")
	b.WriteString("let h0 = ones([256, 64])\n")
	for i := 1; i <= 32; i++ {
		fmt.Fprintf(&b, "let h%d = relu(h%d @ ws[%d])\n", i, i-1, i-1)
	}
	b.WriteString("print(item(h32.sum()) > 0)\n")
	b.WriteString("let act = 256 * 64 * 4\n")
	b.WriteString("print((memstats()[\"cpu\"].peak_bytes - base) // act)\n")
	return b.String()
}

// The loop of TorchSharp's memory guide, which leaks without dispose
// scopes there, keeps live memory flat here.
func TestNoGrowthInALoop(t *testing.T) {
	out, err := run(t, `
let labels = randint(0, 10, [64])
let logits = randn([64, 10])
let correct = 0
for i in range(10) { correct += (logits.argmax(1) == labels).sum().item() }
flush()
let before = memstats()["cpu"].live_bytes
for i in range(1000) { correct += (logits.argmax(1) == labels).sum().item() }
flush()
print(memstats()["cpu"].live_bytes - before, correct >= 0, live(), logits.ndim, labels.ndim)`)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(out); got != "0 true 2 2 1" {
		t.Errorf("got %q, want no growth (0), and the two inputs alive", got)
	}
}
