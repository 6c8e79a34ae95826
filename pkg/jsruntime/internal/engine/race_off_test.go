//go:build !race

package engine

// raceDetector reports a build with the race detector (see
// TestQuickJSSleepOutlastsAnInterruptSoTheImportBanMustHold).
const raceDetector = false
