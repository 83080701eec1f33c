package wheel

import (
	"math/bits"
	"time"
)

// The precision rule. A timer armed d ahead of the clock fires no earlier
// than its deadline and at most slack(d) after it, where slack(d) is a
// power of two between a 32nd and a 16th of d, capped at the wheel's
// Options.Slack (DefaultSlack, about 524 µs, unless set):
//
//	armed d ahead     may fire up to
//	below 32 ns       0 (exact)
//	100 µs            4 µs
//	1 ms              32 µs
//	4 ms              131 µs
//	8.4 ms or more    524 µs (the cap)
//
// The slack lets timers due within a window fire in one wake-up instead of
// one each: when the driver wakes for them is the wake-up rule (wakeup.go)
// and nearHeap.wake (heap.go). Deadline order holds among the timers one
// wake-up fires; across wake-ups, a timer may fire before one due earlier
// only within the latter's slack.
//
// A timer's slack is measured from when the driver takes it into the near
// heap, not from its arming: the driver takes a timer in no later than a
// lookahead before its deadline (see Wheel.lookahead), long enough for the
// cap, so a timer armed further ahead than the lookahead gets the cap. One
// armed nearer may get less, if the driver takes it in later than it was
// armed; it never gets more.

// DefaultSlack is the cap on slack of a wheel configured with none: about
// 524 µs, the slack of a timer armed 8.4 ms or more ahead.
const DefaultSlack = 1 << 19

// MaxSlack is the largest cap on slack a wheel takes: about 1 ms. Its
// lookahead then stays well below intakeAhead.
const MaxSlack = 1 << 20

// slack returns how long after its deadline a timer armed d ahead may
// fire.
func (w *Wheel) slack(d int64) int64 {
	if d < 32 {
		return 0
	}
	return min(int64(1)<<(bits.Len64(uint64(d))-5), w.maxSlack)
}

// lookaheadFor returns how far ahead of the clock the driver takes timers
// into its near heap, for a wheel whose slack is at most max: twice the
// distance from which slack reaches max, so that a timer taken in at the
// lookahead, some time into it, still gets it. Zero for exact timers.
func lookaheadFor(max int64) int64 {
	if max <= 0 {
		return 0
	}
	return int64(1) << (bits.Len64(uint64(max-1)) + 5)
}

// SlackCap turns a configured slack (stashtime's Options.Slack) into the
// cap on slack: 0 means DefaultSlack, a negative slack makes every timer
// exact, and one above MaxSlack counts as that.
func SlackCap(s time.Duration) int64 {
	switch {
	case s == 0:
		return DefaultSlack
	case s < 0:
		return 0
	}
	return int64(min(s, MaxSlack))
}
