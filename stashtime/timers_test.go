package stashtime

import (
	"context"
	"testing"
	"time"

	"github.com/stashgo/stash/internal/clock"
	"github.com/stretchr/testify/require"
)

func TestWheelSinceUntilFollowItsClock(t *testing.T) {
	w, clk := newManualWheel(t, 0)
	t0 := w.Now()
	require.Equal(t, Duration(0), w.Since(t0))
	clk.Advance(3 * time.Second)
	require.Equal(t, 3*time.Second, w.Since(t0))
	require.Equal(t, -3*time.Second, w.Until(t0))
	require.Equal(t, time.Minute, w.Until(w.Now().Add(time.Minute)))
	require.Equal(t, clk, w.Clock())
}

func TestDefaultIsTimers(t *testing.T) {
	var tm Timers = Default()
	start := tm.Now()
	require.GreaterOrEqual(t, tm.Since(start), Duration(0))
	require.True(t, clock.IsSystem(Default().Clock()))
}

// A sleeper in another goroutine is a pending timer that BlockUntil
// waits for; advancing the clock past it then wakes it.
func TestBlockUntilWaitsForSleeper(t *testing.T) {
	w, clk := newManualWheel(t, 0)
	var tm Timers = w
	woke := make(chan Time)
	go func() {
		tm.Sleep(time.Hour)
		woke <- tm.Now()
	}()
	began := time.Now()
	w.BlockUntil(1)
	require.Less(t, time.Since(began), 5*time.Second)
	require.EqualValues(t, 1, w.Stats().Live)
	select {
	case <-woke:
		t.Fatal("sleeper woke before the clock moved")
	default:
	}
	clk.Advance(time.Hour)
	require.Equal(t, time.Hour, (<-woke).Sub(clk.Time(0)))
}

func TestBlockUntilCountsEveryKind(t *testing.T) {
	w, _ := newManualWheel(t, 0)
	var tm Timers = w
	tm.NewTimer(time.Second)
	tm.AfterFunc(time.Second, func() {})
	tk := tm.NewTicker(time.Second)
	defer tk.Stop()
	_ = tm.After(time.Second)
	_ = tm.Tick(time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, w.BlockUntilContext(ctx, 5))
}

func TestBlockUntilContextGivesUp(t *testing.T) {
	w, _ := newManualWheel(t, 0)
	w.NewTimer(time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	require.ErrorIs(t, w.BlockUntilContext(ctx, 2), context.DeadlineExceeded)
}

func TestBlockUntilReturnsOnClosedWheel(t *testing.T) {
	clk := NewManualClock(time.Unix(0, 0))
	w, err := NewWheel(Options{Clock: clk})
	require.NoError(t, err)
	require.NoError(t, w.Close())
	w.BlockUntil(1) // must not hang
}
