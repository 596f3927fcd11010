//go:build long

package placement

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

var diffDuration = flag.Duration("diff-duration", time.Hour, "how long TestDifferentialLong runs (go test -tags long)")

// TestDifferentialLong is the differential test (TestDifferential) under
// random budgets, from a random base seed, for -diff-duration (an hour by
// default): scripts/long-tests.sh runs it. A failure names the program's
// seed, which TestDifferential's generator reproduces.
func TestDifferentialLong(t *testing.T) {
	base := uint64(time.Now().UnixNano())
	t.Logf("base seed %d", base)
	strategies := []string{"none", "genoa", "lru", "flow"}
	deadline := time.Now().Add(*diffDuration)
	programs, runs := 0, 0
	for seed := base; time.Now().Before(deadline); seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		p, lookahead, want, total := diffCase(t, rng)
		// Budgets anywhere from half the largest op's working set (the
		// largest ops fall back) to four times every slot.
		lo, hi := max(p.maxWS/2, 1), 4*total
		for _, st := range strategies {
			for range 3 {
				budget := lo + rng.Int64N(hi-lo+1)
				p.compare(t, fmt.Sprintf("seed%d/%s/mem%d/la%d", seed, st, budget, lookahead), st, budget, lookahead, want)
				runs++
			}
		}
		programs++
	}
	t.Logf("%d programs, %d runs", programs, runs)
}
