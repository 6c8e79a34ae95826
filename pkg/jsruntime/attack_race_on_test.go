//go:build race

package jsruntime

// attackRaceDetector reports a build with the race detector (see
// TestQuickJSSleepOutlastsAnInterruptSoTheImportBanMustHold).
const attackRaceDetector = true
