package stashcontext

import (
	"time"

	"github.com/stashgo/stash/internal/clock"
	"github.com/stashgo/stash/stashtime"
)

// Deadlines makes contexts whose deadlines are timers of one chosen
// stashtime.Timers and are measured by its clock, so that code that takes
// a Timers runs on the process-wide wheel in production and on a Wheel
// over a stashtime.ManualClock (package stashtest makes one) in its tests,
// where a deadline passes only as the test advances the clock: it hands
// On the Timers it was given. Make one with On.
//
// Its methods behave as the package-level functions of the same names,
// but for what follows from the chosen clock:
//
//   - WithTimeout's deadline is the Timers' Now plus the timeout; give
//     WithDeadline a deadline on their time (Now().Add(d)): a
//     ManualClock's times begin where NewManualClock was told, and compare
//     with other times by their wall clock reading alone.
//   - Err is DeadlineExceeded once the clock reads the deadline, never
//     before; an AfterFunc timer of the Timers runs the cancel, in a
//     goroutine of its own (call Wheel.Settle, or stashtest's Advance,
//     after advancing a ManualClock to have it run).
//   - The timers are not pooled: a context's cancel stops its timer, so
//     that Wheel.BlockUntil counts only the deadlines still watched.
//
// Under a parent that package context cancels (one it made, or
// http.Request.Context), the result is linked to the parent as the
// package-level functions' is (see Under a parent of package context):
// tests and production run the same code.
//
// The zero Deadlines, On(nil) and On(stashtime.Default()) use the
// process-wide wheel: their methods are the package-level functions. So
// do they inside a testing/synctest bubble, where they run on the
// bubble's clock, as does any Wheel on the system clock.
type Deadlines struct {
	on *timers // nil: the process-wide wheel
}

// timers holds the Timers of On, so that a context keeps one pointer to
// them, not an interface value.
type timers struct{ stashtime.Timers }

// On returns the Deadlines of t, the Timers that production code takes
// and its tests hand a fake: On(nil) or On(stashtime.Default()) makes the
// package-level functions' contexts. A *stashtime.Wheel is a Timers, and
// so is a wrapper of one; a nil *Wheel stands for the process-wide one.
func On(t stashtime.Timers) Deadlines {
	if t == nil {
		return Deadlines{}
	}
	if w, ok := t.(*stashtime.Wheel); ok && (w == nil || w == stashtime.Default() && clock.IsSystem(w.Clock())) {
		return Deadlines{}
	}
	return Deadlines{&timers{t}}
}

// Timers returns the Timers the deadlines are on: the ones given to On,
// or stashtime.Default().
func (d Deadlines) Timers() stashtime.Timers {
	if d.on == nil {
		return stashtime.Default()
	}
	return d.on.Timers
}

// WithDeadline is WithDeadline on d's Timers: the context is done once
// their clock reads t.
func (d Deadlines) WithDeadline(parent Context, t time.Time) (Context, CancelFunc) {
	return d.WithDeadlineCause(parent, t, nil)
}

// WithDeadlineCause is WithDeadlineCause on d's Timers.
func (d Deadlines) WithDeadlineCause(parent Context, t time.Time, cause error) (Context, CancelFunc) {
	if d.on == nil {
		return WithDeadlineCause(parent, t, cause)
	}
	if parent == nil {
		panic("cannot create context from nil parent")
	}
	return d.withDeadline(parent, t, d.on.Until(t), cause)
}

// WithTimeout is WithTimeout on d's Timers: the context is done once
// their clock has moved timeout on.
func (d Deadlines) WithTimeout(parent Context, timeout time.Duration) (Context, CancelFunc) {
	return d.WithTimeoutCause(parent, timeout, nil)
}

// WithTimeoutCause is WithTimeoutCause on d's Timers.
func (d Deadlines) WithTimeoutCause(parent Context, timeout time.Duration, cause error) (Context, CancelFunc) {
	if d.on == nil {
		return WithTimeoutCause(parent, timeout, cause)
	}
	if parent == nil {
		panic("cannot create context from nil parent")
	}
	return d.withDeadline(parent, d.on.Now().Add(timeout), timeout, cause)
}

// withDeadline makes the context of d's Timers (not nil) with deadline t,
// dur from now on its clock.
func (d Deadlines) withDeadline(parent Context, t time.Time, dur time.Duration, cause error) (Context, CancelFunc) {
	if cur, ok := parent.Deadline(); ok && cur.Before(t) {
		return WithCancel(parent)
	}
	p, cancelable := stashParent(parent)
	c := newTimerCtx(parent, t, p, cancelable)
	x := c.extraSetup()
	x.on, x.deadlineCause = d.on, cause
	c.attach(p)
	return c.finish(dur, cause)
}
