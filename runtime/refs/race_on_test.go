//go:build race

package refs

// raceEnabled: the race detector maps its shadow memory as the program
// runs, so tests of address-space limits do not apply.
const raceEnabled = true
