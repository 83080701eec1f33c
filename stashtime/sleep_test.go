package stashtime_test

import (
	"testing"
	stdtime "time"

	"github.com/stashgo/stash/stashtime"
)

// TestSleepAllocatesNothing checks that a Sleep reuses a timer of the
// wheel's pool: time.Sleep allocates nothing, and neither may a Sleep here
// once the pool has a timer (the store's leaves, shared by all timers of a
// bucket, are the rare exception that keeps the average below one).
func TestSleepAllocatesNothing(t *testing.T) {
	if stashtime.RaceEnabled {
		t.Skip("the race detector allocates on its own")
	}
	if stashtime.WakeCheck {
		t.Skip("the wake-up checker (stashcheck) records every timer")
	}
	stashtime.Sleep(stdtime.Microsecond) // fills the pool
	allocs := testing.AllocsPerRun(200, func() { stashtime.Sleep(stdtime.Microsecond) })
	if allocs != 0 {
		t.Errorf("Sleep allocates %v times per call, want 0", allocs)
	}
}

// TestSleepReusedTimerNotEarly sleeps again and again on one goroutine, so
// that each Sleep arms the timer the one before received from: every Sleep
// must still last its whole d, by the manual clock, and no longer.
func TestSleepReusedTimerNotEarly(t *testing.T) {
	m := newTestWheel(t, stashtime.Options{})
	durations := []stdtime.Duration{3 * stdtime.Millisecond, stdtime.Millisecond, 2 * stdtime.Second, 5 * stdtime.Millisecond}
	woke := make(chan stdtime.Duration)
	go func() {
		for _, d := range durations {
			start := m.elapsed()
			m.Sleep(d)
			woke <- m.elapsed() - start
		}
	}()
	for _, d := range durations {
		waitLive(t, m, 1)
		m.advance(d - 1)
		select {
		case el := <-woke:
			t.Fatalf("Sleep(%v) returned after %v", d, el)
		case <-stdtime.After(2 * stdtime.Millisecond):
		}
		m.advance(1)
		if el := waitChan(t, woke, "sleeper"); el != d {
			t.Fatalf("Sleep(%v) lasted %v", d, el)
		}
	}
}

// waitLive waits until m has n live timers.
func waitLive(t *testing.T, m *manualWheel, n int64) {
	t.Helper()
	for deadline := stdtime.Now().Add(5 * stdtime.Second); m.Stats().Live != n; {
		if stdtime.Now().After(deadline) {
			t.Fatalf("%d live timers, want %d", m.Stats().Live, n)
		}
		stdtime.Sleep(50 * stdtime.Microsecond)
	}
}
