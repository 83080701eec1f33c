//go:build race

package stashtime

// fidelityRace is set in builds with the race detector, whose runtime never
// reports "all goroutines are asleep".
const fidelityRace = true
