package eval_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/tref-lang/tref/lang/eval"
)

// More liveness corner cases, beyond TestLifetime: captured variables
// reassigned after the closure is made, loops of closures, variables of an
// enclosing block last used inside a loop, nested break, continue in a
// while, one-branch use inside a loop, and errors unwinding frames.
func TestLifetimeCorners(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"closure sees a reassignment after its last use in the block", `
fn make() {
  let t = ones([4])
  let g = fn() => t.sum()
  t = ones([8])
  flush()
  print(live())
  return g
}
let g = make()
flush()
print(live())
print(item(g()))
print(live())`, "1 1 8.0 0"},
		{"closures made in a loop keep one tensor per iteration", `
let fs = []
for i in range(3) {
  let t = ones([4]) * i
  fs = fs + [fn() => t]
}
flush()
print(live())
print(item(fs[2]().sum()))
fs = []
print(live())`, "3 8.0 0"},
		{"a variable last used inside a loop lives through it, then dies", `
let w = ones([4])
let acc = zeros([4])
for i in range(3) {
  acc = acc + w
  flush()
  print(live())
}
flush()
print(live())
print(item(acc.sum()))`, "2 2 2 1 12.0"},
		{"break out of an inner loop, return out of the outer", `
fn f() {
  let w = ones([4])
  for i in range(3) {
    let a = w * i
    for j in range(3) {
      let b = a + j
      flush()
      print(live(), b.shape[0])
      if j == 1 { break }
    }
    if i == 1 { return item(a.sum()) }
  }
  return -1.0
}
print(f(), live())`, "3 4 3 4 3 4 3 4 4.0 0"},
		{"continue in a while loop; x dies when the loop ends", `
let k = 0
let x = ones([4])
while k < 4 {
  k += 1
  let t = x * k
  if k % 2 == 0 { continue }
  flush()
  print(live(), item(t.sum()))
}
print(live())`, "2 4.0 2 12.0 0"},
		{"a variable used only in one branch inside a loop", `
let big = ones([1000])
for i in range(4) {
  let tmp = big * 2
  if i % 2 == 0 {
    print(item(tmp.sum()))
  } else {
    flush()
    print(live())
  }
}
print(live())`, "2000.0 1 2000.0 1 0"},
		{"return from a loop inside a closure; the result shares the list's tensor", `
let data = [ones([2]), ones([2]) * 5, ones([2]) * 7]
let first_big = fn(limit) {
  for d in data {
    let s = d.sum()
    if item(s) > limit { return d }
  }
  return none
}
let r = first_big(6.0)
flush()
print(live(), item(r[0]))
data = none
print(live())
print(r.shape)`, "3 5.0 1 [2]"},
		{"an error unwinds the frames and frees their tensors", `
fn bad() {
  let t = ones([4])
  let u = t * 2
  return u + ones([5])
}
assert_error(bad, "broadcast")
print(live())`, "0"},
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

// A training-like loop (an MLP forward and loss over the same batch) takes
// no new blocks from the system once the allocator's cache is warm: the
// pool's misses stop growing after the first iteration, every later
// allocation is a hit, and live memory is flat.
func TestSteadyStateAllocations(t *testing.T) {
	s := newSession(t, 64)
	u := testUniverse()
	u["pool"] = &eval.Builtin{Name: "pool", Fn: func(th *eval.Thread, _ *eval.Builtin, _ []eval.Value, _ []eval.Kwarg) (eval.Value, error) {
		st := th.RT.HostPool().Stats()
		return eval.NewList([]eval.Value{eval.Int(st.Misses), eval.Int(st.Hits), eval.Int(st.LiveBytes), eval.Int(st.Adopted)}), nil
	}}
	s.in = eval.NewInterpreter(eval.Config{RT: s.rt, Universe: u, Stdout: &s.out})
	src := `
seed(1)
let w1 = randn([64, 128])
let b1 = zeros([128])
let w2 = randn([128, 128])
let b2 = zeros([128])
let w3 = randn([128, 10])
let x = randn([32, 64])
let y = randint(0, 10, [32])
for i in range(8) {
  let h1 = relu(x @ w1 + b1)
  let h2 = gelu(layer_norm(h1 @ w2 + b2))
  let logits = h2 @ w3
  let loss = cross_entropy(logits, y)
  let ok = item(loss) > 0
  let p = pool()
  print(p[0], p[1], p[2], p[3], ok)
}
`
	if err := s.in.RunFile(file(t, "loop.tr", src)); err != nil {
		t.Fatal(err)
	}
	s.in.Close()
	if n := s.rt.LiveRefs(); n != 0 {
		t.Errorf("%d refs alive after the run", n)
	}
	lines := strings.Split(strings.TrimSpace(s.out.String()), "\n")
	if len(lines) != 8 {
		t.Fatalf("got %d lines:\n%s", len(lines), s.out.String())
	}
	var prev [4]int64
	for i, line := range lines {
		f := strings.Fields(line)
		if len(f) != 5 || f[4] != "true" {
			t.Fatalf("line %d: %q", i, line)
		}
		var cur [4]int64
		for j := range cur {
			cur[j], _ = strconv.ParseInt(f[j], 10, 64)
		}
		if i >= 1 {
			if d := cur[0] - prev[0]; d != 0 {
				t.Errorf("iteration %d took %d new blocks from the system; want 0 in steady state", i, d)
			}
			if d := cur[1] - prev[1]; d <= 0 {
				t.Errorf("iteration %d: %d cache hits; the allocator was not used", i, d)
			}
			if cur[2] != prev[2] {
				t.Errorf("iteration %d: live bytes %d -> %d; want no growth", i, prev[2], cur[2])
			}
			if d := cur[3] - prev[3]; d != 0 {
				t.Errorf("iteration %d adopted %d buffers made outside the pool; want 0", i, d)
			}
		}
		prev = cur
	}
}

// The 32-layer MLP of TestMLPPeak in exact bytes: the weights (32 of
// 64x64 float32) and two activations (256x64 float32: a matmul's input and
// output; relu runs in place), whatever the window. Without liveness all
// 33 activations stay, plus the 4-byte sum; with no window (lookahead 0)
// every op runs inside Submit while the evaluator still holds its
// operands, so nothing can run in place and the last relu needs a 34th
// buffer.
func TestMLPPeakExactBytes(t *testing.T) {
	const weights, act = 32 * 64 * 64 * 4, 256 * 64 * 4
	src := strings.Replace(mlpSource(), "print((memstats()[\"cpu\"].peak_bytes - base) // act)",
		"print(base, memstats()[\"cpu\"].peak_bytes)", 1)
	for _, c := range []struct {
		lookahead  int
		noLiveness bool
		peak       int
	}{
		{0, false, weights + 2*act},
		{8, false, weights + 2*act},
		{64, false, weights + 2*act},
		{0, true, weights + 34*act},
		{64, true, weights + 33*act + 4},
	} {
		s := newSession(t, c.lookahead)
		s.in = eval.NewInterpreter(eval.Config{RT: s.rt, Universe: testUniverse(), Stdout: &s.out, NoLiveness: c.noLiveness})
		if err := s.in.RunFile(file(t, "mlp.tr", src)); err != nil {
			t.Fatal(err)
		}
		s.in.Close()
		f := strings.Fields(s.out.String())
		if len(f) != 3 || f[0] != "true" {
			t.Fatalf("got %q", s.out.String())
		}
		if f[1] != strconv.Itoa(weights) || f[2] != strconv.Itoa(c.peak) {
			t.Errorf("lookahead %d, no liveness %v: weights %s, peak %s; want %d and %d",
				c.lookahead, c.noLiveness, f[1], f[2], weights, c.peak)
		}
		if n := s.rt.LiveRefs(); n != 0 {
			t.Errorf("%d refs alive at the end", n)
		}
	}
}
