//go:build !race

package stashcontext_test

// raceEnabled reports a build with the race detector, which makes the
// tests that make a million contexts make fewer.
const raceEnabled = false
