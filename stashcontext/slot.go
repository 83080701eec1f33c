package stashcontext

import (
	"sync"
	"time"

	"github.com/stashgo/stash/internal/clock"
	"github.com/stashgo/stash/stashtime"
)

// A slot is where a timerCtx stands (timerCtx.st): a timer on the wheel
// that watches its deadline, noTimer, or,
// once the context is canceled, a final slot with its error and cause.
//
// A slot's timer outlives its contexts. A context canceled before its
// deadline returns its slot to a pool with the timer still armed, unless
// the timer is far (armed more than lazyWithin ahead), which it stops. The
// next context takes the slot and keeps the timer as it is if it fires no
// later than its own deadline, which is so when both have the same timeout:
// then neither touches the wheel. The callback looks at the slot's context
// when the timer fires: none, and the slot rests; one not yet due, and the
// callback re-arms the timer for that context's deadline; one due, and it
// expires it. So a context is done no earlier than its deadline, and no
// later than a timer armed for it would make it.
type slot struct {
	t *stashtime.Timer

	mu sync.Mutex
	// c is the context the slot watches, nil while pooled; guarded by mu.
	c *timerCtx
	// pending reports that the timer is armed or its callback is due to
	// run, and when (on clock.FromTime's scale) is when it fires, give or
	// take the scheduling delay of the Reset that armed it; far, that it
	// was armed more than lazyWithin ahead. Guarded by mu.
	pending bool
	far     bool
	when    int64
	// bubble reports a timer made inside a testing/synctest bubble, where
	// stashtime hands timers to package time, on the bubble's fake clock:
	// such a slot is never pooled, and none is taken from the pool there.
	bubble bool
	// on is the Timers of a context made by On(t).WithDeadline and its
	// kin, nil for the process-wide wheel's. Its timer is one of them,
	// and, as in a bubble, the slot is never pooled.
	on *timers

	// final reports a canceled context's slot, never changed; err is its
	// error and cause its cause, nil if that is err.
	final bool
	err   error
	cause error
}

// lazyWithin bounds how long a timer may stay armed for no context: a
// canceled context stops a timer armed further ahead than that, and pools
// one armed nearer still armed.
const lazyWithin = 2 * time.Second

// noTimer is the slot of a context that needs no timer of its own.
var noTimer = &slot{}

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

var slots sync.Pool // of *slot, c nil

// newSlot returns a slot that watches c, whose deadline is dur after the
// reading now (bubble: taken inside a testing/synctest bubble), with its
// timer one of on's (nil: the process-wide wheel's).
func newSlot(c *timerCtx, now int64, dur time.Duration, bubble bool, on *timers) *slot {
	if !bubble && on == nil {
		if s, _ := slots.Get().(*slot); s != nil {
			s.mu.Lock()
			s.c = c
			if !s.pending || s.when > now+int64(dur) {
				s.reset(now, dur)
			} else {
				counters.reused.Add(1)
			}
			s.mu.Unlock()
			return s
		}
	}
	s := &slot{c: c, bubble: bubble, on: on}
	s.mu.Lock()
	if on != nil {
		s.t = on.AfterFunc(dur, s.fire)
	} else {
		s.t = stashtime.AfterFunc(dur, s.fire)
	}
	counters.armed.Add(1)
	s.setWhen(now, dur)
	s.mu.Unlock()
	return s
}

// reset arms the timer dur after the reading now. s.mu is held.
func (s *slot) reset(now int64, dur time.Duration) {
	s.t.Reset(dur)
	counters.armed.Add(1)
	s.setWhen(now, dur)
}

func (s *slot) setWhen(now int64, dur time.Duration) {
	s.pending, s.far, s.when = true, dur > lazyWithin, now+int64(dur)
}

// fire is the timer's callback. It re-arms the timer for the slot's
// context if that is not yet due (the timer was armed for an earlier one),
// and expires it otherwise.
func (s *slot) fire() {
	counters.fired.Add(1)
	s.mu.Lock()
	c := s.c
	if c != nil {
		if st := c.st.Load(); st == nil || !st.final {
			if now, dur, _ := remaining(c.deadline, s.on); dur > 0 {
				s.reset(now, dur)
				s.mu.Unlock()
				return
			}
		}
	}
	s.pending = false
	s.mu.Unlock()
	if c != nil && c.expireFrom(s) {
		s.put()
	}
}

// put lets go of the slot's context (and with it the context's parents and
// values) and pools the slot, its timer stopped if it is far.
func (s *slot) put() {
	s.mu.Lock()
	s.c = nil
	private := s.bubble || s.on != nil
	if s.pending && (s.far || private) && s.t.Stop() {
		s.pending = false
	}
	s.mu.Unlock()
	if !private {
		counters.pooled.Add(1)
		slots.Put(s)
	}
}

// remaining returns a reading now and the time dur left then until the
// deadline d, and whether the caller is inside a testing/synctest bubble.
// For a context on the Timers on (not nil), dur is what is left on their
// clock, and now is 0: its slot is never pooled, so its when is
// never compared.
// A d with a monotonic reading (time.Now's, outside a bubble) is compared
// with a reading of the monotonic clock alone, which costs about half of
// time.Now. now is on clock.FromTime's scale, or meaningless in a bubble.
// Inside a bubble, a deadline taken outside it that has passed on the real
// clock has dur 0.
func remaining(d time.Time, on *timers) (now int64, dur time.Duration, bubble bool) {
	if on != nil {
		return 0, on.Until(d), false
	}
	if d != d.Round(0) {
		if now, ok := clock.TimeNow(); ok {
			return now, time.Duration(clock.FromTime(d) - now), false
		}
	}
	t := time.Now()
	if inBubble(t) {
		if d != d.Round(0) && clock.FromTime(d) <= clock.Mono() {
			// A deadline taken outside the bubble that has passed on
			// the real clock, where package context's timer for it
			// runs: it has expired. (One that has not is armed for what
			// its wall clock reading says is left on the fake clock's,
			// which starts in 2000: see doc.go.)
			return 0, 0, true
		}
		return 0, d.Sub(t), true
	}
	return clock.FromTime(t), d.Sub(t), false
}

// inBubble reports whether now, a reading of time.Now, was taken inside a
// testing/synctest bubble: the fake clock there has no monotonic reading.
func inBubble(now time.Time) bool { return now == now.Round(0) }
