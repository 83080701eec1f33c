package stashtime

import (
	"context"
	"time"
)

// BlockUntil waits until at least n timers are pending on the wheel
// (Stats().Live: armed, not yet fired or stopped; a Sleep in progress and a
// Ticker count one each), as clockwork's FakeClock.BlockUntil does, so that
// a test knows the code under test has armed its timers before it
// advances a ManualClock past them. It returns at once on a closed wheel.
//
// It looks at the wheel's counters with pauses that double from 1 µs up
// to 1 ms in between (real time, on package time's timers), so it spins
// for no more than a few microseconds and answers within about a
// millisecond of the nth timer's arming. Timers that stashcontext pools
// after their context ends stay armed, and count, until they fire; see
// package stashcontext.
func (w *Wheel) BlockUntil(n int) {
	_ = w.BlockUntilContext(context.Background(), n)
}

// BlockUntilContext is BlockUntil, but gives up when ctx is done and
// returns ctx.Err() then.
func (w *Wheel) BlockUntilContext(ctx context.Context, n int) error {
	pause := time.Microsecond
	var t *time.Timer
	for w.live() < int64(n) && !w.closed.Load() {
		if err := ctx.Err(); err != nil {
			return err
		}
		if t == nil {
			t = time.NewTimer(pause)
			defer t.Stop()
		} else {
			t.Reset(pause)
		}
		select {
		case <-t.C:
		case <-ctx.Done():
			return ctx.Err()
		}
		pause = min(2*pause, time.Millisecond)
	}
	return nil
}
