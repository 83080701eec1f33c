package poller

import (
	"math"
	"time"

	"github.com/stashgo/stash/internal/clock"
)

// Wait takes a deadline as a reading of the poller's clock. The functions
// below make one from a time.Time or a time.Duration, for a caller that
// has neither the clock nor its readings at hand.

// Now returns the current reading of the system monotonic clock, the clock
// of NewEpoll's pollers and of those New and NewPortable make for a nil
// Clock: nanoseconds, CLOCK_MONOTONIC on Linux. Readings never decrease.
func Now() int64 { return clock.Mono() }

// Deadline returns the reading of the system monotonic clock (see Now) at
// instant t, for the Wait of a poller on that clock. It may be late by the
// few nanoseconds between two clock reads, never early. A t whose instant
// lies beyond the clock's range gives NoDeadline. A t without a monotonic
// reading (from time.Unix or time.Parse, say) is placed by the wall clock,
// as time.Until places it.
func Deadline(t time.Time) int64 {
	d := time.Until(t)
	// Read the clock after time.Until did: the deadline errs late by the
	// time between the two reads, where reading it first would err early.
	return later(Now(), d)
}

// WaitUntil is p.Wait with the deadline given as an instant: it waits until
// p's clock reaches t, or a Wake or Close. For a Poller made by this
// package, t is placed on the poller's own clock: the system clock, or
// one given to New or NewPortable (at the instant its Time method gives
// for its reading, where it has one: a manual clock's instants move with
// it); for any other Poller, on the system clock. A t beyond the clock's
// range waits as NoDeadline does.
func WaitUntil(p Poller, t time.Time) error {
	c := clockOf(p)
	if c == nil {
		return p.Wait(Deadline(t))
	}
	if tc, ok := c.(interface{ Time(int64) time.Time }); ok {
		now := c.Now()
		return p.Wait(later(now, t.Sub(tc.Time(now))))
	}
	d := time.Until(t)
	return p.Wait(later(c.Now(), d)) // read after time.Until, as in Deadline
}

// WaitFor is p.Wait with the deadline d from now on p's clock (the system
// clock for a Poller not made by this package): it waits until d has
// passed, or a Wake or Close. A d <= 0 returns at once; a d beyond the
// clock's range waits as NoDeadline does.
func WaitFor(p Poller, d time.Duration) error {
	c := clockOf(p)
	if c == nil {
		return p.Wait(later(Now(), d))
	}
	return p.Wait(later(c.Now(), d))
}

// later returns now+d, or NoDeadline where that is beyond an int64. now is
// never negative, so now+d never falls below math.MinInt64.
func later(now int64, d time.Duration) int64 {
	if d > 0 && now > math.MaxInt64-int64(d) {
		return NoDeadline
	}
	return now + int64(d)
}

// clocked is a Poller that tells its clock.
type clocked interface{ pollerClock() Clock }

// pollerClock returns the portable poller's clock, or nil for the system
// clock. (The epoll poller always reads the system clock.)
func (p *portable) pollerClock() Clock {
	if isSystem(p.c) {
		return nil
	}
	return p.c
}

// clockOf returns p's clock, or nil for the system clock or a Poller made
// elsewhere.
func clockOf(p Poller) Clock {
	if c, ok := p.(clocked); ok {
		return c.pollerClock()
	}
	return nil
}
