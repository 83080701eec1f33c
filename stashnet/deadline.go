package stashnet

import (
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stashgo/stash/internal/clock"
	"github.com/stashgo/stash/stashtime"
)

// A deadline's int64 form is a reading of clock.Mono, the monotonic clock
// the wheel and the idle timers read, so that a deadline compares with
// their readings as it is; on a connection made WithWheel, a reading of
// that wheel's clock (see timeSource). base is a time.Time and baseMono
// its reading, as clock.FromTime converts it (late by a few nanoseconds,
// never early): nanos converts any other time.Time through them.
var (
	base     = time.Now()
	baseMono = clock.FromTime(base)
)

// aLongTimeAgo is the past deadline an expired direction sets on the inner
// connection, as net/http does to abort a pending Read.
var aLongTimeAgo = time.Unix(1, 0)

// The states of deadline.dl besides a deadline (> 0) and a cleared
// deadline whose timer may still be armed (minus the deadline it was
// armed for, or a later one).
const (
	noTimer     = math.MinInt64     // no deadline and no arming to rely on
	expired     = math.MinInt64 + 1 // passed: the inner deadline is in the past
	closed      = math.MinInt64 + 2 // the connection is closed
	maxDeadline = math.MaxInt64 - 3 // so that no -deadline is one of the above
)

// isMark reports whether v is one of the states above rather than a
// deadline or a cleared one.
func isMark(v int64) bool { return v <= closed }

// nanos returns t as a reading of clock.Mono, as clock.FromTime does but
// at most maxDeadline; a time before the clock's origin comes out negative
// or zero, which is in the past. A Time without a monotonic reading
// converts by its wall reading.
func nanos(t time.Time) int64 {
	return baseMono + min(int64(t.Sub(base)), maxDeadline-baseMono)
}

// A deadline is one direction's deadline (read or write) on the wheel.
//
// dl holds the deadline. While it is positive, the direction's timer is
// armed at or before it, or its callback is on its way; either re-examines
// dl. Pushing the deadline later therefore only stores the new value (one
// CAS), and so does clearing it: dl becomes minus the deadline, which
// records that the timer still fires at or before that instant, so that a
// deadline set again at least that late needs no arming either. Everything
// else (a deadline earlier than the arming, one in the past, a clear or a
// set after expiry) takes mu, as does the timer's callback; the marks
// noTimer, expired and closed change only under mu.
//
// armed is the instant the timer was last armed for, written under mu. A
// deadline pushed later while the timer is due in less than half the new
// deadline's distance (see early) takes mu too, and moves the timer to the
// new deadline. The wheel's driver sleeps until the earliest instant a
// timer is armed for, and wakes then even if the timer has moved since, so
// every timer that comes due wakes it, fired or not: each wake-up costs
// the process thread switches. A connection that keeps pushing its
// deadline (http.Server does, on every request) thus re-arms its timer
// itself about twice per timeout, a lock and a Reset each, and keeps it
// at least half a timeout ahead, instead of having the timer fire only to
// find the deadline moved, or move it at the last moment, after the driver
// has planned its wake-up for it.
type deadline struct {
	dl    atomic.Int64
	armed atomic.Int64
	mu    sync.Mutex
	timer *stashtime.Timer      // under mu; nil until first armed
	set   func(time.Time) error // the inner connection's SetReadDeadline or SetWriteDeadline
	// src is the wheel and clock of a connection made WithWheel, nil for
	// the process-wide wheel: dl, armed and the readings compared with
	// them are its clock's.
	src *timeSource
}

func (d *deadline) init(set func(time.Time) error, src *timeSource) {
	d.set, d.src = set, src
	d.dl.Store(noTimer)
}

// setDeadline sets the direction's deadline to t; zero clears it.
func (d *deadline) setDeadline(t time.Time) error {
	if t.IsZero() {
		for {
			cur := d.dl.Load()
			switch {
			case cur > 0:
				if d.dl.CompareAndSwap(cur, -cur) {
					return nil
				}
			case cur == noTimer || !isMark(cur):
				return nil // already clear
			default:
				return d.slowSet(0, true)
			}
		}
	}
	var v, now int64
	if d.src == nil {
		v, now = nanos(t), clock.Mono()
	} else {
		v, now = d.src.nanos(t), d.src.now()
	}
	if v <= now {
		return d.slowSet(v, false)
	}
	return d.setNanos(v, now)
}

// setTimeout sets the direction's deadline to dur from now, reading only
// the monotonic clock.
func (d *deadline) setTimeout(dur time.Duration) error {
	var now int64
	if d.src == nil {
		now = clock.Mono()
	} else {
		now = d.src.now()
	}
	if dur <= 0 {
		return d.slowSet(now, false)
	}
	return d.setNanos(now+min(int64(dur), maxDeadline-now), now)
}

// setNanos sets the direction's deadline to v, in nanos, which was in the
// future at now, the caller's reading of the clock. A deadline already
// past must take the slow path, which fails I/O at once: the fast path
// would leave that to the timer, armed for an instant that may have passed
// without its firing yet.
func (d *deadline) setNanos(v, now int64) error {
	for {
		cur := d.dl.Load()
		// The timer fires at or before |cur|: a deadline no earlier
		// needs nothing else, unless the timer fires early for it.
		if isMark(cur) || (cur > 0 && v < cur) || (cur < 0 && v < -cur) || early(d.armed.Load(), v, now) {
			return d.slowSet(v, false)
		}
		if d.dl.CompareAndSwap(cur, v) {
			return nil
		}
	}
}

// slowSet sets the deadline under mu to v, in nanos, or clears it.
func (d *deadline) slowSet(v int64, clear bool) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	cur := d.dl.Load()
	if cur == closed {
		// The inner connection's error for use after Close.
		if clear {
			return d.set(time.Time{})
		}
		return d.set(d.src.timeOf(v))
	}
	if clear {
		if cur == expired {
			if err := d.set(time.Time{}); err != nil {
				return err
			}
			// A timer still armed, as after a past deadline set
			// before its firing, is one to rely on.
			if a := d.armed.Load(); a > d.src.now() {
				d.dl.Store(-a)
			} else {
				d.dl.Store(noTimer)
			}
			return nil
		}
		// Not a mark after all (a fast path moved it): clear it.
		for cur > 0 && !d.dl.CompareAndSwap(cur, -cur) {
			cur = d.dl.Load()
		}
		return nil
	}
	now := d.src.now()
	if v <= now {
		// Past: fail the direction's I/O at once. The timer, if
		// armed, finds expired and does nothing.
		cur = d.dl.Swap(expired)
		if cur == expired {
			return nil
		}
		counters.past.Add(1)
		return d.set(aLongTimeAgo)
	}
	cur = d.dl.Swap(v)
	if cur == expired {
		if err := d.set(time.Time{}); err != nil {
			return err
		}
	}
	if d.mustArm(cur, v, now) {
		d.arm(now, v)
	}
	return nil
}

// mustArm reports whether the timer must be armed for the deadline v, set
// at now over cur: unless it is known to fire at or before v, and not
// early for it. mu is held.
func (d *deadline) mustArm(cur, v, now int64) bool {
	a := d.armed.Load()
	switch {
	case cur == noTimer:
		return true
	case cur == expired: // the timer is still armed if a is ahead
		if a <= now || v < a {
			return true
		}
	case cur > 0:
		if v < cur {
			return true
		}
	default: // cleared
		if v < -cur {
			return true
		}
	}
	return early(a, v, now)
}

// early reports whether a timer armed for a fires early for a deadline v
// set at now: within the nearer half of v's distance, where the timer is
// moved to v rather than left to fire or to come due (see deadline).
func early(a, v, now int64) bool { return a-now < (v-now)/2 }

// arm arms the timer to fire at at, later than now. mu is held.
func (d *deadline) arm(now, at int64) {
	d.armed.Store(at)
	d.timer = d.src.armAt(d.timer, d.fire, now, at)
}

// fire is the timer's callback: it expires the direction if its deadline
// has passed, re-arms the timer if the deadline was pushed later, and lets
// it rest if the deadline was cleared.
func (d *deadline) fire() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for {
		cur := d.dl.Load()
		switch {
		case isMark(cur):
			return // stale: a slow set or Close has been here
		case cur < 0:
			if d.dl.CompareAndSwap(cur, noTimer) {
				return
			}
		default:
			now := d.src.now()
			if cur > now {
				if d.src.exact() {
					d.arm(now, cur) // no wake-ups to share: see rearmAt
				} else {
					d.arm(now, rearmAt(cur, now))
				}
				return
			}
			if d.dl.CompareAndSwap(cur, expired) {
				counters.expiries.Add(1)
				_ = d.set(aLongTimeAgo) // an error means the connection is closed
				return
			}
		}
	}
}

// check expires the direction if its deadline has passed, before the
// direction's I/O: the timer fires some time after the deadline (the
// wheel's precision rule, and the goroutine its callback runs in), and
// until then the inner connection's deadline is not yet in the past, so
// that I/O would go through. Package net fails it from the deadline on.
// With a deadline set it costs a clock read; without one, an atomic load.
// In a direction expired already it waits for mu: the timer marks the
// direction expired before it moves the inner deadline, under mu.
func (d *deadline) check() {
	switch v := d.dl.Load(); {
	case v > 0:
		if v <= d.src.now() {
			d.expire()
		}
	case v == expired:
		d.mu.Lock()
		d.mu.Unlock()
	}
}

// expire expires the direction, as its timer does, if its deadline has
// passed; the timer, when it fires, finds it expired and does nothing.
func (d *deadline) expire() {
	d.mu.Lock()
	defer d.mu.Unlock()
	for {
		cur := d.dl.Load()
		if cur <= 0 || cur > d.src.now() {
			return // a mark, cleared, or pushed later meanwhile
		}
		if d.dl.CompareAndSwap(cur, expired) {
			counters.expiries.Add(1)
			_ = d.set(aLongTimeAgo) // an error means the connection is closed
			return
		}
	}
}

// rearmAt returns when a timer that found its deadline pushed later, to
// dl, fires next: at the last point of the coarse clock's grid (see
// coarse.go) before dl, if one lies ahead, and at dl itself otherwise. A
// busy connection's timer keeps finding its deadline pushed, once per
// timeout; on the grid, those of all connections share the wheel's
// wake-ups, with each other and with the idle timers, instead of waking
// its driver once each. A deadline not pushed again costs one more firing,
// at dl itself, less than a tick later.
func rearmAt(dl, now int64) int64 {
	if at := gridDown(dl, 0); at > now {
		return at
	}
	return dl
}

// close marks the direction closed and stops its timer.
func (d *deadline) close() {
	d.mu.Lock()
	d.dl.Store(closed)
	if d.timer != nil {
		d.timer.Stop()
	}
	d.mu.Unlock()
}
