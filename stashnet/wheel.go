package stashnet

import (
	"time"

	"github.com/stashgo/stash/internal/clock"
	"github.com/stashgo/stash/stashtime"
)

// WithWheel puts the connection's deadlines and idle timeout on t, the
// stashtime.Timers production code takes to start timers, measured by
// their clock, instead of on the process-wide wheel: with a Wheel over a
// stashtime.ManualClock (stashtest.New makes one), a test sees a deadline
// pass or a connection idle out only as it advances the clock, with no
// real waiting. Set deadlines on t's time then (t.Now().Add(d), or
// SetTimeout and its kin, which read t's clock): a ManualClock's times
// compare with time.Now's by their wall clock reading alone. A nil t, or
// stashtime.Default(), is the process-wide wheel. A wheel must stay open
// while the connections use it.
//
// The clock is read through the Clock method of t's, where t has one
// (a *stashtime.Wheel, or a type that embeds one), and through t.Now
// otherwise.
func WithWheel(t stashtime.Timers) Option {
	return func(o *options) { o.src = newTimeSource(t) }
}

// A timeSource is Timers other than the process-wide wheel, and the clock
// a connection's deadlines are readings of. A nil *timeSource is the
// process-wide wheel and clock.Mono: the fast path, which the methods
// below take with one nil check. Inside a testing/synctest bubble, a
// connection on the system clock has one whose clock is the bubble's, and
// t nil for the process-wide wheel (see inBubble).
type timeSource struct {
	t stashtime.Timers // nil: the package-level functions
	// clk is t's clock, nil if it is the system's, whose readings are
	// clock.Mono's and convert with nanos; origin is what its reading 0
	// stands for.
	clk    stashtime.Clock
	origin time.Time
}

func newTimeSource(t stashtime.Timers) *timeSource {
	if t == nil {
		return nil
	}
	var c stashtime.Clock
	switch x := t.(type) {
	case *stashtime.Wheel:
		if x == nil {
			return nil
		}
		c = x.Clock()
		if clock.IsSystem(c) && x == stashtime.Default() {
			return nil
		}
	case interface{ Clock() stashtime.Clock }:
		c = x.Clock()
	default:
		c = timersClock{t, t.Now()}
	}
	if clock.IsSystem(c) {
		return &timeSource{t: t}
	}
	return &timeSource{t: t, clk: c, origin: c.Time(0)}
}

// A timersClock reads Timers that tell no Clock of theirs by their Now,
// in nanoseconds since origin.
type timersClock struct {
	t      stashtime.Timers
	origin time.Time
}

func (c timersClock) Now() int64             { return max(int64(c.t.Since(c.origin)), 0) }
func (c timersClock) Time(v int64) time.Time { return c.origin.Add(time.Duration(v)) }

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
		b.t = s.t
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
// reading the Reset took: the timer fires at at, whoever moves the clock,
// unless the clock moves throughout exactTries of them.
func (s *timeSource) armAt(t *stashtime.Timer, f func(), now, at int64) *stashtime.Timer {
	if t == nil {
		t = s.afterFunc(time.Duration(at-now), f)
	} else {
		t.Reset(time.Duration(at - now))
	}
	for range exactTries {
		if !s.exact() {
			break
		}
		after := s.now()
		if after == now {
			break
		}
		now = after
		t.Reset(time.Duration(at - now))
	}
	return t
}

// exactTries bounds armAt's Resets: a Clock of the caller's that follows
// real time never reads the same twice, and there each try is off by as
// little as the clock moved during it.
const exactTries = 8

// afterFunc is stashtime.AfterFunc on the Timers. In a bubble, the
// package-level function and a system-clock wheel's method alike hand the
// timer to package time, on the bubble's clock.
func (s *timeSource) afterFunc(d time.Duration, f func()) *stashtime.Timer {
	if s == nil || s.t == nil {
		return stashtime.AfterFunc(d, f)
	}
	return s.t.AfterFunc(d, f)
}
