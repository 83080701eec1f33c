package stashtime

import "github.com/stashgo/stash/internal/clock"

// Timers is what production code takes to start timers and read the time,
// so that its tests can hand it a Wheel on a ManualClock instead of the
// process-wide one: the methods of package time's clock-reading and
// timer-starting functions, as jonboulle/clockwork's Clock and
// benbjohnson/clock's Clock have them. *Wheel implements it, Default()'s
// and one made by NewWheel alike.
//
// It is not named Clock because Clock is already the monotonic clock
// source a Wheel reads (Options.Clock): a Clock only tells the time, and
// Timers are what run on one.
//
// Unlike those packages' interfaces, Timers returns this package's *Timer
// and *Ticker rather than interfaces of its own, so that code written
// against package time (t.C, Stop, Reset) works unchanged and the timers
// cost what the package-level functions' cost; a wrapper of a Wheel (one
// that logs, say) implements it by calling the Wheel.
type Timers interface {
	// Now returns the current time on the wheel's clock.
	Now() Time
	// Since returns the time elapsed since t: Now().Sub(t).
	Since(t Time) Duration
	// Until returns the duration until t: t.Sub(Now()).
	Until(t Time) Duration
	// Sleep pauses the calling goroutine for at least d.
	Sleep(d Duration)
	// After returns a channel that receives the time after at least d.
	After(d Duration) <-chan Time
	// Tick returns the channel of a new Ticker, or nil if d <= 0.
	Tick(d Duration) <-chan Time
	// NewTimer returns a Timer that sends the time on its channel after
	// at least d.
	NewTimer(d Duration) *Timer
	// NewTicker returns a Ticker with period d; it panics if d <= 0.
	NewTicker(d Duration) *Ticker
	// AfterFunc calls f in its own goroutine after at least d, unless
	// the returned Timer is stopped first.
	AfterFunc(d Duration, f func()) *Timer
}

var _ Timers = (*Wheel)(nil)

// Since returns the time elapsed since t on the wheel's clock:
// w.Now().Sub(t). On a ManualClock it moves only as the clock does.
func (w *Wheel) Since(t Time) Duration { return w.Now().Sub(t) }

// Until returns the duration until t on the wheel's clock: t.Sub(w.Now()).
func (w *Wheel) Until(t Time) Duration { return t.Sub(w.Now()) }

// Clock returns the clock the wheel reads: the Options.Clock it was made
// with, or the system monotonic clock. Packages that keep deadlines as
// clock readings (stashnet does) read it to be on the wheel's time.
func (w *Wheel) Clock() Clock {
	if w == bubbleDefault {
		return clock.System
	}
	return w.eng.Clock()
}
