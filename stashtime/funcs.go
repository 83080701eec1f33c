package stashtime

import (
	"math"
	"time"

	"github.com/stashgo/stash/internal/wheel"
)

// NewTimer creates a new Timer that will send the current time on its
// channel after at least duration d.
func NewTimer(d Duration) *Timer {
	now, ok := now()
	if !ok {
		t := time.NewTimer(d)
		return &Timer{C: t.C, e: wheel.StdTimer(t)}
	}
	return Default().newTimer(now, d)
}

// AfterFunc waits for the duration to elapse and then calls f in its own
// goroutine. It returns a Timer that can be used to cancel the call using
// its Stop method. The returned Timer's C field is nil.
func AfterFunc(d Duration, f func()) *Timer {
	now, ok := now()
	if !ok {
		return &Timer{e: wheel.StdTimer(time.AfterFunc(d, f))}
	}
	return Default().afterFunc(now, d, f)
}

// After waits for the duration to elapse and then sends the current time on
// the returned channel. It is NewTimer(d).C. An unreferenced channel is
// collected before the timer fires.
func After(d Duration) <-chan Time {
	now, ok := now()
	if !ok {
		return time.After(d)
	}
	c, _ := Default().eng.StartChan(now, d)
	return c
}

// NewTicker returns a new Ticker containing a channel that will send the
// current time on the channel after each tick. The period of the ticks is
// specified by the duration argument. It panics if d <= 0.
func NewTicker(d Duration) *Ticker {
	if d <= 0 {
		panic("non-positive interval for NewTicker")
	}
	now, ok := now()
	if !ok {
		t := time.NewTicker(d)
		return &Ticker{C: t.C, e: wheel.StdTicker(t)}
	}
	return Default().newTicker(now, d)
}

// Tick is a convenience wrapper for NewTicker providing access to the
// ticking channel only. Unlike NewTicker, Tick returns nil if d <= 0.
func Tick(d Duration) <-chan Time {
	if d <= 0 {
		return nil
	}
	return NewTicker(d).C
}

// Sleep pauses the current goroutine for at least the duration d. A
// negative or zero duration causes Sleep to return immediately.
//
// A sleep of a millisecond or more is package time's Sleep, unless
// SetDefaultOptions asked for less slack than the default (see
// sleepOnRuntime). Shorter sleeps are on the wheel, many times closer to
// their deadlines than the runtime's. Wheel.Sleep is always on its wheel.
func Sleep(d Duration) {
	if d <= 0 {
		return
	}
	now, ok := now()
	if !ok { // in a bubble, time.Sleep(math.MaxInt64) returns when the fake clock gets there
		time.Sleep(d)
		return
	}
	if d == math.MaxInt64 {
		// Never returns, and costs the wheel nothing. Not select {}: a
		// program whose other goroutines are all blocked would die with
		// "all goroutines are asleep", where package time's pending timer
		// keeps it alive.
		time.Sleep(d)
		return
	}
	w := Default()
	if w.sleepsOnRuntime(d) {
		time.Sleep(d)
		return
	}
	w.eng.SleepFor(now, d)
}

// sleepsOnRuntime reports whether the package-level Sleep(d) on w, the
// default wheel, is package time's: from sleepOnRuntime on, unless
// SetDefaultOptions asked for less slack than the default.
func (w *Wheel) sleepsOnRuntime(d Duration) bool {
	return w.eng.MaxSlack() >= int64(DefaultSlack) && d >= sleepOnRuntime
}

// sleepOnRuntime is the shortest Sleep that package time serves. The
// runtime's timers fire on a millisecond's resolution: a sleep shorter
// than that wakes most of a millisecond late, where the wheel's wakes in
// tens of microseconds. From a millisecond on, the runtime's sleep is as
// close to its deadline as the wheel's and costs half the CPU (see
// docs/measured.md): it readies the sleeper on the P that runs its timer,
// where the wheel wakes its driver's thread and then the sleeper's.
const sleepOnRuntime = Duration(1e6)
