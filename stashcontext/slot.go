package stashcontext

import (
	"sync"
	"time"

	"github.com/stashgo/stash/stashtime"
)

// A slot is a deadline's timer on the wheel. A context that is canceled
// before its deadline stops its slot's timer and, once Stop says the
// callback will not run, returns the slot to a pool, so that the next
// context re-arms the timer with Reset instead of allocating one.
type slot struct {
	t *stashtime.Timer
	// c is the context the timer is armed for. It is set before the
	// timer is armed, and read by the callback, which runs after that.
	c *timerCtx
	// bubble reports a timer made inside a testing/synctest bubble, where
	// stashtime hands timers to package time, on the bubble's fake clock:
	// such a slot is never pooled, and none is taken from the pool there.
	bubble bool
}

var slots sync.Pool // of *slot, their timers stopped

// arm sets c.slot to a slot whose timer cancels c after d. c.slot is set
// before the timer is armed; s.t, which only release reads, once it is.
// A slot whose timer fired is never reused, so its callback reads the c
// that armed it.
func arm(c *timerCtx, d time.Duration, bubble bool) {
	if bubble {
		s := &slot{c: c, bubble: true}
		c.slot = s
		s.t = stashtime.AfterFunc(d, s.fire)
		return
	}
	if s, _ := slots.Get().(*slot); s != nil {
		s.c = c
		c.slot = s
		s.t.Reset(d)
		return
	}
	s := &slot{c: c}
	c.slot = s
	s.t = stashtime.AfterFunc(d, s.fire)
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

// inBubble reports whether now, a reading of time.Now, was taken inside a
// testing/synctest bubble: the fake clock there has no monotonic reading.
func inBubble(now time.Time) bool { return now == now.Round(0) }
