package stashcontext_test

import (
	"fmt"
	"log"
	"time"

	context "github.com/stashgo/stash/stashcontext"
	"github.com/stashgo/stash/stashtime"
)

// Code that takes a Deadlines runs on the process-wide wheel in
// production (context.On(nil)) and on a ManualClock in its tests, where an
// hour's timeout passes when the test says so, with no real waiting.
func ExampleOn() {
	clk := stashtime.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	w, err := stashtime.NewWheel(stashtime.Options{Clock: clk})
	if err != nil {
		log.Fatal(err)
	}
	defer w.Close()

	deadlines := context.On(w)
	ctx, cancel := deadlines.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	done := ctx.Done() // puts the deadline on the wheel

	clk.Advance(59 * time.Minute)
	w.Sync()
	select {
	case <-done:
		fmt.Println("+59m: done too early")
	default:
		fmt.Println("+59m:", ctx.Err())
	}

	clk.Advance(time.Minute)
	w.Sync()
	<-done
	fmt.Println("+1h:", ctx.Err())

	// Output:
	// +59m: <nil>
	// +1h: context deadline exceeded
}
