//go:build race

package stashtime_test

// raceEnabled reports whether the race detector is on; the stress tests and
// the heavier conformance tests scale down under it.
const raceEnabled = true
