package stashtime

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// TestSlackTable checks the precision rule's table (see precision.go) and
// that slack lies between a 32nd and a 16th of the distance below the cap.
func TestSlackTable(t *testing.T) {
	w := &Wheel{maxSlack: slackOption(0)}
	for _, c := range []struct {
		d    time.Duration
		want int64
	}{
		{0, 0}, {31, 0}, {32, 2}, {100 * time.Microsecond, 4096},
		{time.Millisecond, 32768}, {2100 * time.Microsecond, 1 << 17},
		{10 * time.Millisecond, 1 << 17}, {time.Hour, 1 << 17}, {-time.Second, 0},
	} {
		if got := w.slack(int64(c.d)); got != c.want {
			t.Errorf("slack(%v) = %d, want %d", c.d, got, c.want)
		}
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
		{0, 1 << 17, 1 << 22}, {-1, 0, 0}, {time.Second, 1 << 20, 1 << 25}, {100 * time.Microsecond, 100_000, 1 << 22},
	} {
		max := slackOption(c.opt)
		if look := lookaheadFor(max); max != c.max || look != c.look {
			t.Errorf("Slack %v: cap %d and lookahead %d, want %d and %d", c.opt, max, look, c.max, c.look)
		}
		if w := (&Wheel{maxSlack: max}); max > 0 && w.slack(lookaheadFor(max)/2) != max {
			t.Errorf("Slack %v: a timer taken in half a lookahead ahead gets %d, not the cap", c.opt, w.slack(lookaheadFor(max)/2))
		}
	}
	if lookaheadFor(int64(maxSlack)) > intakeAhead/2 {
		t.Errorf("the largest lookahead, %d, reaches the intake's %d", lookaheadFor(int64(maxSlack)), intakeAhead)
	}
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
		if got, stack = h.latest(stack); got != want {
			t.Fatalf("latest of %v = %d, want %d", h, got, want)
		}
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
	if su := waitSleep(t, w); su != first {
		t.Fatalf("the driver sleeps to %d, want %d: the earliest deadline plus its slack", su-now, first-now)
	}
	left := n
	for left > 0 {
		clk.Advance(time.Duration(1 + rng.Int64N(80_000)))
		at := clk.Now()
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Microsecond) {
			late := false
			for i := range timers {
				tm := &timers[i]
				if !tm.fired && len(tm.tm.C) > 0 {
					if tm.when > at {
						t.Fatalf("a timer due at +%d fired at +%d", tm.when-now, at-now)
					}
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
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Microsecond) {
		if su := w.sleepUntil.Load(); su != running {
			return su
		}
		if time.Now().After(deadline) {
			t.Fatal("the driver did not go to sleep within 10 s")
		}
	}
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
	if su := waitSleep(t, w); su != now+int64(d) {
		t.Fatalf("alone, the timer has the driver sleep to +%d, want its deadline +%d", su-now, int64(d))
	}
	w.NewTimer(d + time.Microsecond)
	w.Sync()
	if su, want := waitSleep(t, w), now+int64(d)+w.slack(int64(d)); su != want {
		t.Fatalf("with a second timer in its window, the driver sleeps to +%d, want +%d", su-now, want-now)
	}
}

func TestNearHeapWake(t *testing.T) {
	var h nearHeap
	if w, _ := h.wake(nil); w != math.MaxInt64 {
		t.Fatalf("empty heap: wake %d", w)
	}
	h.push(nearItem{key: 100, latest: 150})
	h.push(nearItem{key: 200, latest: 210})
	if w, _ := h.wake(nil); w != 100 {
		t.Fatalf("a lone first item: wake %d, want its key 100", w)
	}
	h.push(nearItem{key: 140, latest: 400})
	if w, _ := h.wake(nil); w != 150 {
		t.Fatalf("two items in the window: wake %d, want the latest 150", w)
	}
}
