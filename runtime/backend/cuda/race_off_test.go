//go:build !race

package cuda

// raceEnabled: see race_on_test.go.
const raceEnabled = false
