package stashtime

import (
	"context"
	"time"
)

// BlockUntil waits until at least n timers are pending on the wheel
// (Stats().Live: armed, not yet fired or stopped; a Sleep in progress and a
// Ticker count one each), like clockwork's FakeClock.BlockUntil, so that a
// test knows the code under test has armed its timers before it advances a
// ManualClock past them. It returns at once on a closed wheel.
//
// It reads the wheel's counters, sleeping in between for pauses that
// double from 1 µs up to 1 ms (real time, on package time's timers): it
// costs little CPU however long it waits, and returns within about a
// millisecond of the nth timer's arming. (On the process-wide wheel, the
// timers stashcontext pools after their context ends stay armed, and
// count, until they fire; those of stashcontext.On(w) are stopped.)
func (w *Wheel) BlockUntil(n int) {
	_ = w.BlockUntilContext(context.Background(), n)
}

// BlockUntilContext is BlockUntil, but gives up when ctx is done and
// returns ctx.Err() then.
func (w *Wheel) BlockUntilContext(ctx context.Context, n int) error {
	if w == bubbleDefault {
		if inBubble() {
			panic("stashtime: BlockUntil on the process-wide wheel inside a testing/synctest bubble, where package time's timers serve it: use synctest.Wait")
		}
		w = Default()
	}
	pause := time.Microsecond
	var t *time.Timer
	for w.eng.Live() < int64(n) && !w.eng.Closed() {
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
