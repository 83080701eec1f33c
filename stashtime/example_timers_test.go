package stashtime_test

import (
	"errors"
	"fmt"
	"log"

	"github.com/stashgo/stash/stashtime"
)

// retry calls f up to attempts times, sleeping a second between calls on
// tm: production code passes stashtime.Default(), tests a Wheel on a
// ManualClock.
func retry(tm stashtime.Timers, attempts int, f func() error) (err error) {
	for i := range attempts {
		if i > 0 {
			tm.Sleep(stashtime.Second)
		}
		if err = f(); err == nil {
			return nil
		}
	}
	return err
}

// A test hands code that takes a Timers a Wheel on a ManualClock, waits
// with BlockUntil until the code sleeps, and advances the clock past the
// sleep: two seconds of retries pass with no real waiting.
func ExampleWheel_BlockUntil() {
	start := stashtime.Unix(0, 0)
	clk := stashtime.NewManualClock(start)
	w, err := stashtime.NewWheel(stashtime.Options{Clock: clk})
	if err != nil {
		log.Fatal(err)
	}
	defer w.Close()

	done := make(chan error)
	go func() { done <- retry(w, 3, func() error { return errors.New("busy") }) }()
	for range 2 {
		w.BlockUntil(1) // retry sleeps
		clk.Advance(stashtime.Second)
		w.Sync()
	}
	fmt.Println(<-done, "after", w.Since(start))

	// Output: busy after 2s
}
