package stashcontext

import (
	"sync"
	"time"

	"github.com/stashgo/stash/internal/clock"
	"github.com/stashgo/stash/stashtime"
)

// A slot is where a timerCtx stands (timerCtx.st): a deadline's timer on
// the wheel, one of the markers arming and noTimer, or, once the context is
// canceled, a final slot with its error and cause.
//
// A context that is canceled before its deadline stops its slot's timer
// and, once Stop says the callback will not run, returns the slot to a
// pool, so that the next context re-arms the timer with Reset instead of
// allocating one.
type slot struct {
	t *stashtime.Timer
	// c is the context the timer is armed for. It is set before the
	// timer is armed, and read by the callback, which runs after that.
	c *timerCtx
	// bubble reports a timer made inside a testing/synctest bubble, where
	// stashtime hands timers to package time, on the bubble's fake clock:
	// such a slot is never pooled, and none is taken from the pool there.
	bubble bool

	// final reports a canceled context's slot, never changed; err is its
	// error and cause its cause, nil if that is err.
	final bool
	err   error
	cause error
}

// The markers: arming while a goroutine puts the deadline on the wheel
// (see timerCtx.arm), noTimer for a context that needs no timer of its own.
var (
	arming  = &slot{}
	noTimer = &slot{}
)

// The final slots of the common cancels, so that they allocate nothing.
var (
	canceledSlot = &slot{final: true, err: Canceled}
	expiredSlot  = &slot{final: true, err: DeadlineExceeded}
)

// finalSlot returns the final slot of a cancel with err and cause.
func finalSlot(err, cause error) *slot {
	if cause == nil || cause == err {
		switch err {
		case Canceled:
			return canceledSlot
		case DeadlineExceeded:
			return expiredSlot
		}
		cause = nil
	}
	return &slot{final: true, err: err, cause: cause}
}

var slots sync.Pool // of *slot, their timers stopped

// newSlot returns a slot whose timer cancels c after d. A slot whose timer
// fired is never reused, so its callback reads the c that armed it.
func newSlot(c *timerCtx, d time.Duration, bubble bool) *slot {
	if !bubble {
		if s, _ := slots.Get().(*slot); s != nil {
			s.c = c
			s.t.Reset(d)
			return s
		}
	}
	s := &slot{c: c, bubble: bubble}
	s.t = stashtime.AfterFunc(d, s.fire)
	return s
}

// fire is the timer's callback.
func (s *slot) fire() { s.c.expire() }

// release stops the timer and pools the slot if its callback will not run,
// letting go of its context (and with it the context's parents and values).
func (s *slot) release() {
	if s.t.Stop() && !s.bubble {
		s.c = nil
		slots.Put(s)
	}
}

// remaining returns the time left until the deadline d, and whether the
// caller is inside a testing/synctest bubble. A d with a monotonic reading
// (time.Now's, outside a bubble) is compared with a reading of the
// monotonic clock alone, which costs about half of time.Now.
func remaining(d time.Time) (time.Duration, bool) {
	if d != d.Round(0) {
		if now, ok := clock.TimeNow(); ok {
			return time.Duration(clock.FromTime(d) - now), false
		}
	}
	now := time.Now()
	return d.Sub(now), inBubble(now)
}

// inBubble reports whether now, a reading of time.Now, was taken inside a
// testing/synctest bubble: the fake clock there has no monotonic reading.
func inBubble(now time.Time) bool { return now == now.Round(0) }
