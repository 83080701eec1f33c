package wheel

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSlackTable checks the precision rule's table (see precision.go) and
// that slack lies between a 32nd and a 16th of the distance below the cap.
func TestSlackTable(t *testing.T) {
	w := &Wheel{maxSlack: DefaultSlack}
	for _, c := range []struct {
		d    time.Duration
		want int64
	}{
		{0, 0}, {31, 0}, {32, 2}, {100 * time.Microsecond, 4096},
		{time.Millisecond, 32768}, {2100 * time.Microsecond, 1 << 17}, {4 * time.Millisecond, 1 << 17},
		{8400 * time.Microsecond, 1 << 19}, {time.Hour, 1 << 19}, {-time.Second, 0},
	} {
		assert.Equal(t, c.want, w.slack(int64(c.d)), "slack(%v)", c.d)
	}
	for d := int64(32); d < 1<<21; d = d*5/4 + 1 {
		if s := w.slack(d); s*32 <= d/2 || s*16 > d {
			t.Errorf("slack(%d) = %d: not within a 32nd to a 16th of d", d, s)
		}
	}
	for _, c := range []struct {
		opt       time.Duration
		max, look int64
	}{
		{0, 1 << 19, 1 << 24}, {-1, 0, 0}, {time.Second, 1 << 20, 1 << 25}, {100 * time.Microsecond, 100_000, 1 << 22},
	} {
		max := SlackCap(c.opt)
		assert.Equal(t, c.max, max, "Slack %v: cap", c.opt)
		assert.Equal(t, c.look, lookaheadFor(max), "Slack %v: lookahead", c.opt)
		if w := (&Wheel{maxSlack: max}); max > 0 {
			assert.Equal(t, max, w.slack(lookaheadFor(max)/2), "Slack %v: a timer taken in half a lookahead ahead gets less than the cap", c.opt)
		}
	}
	assert.LessOrEqual(t, lookaheadFor(int64(MaxSlack)), int64(intakeAhead/2), "the largest lookahead reaches the intake's %d", intakeAhead)
}

// TestNearHeapLatest checks the pruned search of nearHeap.latest against
// the minimum over every item.
func TestNearHeapLatest(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var stack []int32
	for range 500 {
		var h nearHeap
		want := int64(math.MaxInt64)
		for range rng.IntN(60) {
			key := rng.Int64N(1000)
			it := nearItem{key: key, latest: key + rng.Int64N(300)}
			h.push(it)
			want = min(want, it.latest)
		}
		var got int64
		got, stack = h.latest(stack)
		require.Equal(t, want, got, "latest of %v", h)
	}
}

// TestDriverSleepsToLatest checks that the driver sleeps to the latest
// instant that serves every timer in its near heap, and that it fires
// every timer no earlier than its deadline and no later than its slack
// allows, on its own wake-ups (no Sync): timers armed 2 to 4 ms ahead, in
// clock steps of 1 to 80 µs.
func TestDriverSleepsToLatest(t *testing.T) {
	w, clk := newManualWheel(t, 0)
	rng := rand.New(rand.NewPCG(5, 6))
	const n = 300
	type timer struct {
		when, latest int64
		tm           *Timer
		fired        bool
	}
	now := clk.Now()
	timers := make([]timer, n)
	first := int64(math.MaxInt64)
	for i := range timers {
		d := 2*time.Millisecond + time.Duration(rng.Int64N(int64(2*time.Millisecond)))
		timers[i] = timer{when: now + int64(d), latest: now + int64(d) + w.slack(int64(d)), tm: w.NewTimer(d)}
		first = min(first, timers[i].latest)
	}
	w.Sync()
	require.Equal(t, first-now, waitSleep(t, w)-now, "the driver's sleep: the earliest deadline plus its slack")
	left := n
	for left > 0 {
		clk.Advance(time.Duration(1 + rng.Int64N(80_000)))
		at := clk.Now()
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Microsecond) {
			late := false
			for i := range timers {
				tm := &timers[i]
				if !tm.fired && len(tm.tm.C) > 0 {
					require.LessOrEqual(t, tm.when-now, at-now, "a timer fired before its deadline")
					tm.fired = true
					left--
				}
				late = late || !tm.fired && tm.latest <= at
			}
			if !late {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("at +%d, a timer whose slack has run out has not fired", at-now)
			}
		}
	}
}

// waitSleep waits until the driver sleeps and returns the instant it sleeps
// to.
func waitSleep(t *testing.T, w *Wheel) int64 {
	t.Helper()
	var su int64
	require.Eventually(t, func() bool {
		su = w.sleepUntil.Load()
		return su != running
	}, 10*time.Second, 50*time.Microsecond, "the driver did not go to sleep within 10 s")
	return su
}

// TestLoneTimerExact checks that the driver wakes at the deadline of a
// timer alone in its window, with nothing to gather by waiting, and at the
// latest instant once a second timer shares the window.
func TestLoneTimerExact(t *testing.T) {
	w, clk := newManualWheel(t, 0)
	now := clk.Now()
	const d = 3 * time.Millisecond
	w.NewTimer(d)
	w.Sync()
	require.Equal(t, int64(d), waitSleep(t, w)-now, "alone, the timer has the driver sleep to its deadline")
	w.NewTimer(d + time.Microsecond)
	w.Sync()
	require.Equal(t, int64(d)+w.slack(int64(d)), waitSleep(t, w)-now, "with a second timer in its window, the driver sleeps to the latest instant")
}

func TestNearHeapWake(t *testing.T) {
	var h nearHeap
	wake := func() int64 {
		w, _ := h.wake(nil)
		return w
	}
	require.Equal(t, int64(math.MaxInt64), wake(), "empty heap")
	h.push(nearItem{key: 100, latest: 150})
	h.push(nearItem{key: 200, latest: 210})
	require.Equal(t, int64(100), wake(), "a lone first item: its key")
	h.push(nearItem{key: 140, latest: 400})
	require.Equal(t, int64(150), wake(), "two items in the window: the latest")
}

// TestPeepedBucket checks that the driver sleeps past a sparse bucket
// beyond the lookahead straight to the instant its first timer must fire
// (here a lone timer's deadline), not to a lookahead before the bucket to
// take its timers in first; and that the producers that file peepMax more
// timers there meanwhile, none of which needs the driver sooner, have it
// look again, and take the bucket in a lookahead early.
func TestPeepedBucket(t *testing.T) {
	w, clk := newManualWheel(t, 0)
	now := clk.Now()
	d := 20 * time.Millisecond
	w.NewTimer(d)
	w.Sync()
	require.Equal(t, int64(d), waitSleep(t, w)-now, "a lone timer in a sparse bucket")
	for i := range peepMax - 1 {
		w.NewTimer(d + time.Duration(i+1)*time.Microsecond)
	}
	require.Equal(t, int64(d), w.sleepUntil.Load()-now, "after peepMax-1 more timers filed in the bucket")
	w.NewTimer(d + time.Duration(peepMax)*time.Microsecond)
	// No Sync, which would wake the driver itself: the filing must.
	b := w.bucketOf(now + int64(d))
	require.Eventually(t, func() bool {
		su := w.sleepUntil.Load()
		return su != running && su <= b-w.lookahead
	}, 10*time.Second, 50*time.Microsecond, "the driver did not look again after peepMax more timers were filed in the bucket")
}
