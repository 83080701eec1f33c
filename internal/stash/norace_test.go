//go:build !race

package stash

// raceEnabled reports whether the race detector is on; heavy tests scale
// down under it.
const raceEnabled = false
