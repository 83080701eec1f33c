//go:build race

package deadlock_test

// raceEnabled is set in builds with the race detector, whose runtime never
// reports "all goroutines are asleep".
const raceEnabled = true
