//go:build !race

package refs

const raceEnabled = false
