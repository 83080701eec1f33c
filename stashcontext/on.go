package stashcontext

import (
	"time"

	"github.com/stashgo/stash/internal/clock"
	"github.com/stashgo/stash/stashtime"
)

// Deadlines makes contexts whose deadlines are timers on one chosen
// stashtime Wheel and are measured by its clock, so that code that takes a
// Deadlines runs on the process-wide wheel in production and on a Wheel
// over a stashtime.ManualClock in its tests, where a deadline passes only
// as the test advances the clock. Make one with On.
//
// Its methods behave as the package-level functions of the same names,
// but for what follows from the chosen clock:
//
//   - WithTimeout's deadline is the wheel's Now plus the timeout; give
//     WithDeadline a deadline on the wheel's time (its Now().Add(d)): a
//     ManualClock's times begin where NewManualClock was told, and compare
//     with other times by their wall clock reading alone.
//   - Err is DeadlineExceeded once the wheel's clock reads the deadline,
//     never before; the wheel's timer runs the cancel, in a goroutine of
//     its own (call Wheel.Sync after advancing a ManualClock to have it
//     fired).
//   - The timers are not pooled: a context's cancel stops its timer, so
//     that Wheel.BlockUntil counts only the deadlines still watched.
//
// Under a parent that package context cancels (one it made, or
// http.Request.Context), the result is linked to the parent as the
// package-level functions' is (see Under a parent of package context):
// tests and production run the same code.
//
// The zero Deadlines, and On(nil), use the process-wide wheel: its methods
// are the package-level functions.
type Deadlines struct {
	w *stashtime.Wheel // nil: the process-wide wheel
}

// On returns the Deadlines of wheel w: On(nil) or On(stashtime.Default())
// makes the package-level functions' contexts.
func On(w *stashtime.Wheel) Deadlines {
	if w != nil && clock.IsSystem(w.Clock()) && w == stashtime.Default() {
		w = nil
	}
	return Deadlines{w}
}

// Wheel returns the wheel the deadlines go on: the one given to On, or
// stashtime.Default().
func (d Deadlines) Wheel() *stashtime.Wheel {
	if d.w == nil {
		return stashtime.Default()
	}
	return d.w
}

// WithDeadline is WithDeadline on d's wheel: the context is done once the
// wheel's clock reads t.
func (d Deadlines) WithDeadline(parent Context, t time.Time) (Context, CancelFunc) {
	return d.WithDeadlineCause(parent, t, nil)
}

// WithDeadlineCause is WithDeadlineCause on d's wheel.
func (d Deadlines) WithDeadlineCause(parent Context, t time.Time, cause error) (Context, CancelFunc) {
	if d.w == nil {
		return WithDeadlineCause(parent, t, cause)
	}
	if parent == nil {
		panic("cannot create context from nil parent")
	}
	return d.withDeadline(parent, t, d.w.Until(t), cause)
}

// WithTimeout is WithTimeout on d's wheel: the context is done once the
// wheel's clock has moved timeout on.
func (d Deadlines) WithTimeout(parent Context, timeout time.Duration) (Context, CancelFunc) {
	return d.WithTimeoutCause(parent, timeout, nil)
}

// WithTimeoutCause is WithTimeoutCause on d's wheel.
func (d Deadlines) WithTimeoutCause(parent Context, timeout time.Duration, cause error) (Context, CancelFunc) {
	if d.w == nil {
		return WithTimeoutCause(parent, timeout, cause)
	}
	if parent == nil {
		panic("cannot create context from nil parent")
	}
	return d.withDeadline(parent, d.w.Now().Add(timeout), timeout, cause)
}

// withDeadline makes the context of d's wheel (not nil) with deadline t,
// dur from now on its clock.
func (d Deadlines) withDeadline(parent Context, t time.Time, dur time.Duration, cause error) (Context, CancelFunc) {
	if cur, ok := parent.Deadline(); ok && cur.Before(t) {
		return WithCancel(parent)
	}
	p, cancelable := stashParent(parent)
	c := newTimerCtx(parent, t, p, cancelable)
	x := c.extraSetup()
	x.on, x.deadlineCause = d.w, cause
	c.attach(p)
	return c.finish(dur, cause)
}
