//go:build race

package cuda

// raceEnabled: a mutation that drops a wait for the staging worker makes
// a data race, which the race detector reports as a failure of its own.
const raceEnabled = true
