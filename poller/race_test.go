//go:build race

package poller

// raceEnabled: the race detector's runtime never reports a deadlock (even
// `func main() { <-make(chan int) }` hangs under -race), so the deadlock
// test cannot run with it.
const raceEnabled = true
