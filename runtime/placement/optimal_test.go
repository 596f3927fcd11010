package placement

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/tref-lang/tref/runtime/placement/optimal"
)

// TestNoStrategyBeatsTheOptimum: on the differential test's random
// programs, at budgets from the largest working set up, no strategy's
// simulated time is below the offline optimum's proven lower bound for
// its own trace, nor below the optimum when the search proved it.
func TestNoStrategyBeatsTheOptimum(t *testing.T) {
	programs := 30
	if testing.Short() {
		programs = 15
	}
	solved, cases, beaten := 0, 0, 0
	for seed := range programs {
		rng := rand.New(rand.NewPCG(uint64(seed), 11))
		p := genProgram(rng)
		lookahead := []int{1, 3, 8, 64}[rng.IntN(4)]
		var total int64
		for _, s := range p.slots {
			total += shapeBytes(s)
		}
		for _, budget := range []int64{p.maxWS, p.maxWS * 3 / 2, total} {
			for _, st := range []string{"none", "genoa", "lru", "flow"} {
				name := fmt.Sprintf("seed%d/%s/mem%d/la%d", seed, st, budget, lookahead)
				h := newHarness(t, st, budget, lookahead)
				_, tot := p.run(h)
				res, err := optimal.Solve(optimal.Problem{Steps: h.rec.Steps(), Capacity: budget, Cost: testParams},
					optimal.Options{MaxNodes: 3000})
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				cases++
				if res.Solved {
					solved++
				}
				if tot.TimeNs < res.OptNs {
					beaten++ // the search's best, unproven, is worse
				}
				if tot.TimeNs < res.LowerNs || res.LowerNs > res.OptNs {
					t.Fatalf("%s: the strategy took %d ns, the optimum's lower bound is %d (best %d, %s)",
						name, tot.TimeNs, res.LowerNs, res.OptNs, res.Status())
				}
			}
		}
	}
	t.Logf("%d of %d cases solved to optimality; in %d a strategy beat the search's best", solved, cases, beaten)
}
