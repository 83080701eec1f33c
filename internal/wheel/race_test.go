//go:build race

package wheel

// raceEnabled reports whether the race detector is on (RaceEnabled to the
// external tests). Its runtime never reports "all goroutines are asleep"
// and allows at most 8128 live goroutines; heavy tests and benchmark
// setups scale down or skip under it.
const raceEnabled = true
