package stashtime_test

import (
	"fmt"
	"log"

	"github.com/stashgo/stash/stashtime"
)

// A timer is made, stopped before it fires, and reset to fire soon, as
// with package time: Stop reports that it stopped a pending timer, and
// after Reset the channel carries no stale value, only the new firing.
func ExampleTimer_Reset() {
	t := stashtime.NewTimer(stashtime.Hour)
	fmt.Println("stopped a pending timer:", t.Stop())

	start := stashtime.Now()
	t.Reset(5 * stashtime.Millisecond)
	fired := <-t.C // the value is the deadline, never earlier
	fmt.Println("fired no earlier than its deadline:", fired.Sub(start) >= 5*stashtime.Millisecond)
	fmt.Println("stopped after it fired:", t.Stop())

	// Output:
	// stopped a pending timer: true
	// fired no earlier than its deadline: true
	// stopped after it fired: false
}

// AfterFunc calls f in its own goroutine once the duration has passed;
// Stop before then cancels the call. Pushing the deadline later with
// Reset is how an idle timeout follows activity.
func ExampleAfterFunc() {
	canceled := stashtime.AfterFunc(stashtime.Millisecond, func() { fmt.Println("never called") })
	fmt.Println("canceled:", canceled.Stop())

	idle := make(chan struct{})
	t := stashtime.AfterFunc(stashtime.Hour, func() { close(idle) })
	for range 3 { // activity: each push moves the deadline later
		t.Reset(stashtime.Hour)
	}
	t.Reset(2 * stashtime.Millisecond) // then silence
	<-idle
	fmt.Println("idle timeout")

	// Output:
	// canceled: true
	// idle timeout
}

// A Ticker delivers ticks at a fixed rate until it is stopped.
func ExampleNewTicker() {
	tk := stashtime.NewTicker(2 * stashtime.Millisecond)
	defer tk.Stop()
	var prev stashtime.Time
	for i := range 3 {
		v := <-tk.C
		fmt.Printf("tick %d after the one before: %v\n", i+1, prev.IsZero() || v.After(prev))
		prev = v
	}

	// Output:
	// tick 1 after the one before: true
	// tick 2 after the one before: true
	// tick 3 after the one before: true
}

// A Wheel on a ManualClock fires timers only as the clock is advanced:
// after Advance, Sync waits until everything then due has fired, so a test
// sees exact times and counts with no real waiting.
func ExampleManualClock() {
	start := stashtime.Date(2026, 1, 1, 12, 0, 0, 0, stashtime.UTC)
	clk := stashtime.NewManualClock(start)
	w, err := stashtime.NewWheel(stashtime.Options{Clock: clk})
	if err != nil {
		log.Fatal(err)
	}
	defer w.Close()

	soon := w.NewTimer(10 * stashtime.Millisecond)
	later := w.NewTimer(stashtime.Hour)
	tk := w.NewTicker(20 * stashtime.Minute)
	defer tk.Stop()

	// receive prints what a channel holds now, if anything.
	receive := func(name string, c <-chan stashtime.Time) {
		select {
		case v := <-c:
			fmt.Printf("  %s fired at +%v\n", name, v.Sub(start))
		default:
		}
	}
	for _, step := range []stashtime.Duration{5 * stashtime.Millisecond, 10 * stashtime.Millisecond, 30 * stashtime.Minute, 30 * stashtime.Minute} {
		clk.Advance(step)
		w.Sync()
		fmt.Printf("at +%v:\n", clk.Current().Sub(start))
		receive("soon", soon.C)
		receive("later", later.C)
		receive("ticker", tk.C)
	}
	// The ticker's tick due at +40m fired when the clock passed it, late;
	// as with package time, a ticker that falls behind skips the ticks it
	// missed (+60m), and its next is at +80m.
	fmt.Println("fired:", w.Stats().Fired)

	// Output:
	// at +5ms:
	// at +15ms:
	//   soon fired at +10ms
	// at +30m0.015s:
	//   ticker fired at +20m0s
	// at +1h0m0.015s:
	//   later fired at +1h0m0s
	//   ticker fired at +40m0s
	// fired: 4
}

// SetDefaultOptions, called first thing in main, configures the
// process-wide wheel that the package-level functions use: here, every
// timer fires at its deadline, with no slack.
func ExampleSetDefaultOptions() {
	if err := stashtime.SetDefaultOptions(stashtime.Options{Slack: -1}); err != nil {
		log.Fatal(err) // something used the wheel before main
	}
	stashtime.Sleep(stashtime.Millisecond)
}
