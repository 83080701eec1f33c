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
// below take with one nil check.
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

// afterFunc is stashtime.AfterFunc on the wheel.
func (s *timeSource) afterFunc(d time.Duration, f func()) *stashtime.Timer {
	if s == nil {
		return stashtime.AfterFunc(d, f)
	}
	return s.w.AfterFunc(d, f)
}
