package stashtime

import "github.com/stashgo/stash/internal/clock"

// manual names the internal manual clock, so that ManualClock embeds it
// under an unexported field name.
type manual = clock.Manual

// A ManualClock is a Clock that moves only when told to: Advance moves it
// by a Duration, AdvanceTo to a Time, and Current tells the Time it reads.
// A Wheel on a ManualClock fires timers only as it advances; call
// Wheel.Sync after advancing to wait until everything then due has fired,
// or Wheel.Settle to wait for the AfterFunc callbacks it started to return
// too (package stashtest does both in one call). It never moves back, and
// stops one short of math.MaxInt64 nanoseconds after its start rather than
// wrap. It is safe for concurrent use.
//
// As a Clock, its readings (Now) are nanoseconds since the start given to
// NewManualClock, and Time turns one into the Time it stands for; code
// outside a Wheel has no need of them.
type ManualClock struct {
	*manual
}

// NewManualClock returns a ManualClock that reads start.
func NewManualClock(start Time) *ManualClock {
	c := clock.NewManual(0)
	c.Epoch = start
	return &ManualClock{c}
}

// Current returns the Time the clock reads: the start it was made with,
// moved on by Advance and AdvanceTo. It is Time(Now()).
func (c *ManualClock) Current() Time { return c.manual.Time(c.manual.Now()) }

// Advance moves the clock forward by d and wakes whatever sleeps until a
// reading it reaches, a Wheel's driver among them. A negative d is
// ignored: the clock never moves back. The clock stops one short of
// math.MaxInt64 nanoseconds after its start, the deadline that stands for
// never, rather than wrap.
func (c *ManualClock) Advance(d Duration) { c.manual.Advance(d) }

// AdvanceTo moves the clock forward to t, as Advance(t.Sub(c.Current()))
// does: a t no later than the clock's Time is ignored, and one beyond
// where Advance stops moves it that far.
func (c *ManualClock) AdvanceTo(t Time) {
	c.manual.Set(int64(t.Sub(c.manual.Epoch))) // Sub saturates; Set clamps
}

// Now returns the clock's reading as a Clock, in nanoseconds since its
// start; Current returns it as a Time.
func (c *ManualClock) Now() int64 { return c.manual.Now() }

// Time returns the Time that reading mono stands for: the start the clock
// was made with, plus mono nanoseconds.
func (c *ManualClock) Time(mono int64) Time { return c.manual.Time(mono) }

// Until returns a channel that is closed once the clock reads at least
// deadline, and a function that gives up the wait if the caller stops
// waiting first (harmless after the channel is closed). A Wheel's poller
// sleeps on it, so that the driver moves only as the clock does.
func (c *ManualClock) Until(deadline int64) (ch <-chan struct{}, cancel func()) {
	return c.manual.Until(deadline)
}

// Waiters reports how many waits begun with Until are still waiting: for
// a Wheel on the clock, 1 while its driver sleeps. Tests use it to know
// that a sleeper has gone to sleep before they advance the clock.
func (c *ManualClock) Waiters() int { return c.manual.Waiters() }
