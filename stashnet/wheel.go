package stashnet

import (
	"time"

	"github.com/stashgo/stash/internal/clock"
	"github.com/stashgo/stash/stashtime"
)

// WithWheel puts the connection's deadlines and idle timeout on wheel w,
// measured by its clock, instead of on the process-wide wheel: with a
// Wheel over a stashtime.ManualClock, a test sees a deadline pass or a
// connection idle out only as it advances the clock, with no real
// waiting. Set deadlines on w's time then (w.Now().Add(d), or SetTimeout
// and its kin, which read w's clock): a ManualClock's times compare with
// time.Now's by their wall clock reading alone. A nil w, or
// stashtime.Default(), is the process-wide wheel. w must stay open while
// the connections use it.
func WithWheel(w *stashtime.Wheel) Option {
	return func(o *options) { o.src = newTimeSource(w) }
}

// A timeSource is a wheel other than the process-wide one, and the clock
// a connection's deadlines are readings of. A nil *timeSource is the
// process-wide wheel and clock.Mono: the fast path, which the methods
// below take with one nil check. Inside a testing/synctest bubble, a
// connection on the system clock has one whose clock is the bubble's, and
// w nil for the process-wide wheel (see inBubble).
type timeSource struct {
	w *stashtime.Wheel
	// clk is w's clock, nil if it is the system's, whose readings are
	// clock.Mono's and convert with nanos; origin is what its reading 0
	// stands for.
	clk    stashtime.Clock
	origin time.Time
}

func newTimeSource(w *stashtime.Wheel) *timeSource {
	if w == nil {
		return nil
	}
	c := w.Clock()
	if clock.IsSystem(c) {
		if w == stashtime.Default() {
			return nil
		}
		return &timeSource{w: w}
	}
	return &timeSource{w: w, clk: c, origin: c.Time(0)}
}

// now reads the clock.
func (s *timeSource) now() int64 {
	if s == nil || s.clk == nil {
		return clock.Mono()
	}
	return s.clk.Now()
}

// inBubble returns the time source of a connection wrapped on s inside a
// testing/synctest bubble: s itself if it has a clock of its own, and
// otherwise (the system clock, whose timers stashtime hands to package
// time there) one on the bubble's clock, whose readings are nanoseconds of
// fake time since the connection was wrapped. Outside a bubble it is s.
// The time.Since that tells a bubble costs tens of nanoseconds, once per
// connection.
func (s *timeSource) inBubble() *timeSource {
	if s != nil && s.clk != nil {
		return s
	}
	if _, ok := clock.TimeNow(); ok {
		return s
	}
	b := &timeSource{clk: bubbleClock{time.Now()}}
	if s != nil {
		b.w = s.w
	}
	b.origin = b.clk.Time(0)
	return b
}

// A bubbleClock reads a testing/synctest bubble's fake clock, in
// nanoseconds since origin, a time.Now taken inside the bubble: it moves
// only as the bubble's time does, and never back.
type bubbleClock struct{ origin time.Time }

func (c bubbleClock) Now() int64             { return int64(time.Since(c.origin)) }
func (c bubbleClock) Time(v int64) time.Time { return c.origin.Add(time.Duration(v)) }

// exact reports a clock other than the system's: the coarse clock of the
// idle timeouts (see coarse.go) does not follow it.
func (s *timeSource) exact() bool { return s != nil && s.clk != nil }

// nanos returns t as a reading of the clock, at most maxDeadline.
func (s *timeSource) nanos(t time.Time) int64 {
	if s == nil || s.clk == nil {
		return nanos(t)
	}
	return min(int64(t.Sub(s.origin)), maxDeadline)
}

// timeOf returns the time that reading v stands for.
func (s *timeSource) timeOf(v int64) time.Time {
	if s == nil || s.clk == nil {
		return base.Add(time.Duration(v - baseMono))
	}
	return s.origin.Add(time.Duration(v))
}

// armAt arms t, or a new timer calling f if t is nil, to fire when the
// clock reads at, now being a reading taken before, and returns it. A
// timer's Reset counts its duration from the reading it takes itself: on
// the system clock now is at most microseconds older, well within the
// wheel's precision, but another clock may have moved on meanwhile by any
// amount (a test advances its ManualClock right after a Sync, while the
// callback the Sync started re-arms). There armAt resets again until the
// clock reads the same after a Reset as before it, which is then the
// reading the Reset took: the timer fires at at, whoever moves the clock.
func (s *timeSource) armAt(t *stashtime.Timer, f func(), now, at int64) *stashtime.Timer {
	if t == nil {
		t = s.afterFunc(time.Duration(at-now), f)
	} else {
		t.Reset(time.Duration(at - now))
	}
	for s.exact() {
		after := s.now()
		if after == now {
			break
		}
		now = after
		t.Reset(time.Duration(at - now))
	}
	return t
}

// afterFunc is stashtime.AfterFunc on the wheel. In a bubble, the
// package-level function and a system-clock wheel's method alike hand the
// timer to package time, on the bubble's clock.
func (s *timeSource) afterFunc(d time.Duration, f func()) *stashtime.Timer {
	if s == nil || s.w == nil {
		return stashtime.AfterFunc(d, f)
	}
	return s.w.AfterFunc(d, f)
}
