//go:build !race

package jsruntime

// raceEnabled reports a build with the race detector, whose shadow memory makes resident set
// sizes meaningless.
const raceEnabled = false
