package stashtime

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestSettleWaitsForCallbacks is a session-expiry test as users write it:
// an AfterFunc callback flips state, the test advances past the deadline,
// calls Settle and reads the state at once, with no polling. Settle returns
// only once the callback has returned, and the read is ordered after its
// write (the race detector checks that, on a plain bool).
func TestSettleWaitsForCallbacks(t *testing.T) {
	w, clk := newManualWheel(t, 0)
	for i := range 1000 {
		expired := false
		w.AfterFunc(30*time.Second, func() {
			time.Sleep(time.Duration(i%3) * 100 * time.Microsecond) // a callback with work to do
			expired = true
		})
		clk.Advance(31 * time.Second)
		w.Settle()
		require.True(t, expired, "iteration %d: the callback had not returned when Settle did", i)
	}
	// A callback started by a Reset to d <= 0, not by the driver, counts too.
	ran := false
	tm := w.AfterFunc(time.Hour, func() { time.Sleep(time.Millisecond); ran = true })
	tm.Reset(0)
	w.Settle()
	require.True(t, ran, "the callback of a Reset(0) had not returned when Settle did")

	// A callback that starts another callback, due at once or already due
	// on the clock Settle found: Settle waits for both.
	for _, d := range []time.Duration{0, -time.Second} {
		inner := false
		w.AfterFunc(time.Second, func() {
			w.AfterFunc(d, func() { time.Sleep(time.Millisecond); inner = true })
		})
		clk.Advance(time.Second)
		w.Settle()
		require.True(t, inner, "AfterFunc(%v) from a callback had not returned when Settle did", d)
	}
}

// TestManualClockSaturates: advancing a ManualClock past its end stops it
// there, one short of math.MaxInt64 (never), instead of wrapping to a
// negative reading; the timers pending fire, and one due never does not.
func TestManualClockSaturates(t *testing.T) {
	w, clk := newManualWheel(t, 0)
	clk.Advance(time.Second)
	fired := make(chan struct{})
	w.AfterFunc(time.Hour, func() { close(fired) })
	never := w.AfterFunc(math.MaxInt64, func() { t.Error("a timer due never fired") })
	clk.Advance(math.MaxInt64)
	require.Equal(t, int64(math.MaxInt64-1), clk.Now())
	w.Settle() // the callback has returned too
	select {
	case <-fired:
	default:
		t.Fatal("a timer pending an hour ahead did not fire once the clock reached its end")
	}
	require.True(t, never.Stop(), "the timer due never is not pending")

	clk2 := NewManualClock(time.Unix(0, 0))
	clk2.AdvanceTo(clk2.Time(math.MaxInt64))
	clk2.Advance(1)
	require.Equal(t, int64(math.MaxInt64-1), clk2.Now(), "Set(MaxInt64) then Advance(1)")
}
