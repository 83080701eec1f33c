package stashtime_test

// The Ticker API of ticker.go against rules 12 and 13 of docs/semantics.md:
// tickers are fixed-rate and phase aligned, drop missed ticks, buffer at
// most the oldest one; Stop and Reset discard an undelivered tick; Reset
// restarts a stopped ticker; the zero Ticker and non-positive intervals.

import (
	"fmt"
	"testing"
	stdtime "time"

	"github.com/stashgo/stash/stashtime"
)

// tickPeriod is the period of most tickers here.
const tickPeriod = 10 * stdtime.Millisecond

// Ticks come at start + k*period, each value the tick's instant, however
// the clock gets there (in steps of a period, or in odd steps).
func TestConformanceTickerFixedRate(t *testing.T) {
	m := newTestWheel(t, stashtime.Options{})
	m.advance(333 * stdtime.Microsecond)
	start := m.elapsed()
	tk := m.NewTicker(tickPeriod)
	defer tk.Stop()
	for k := 1; k <= 5; k++ {
		m.advance(tickPeriod)
		mustRecv(t, tk.C, at(start+stdtime.Duration(k)*tickPeriod), fmt.Sprintf("tick %d", k))
	}
	// Odd steps that cross each tick late by a different amount: the phase
	// stays put.
	for k := 6; k <= 12; k++ {
		due := start + stdtime.Duration(k)*tickPeriod
		m.advance(due - 1 - m.elapsed())
		mustNotRecv(t, tk.C, fmt.Sprintf("1ns before tick %d", k))
		m.advance(stdtime.Duration(k) * 100 * stdtime.Microsecond)
		mustRecv(t, tk.C, at(due), fmt.Sprintf("tick %d, read late", k))
	}
}

// After a late tick the next one is at when + period*(1+late/period):
// missed ticks are dropped, the buffered tick is the oldest, and the phase
// is kept.
func TestConformanceTickerDropsMissedTicks(t *testing.T) {
	for _, late := range []stdtime.Duration{tickPeriod / 2, 2*tickPeriod + tickPeriod/2, 7*tickPeriod - 1, 7 * tickPeriod, 100*tickPeriod + 3} {
		t.Run(fmt.Sprintf("late=%v", late), func(t *testing.T) {
			m := newTestWheel(t, stashtime.Options{})
			tk := m.NewTicker(tickPeriod)
			defer tk.Stop()
			// Jump straight to tickPeriod+late: one tick due at tickPeriod, fired
			// late by late.
			m.advance(tickPeriod + late)
			mustRecv(t, tk.C, at(tickPeriod), "the late tick")
			mustNotRecv(t, tk.C, "a second buffered tick")
			next := tickPeriod + tickPeriod*(1+late/tickPeriod)
			m.advance(next - 1 - m.elapsed())
			mustNotRecv(t, tk.C, "1ns before the next phase-aligned tick")
			m.advance(1)
			mustRecv(t, tk.C, at(next), "the next phase-aligned tick")
		})
	}
}

// Advancing by 3.5 periods at once: exactly one tick buffered, with the
// oldest value; ticks that come while it is unreceived are dropped; the
// receiver then gets the oldest one.
func TestConformanceTickerBuffersOldest(t *testing.T) {
	m := newTestWheel(t, stashtime.Options{})
	tk := m.NewTicker(tickPeriod)
	defer tk.Stop()
	m.advance(3*tickPeriod + tickPeriod/2)
	if n := len(tk.C); n != 1 {
		t.Fatalf("%d ticks buffered after 3.5 periods, want 1", n)
	}
	// Nobody receives through several more ticks.
	for range 5 {
		m.advance(tickPeriod)
	}
	if n := len(tk.C); n != 1 {
		t.Fatalf("%d ticks buffered, want 1", n)
	}
	mustRecv(t, tk.C, at(tickPeriod), "the oldest tick")
	// The next one is on the original phase: at 9 periods, half a period on.
	m.advance(tickPeriod / 2)
	mustRecv(t, tk.C, at(9*tickPeriod), "next tick on phase")
	if cap(tk.C) != 1 {
		t.Fatalf("cap(C) = %d, want 1 (rule 9, documented approximation)", cap(tk.C))
	}
}

// Stop discards a tick not yet received and no tick comes after it; Stop is
// idempotent and does not close C.
func TestConformanceTickerStop(t *testing.T) {
	m := newTestWheel(t, stashtime.Options{})
	tk := m.NewTicker(tickPeriod)
	m.advance(tickPeriod)
	tk.Stop()
	mustNotRecv(t, tk.C, "after Stop, the undelivered tick")
	m.advance(10 * tickPeriod)
	mustNotRecv(t, tk.C, "10 periods after Stop")
	tk.Stop()
	select {
	case _, ok := <-tk.C:
		if !ok {
			t.Fatal("Stop closed C")
		}
		t.Fatal("value after Stop")
	default:
	}
	if st := m.Stats(); st.Live != 0 {
		t.Fatalf("Stats().Live = %d after Stop", st.Live)
	}
}

// Reset discards an undelivered tick, changes the tickPeriod, and puts the next
// tick at now + d (not on the old phase); Reset restarts a stopped ticker.
func TestConformanceTickerReset(t *testing.T) {
	m := newTestWheel(t, stashtime.Options{})
	tk := m.NewTicker(tickPeriod)
	defer tk.Stop()
	m.advance(tickPeriod + tickPeriod/2) // tick at 10ms buffered, now 15ms
	tk.Reset(7 * stdtime.Millisecond)
	mustNotRecv(t, tk.C, "after Reset, the undelivered tick")
	m.advance(7*stdtime.Millisecond - 1)
	mustNotRecv(t, tk.C, "1ns before now+d")
	m.advance(1)
	mustRecv(t, tk.C, at(22*stdtime.Millisecond), "first tick after Reset")
	m.advance(7 * stdtime.Millisecond)
	mustRecv(t, tk.C, at(29*stdtime.Millisecond), "second tick after Reset")

	// Reset to a longer tickPeriod while the next tick is pending: that tick
	// does not come.
	m.advance(3 * stdtime.Millisecond) // 32ms, next tick would be at 36ms
	tk.Reset(50 * stdtime.Millisecond)
	m.advance(49 * stdtime.Millisecond)
	mustNotRecv(t, tk.C, "the tick of the old tickPeriod")
	m.advance(stdtime.Millisecond)
	mustRecv(t, tk.C, at(82*stdtime.Millisecond), "tick of the longer tickPeriod")

	// Stopped, then Reset: it ticks again from now.
	tk.Stop()
	m.advance(3 * tickPeriod)
	mustNotRecv(t, tk.C, "stopped ticker")
	restart := m.elapsed()
	tk.Reset(tickPeriod)
	for k := 1; k <= 3; k++ {
		m.advance(tickPeriod)
		mustRecv(t, tk.C, at(restart+stdtime.Duration(k)*tickPeriod), fmt.Sprintf("tick %d after restart", k))
	}
	// Reset with a tick buffered and the clock exactly on a tick.
	m.advance(tickPeriod)
	tk.Reset(tickPeriod)
	mustNotRecv(t, tk.C, "Reset on a tick boundary")
	m.advance(tickPeriod)
	mustRecv(t, tk.C, at(m.elapsed()), "tick after Reset on a boundary")
}

// A ticker whose tickPeriod is shorter than a bucket ticks on phase within one
// bucket, and one far beyond the wheel's span ticks too.
func TestConformanceTickerPeriods(t *testing.T) {
	for _, p := range []stdtime.Duration{1, 7 * stdtime.Microsecond, bucketNs - 1, bucketNs + 1, 90 * stdtime.Millisecond} {
		t.Run(fmt.Sprint(p), func(t *testing.T) {
			m := newTestWheel(t, stashtime.Options{Levels: tinyLevels()})
			tk := m.NewTicker(p)
			defer tk.Stop()
			for k := 1; k <= 20; k++ {
				m.advance(p)
				mustRecv(t, tk.C, at(stdtime.Duration(k)*p), fmt.Sprintf("tick %d", k))
			}
		})
	}
}

// Rule 13: non-positive intervals and the zero Ticker.
func TestConformanceTickerPanics(t *testing.T) {
	m := newTestWheel(t, stashtime.Options{})
	for _, d := range []stdtime.Duration{0, -1, -stdtime.Hour} {
		for name, f := range map[string]func(){
			"NewTicker":       func() { stashtime.NewTicker(d) },
			"Wheel.NewTicker": func() { m.NewTicker(d) },
		} {
			v := mustPanic(t, name, f)
			if s, ok := v.(string); !ok || s != "non-positive interval for NewTicker" {
				t.Errorf("%s(%v) panicked with %#v, want the string %q", name, d, v, "non-positive interval for NewTicker")
			}
		}
		if c := stashtime.Tick(d); c != nil {
			t.Errorf("Tick(%v) = %v, want nil", d, c)
		}
		if c := m.Tick(d); c != nil {
			t.Errorf("Wheel.Tick(%v) = %v, want nil", d, c)
		}
		// Reset's interval is checked first, even on a zero Ticker.
		for name, tk := range map[string]*stashtime.Ticker{
			"live":       m.NewTicker(tickPeriod),
			"zero":       {},
			"hand-built": {C: make(chan stdtime.Time)},
		} {
			v := mustPanic(t, "Reset", func() { tk.Reset(d) })
			if s, ok := v.(string); !ok || s != "non-positive interval for Ticker.Reset" {
				t.Errorf("%s Ticker.Reset(%v) panicked with %#v", name, d, v)
			}
			tk.Stop()
		}
	}
	// Stop on a zero or hand-built Ticker is a no-op; Reset(d > 0) panics.
	c := make(chan stdtime.Time, 1)
	c <- epoch
	for name, tk := range map[string]*stashtime.Ticker{"zero": {}, "hand-built": {C: c}} {
		tk.Stop()
		tk.Stop()
		v := mustPanic(t, "Reset", func() { tk.Reset(tickPeriod) })
		if s, ok := v.(string); !ok || s != "time: Reset called on uninitialized Ticker" {
			t.Errorf("%s Ticker.Reset(%v) panicked with %#v", name, tickPeriod, v)
		}
	}
	if len(c) != 1 {
		t.Fatal("Stop of a hand-built Ticker drained its channel")
	}
}

// With the process-wide wheel and real time: ticks are received no earlier
// than k periods after the start, and are phase aligned: each value lies a
// whole number of periods after the first, give or take the few tens of
// nanoseconds of turning a clock reading into a Time (package time's values
// have that jitter too).
func TestConformanceTickerReal(t *testing.T) {
	const p = 5 * stdtime.Millisecond
	const jitter = 20 * stdtime.Microsecond
	start := stdtime.Now()
	tk := stashtime.NewTicker(p)
	defer tk.Stop()
	var first stdtime.Time
	for k := 1; k <= 10; k++ {
		var v stdtime.Time
		select {
		case v = <-tk.C:
		case <-stdtime.After(2 * stdtime.Second):
			t.Fatalf("tick %d did not come within 2s", k)
		}
		if el := stdtime.Since(start); el < stdtime.Duration(k)*p {
			t.Fatalf("tick %d received %v after start, before %d periods", k, el, k)
		}
		if k == 1 {
			first = v
			continue
		}
		off := v.Sub(first) % p
		if off > jitter && off < p-jitter {
			t.Fatalf("tick %d at %v after the first: not a multiple of %v", k, v.Sub(first), p)
		}
	}
}
