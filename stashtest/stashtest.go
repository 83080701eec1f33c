package stashtest

import (
	"errors"
	"testing"
	"time"

	"github.com/stashgo/stash/stashtime"
)

// Start is the Time a Wheel made by New reads first: the time a
// testing/synctest bubble starts at, so that a test reads alike on
// either.
var Start = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// A Wheel is a stashtime.Wheel on a stashtime.ManualClock: a
// stashtime.Timers whose time moves only by Advance and AdvanceTo. Its
// methods are the wheel's, Now, AfterFunc, NewTimer, Sync, Settle and
// BlockUntil among them, and its own; stashcontext.On and
// stashnet.WithWheel take it as they take any Timers.
type Wheel struct {
	*stashtime.Wheel
	clock *stashtime.ManualClock
}

// New returns a Wheel reading Start, and registers its Close with tb's
// Cleanup. It fails the test if the wheel cannot start.
func New(tb testing.TB) *Wheel {
	tb.Helper()
	clk := stashtime.NewManualClock(Start)
	w, err := stashtime.NewWheel(stashtime.Options{Clock: clk})
	if err != nil {
		tb.Fatalf("stashtest: %v", err)
	}
	tb.Cleanup(func() {
		if err := w.Close(); err != nil && !errors.Is(err, stashtime.ErrClosed) {
			tb.Errorf("stashtest: Close: %v", err)
		}
	})
	return &Wheel{w, clk}
}

// Advance moves the clock forward by d, and returns once every timer due
// by then has fired and no AfterFunc callback is running: what they did
// can be read at once. A negative d moves nothing, and still waits.
//
// A callback that calls Advance, or that blocks until the test goroutine
// acts, deadlocks it, as it would Wheel.Settle.
func (w *Wheel) Advance(d time.Duration) {
	w.clock.Advance(d)
	w.Settle()
}

// AdvanceTo moves the clock forward to t, and returns as Advance does. A t
// no later than Now moves nothing.
func (w *Wheel) AdvanceTo(t time.Time) {
	w.clock.AdvanceTo(t)
	w.Settle()
}

// ManualClock returns the clock under the wheel, for code that takes a
// stashtime.Clock. Moving it by itself does not wait for the timers: call
// Settle after.
func (w *Wheel) ManualClock() *stashtime.ManualClock { return w.clock }
