package wheel

import (
	"math"
	"time"

	"github.com/stashgo/stash/poller"
)

// The wake-up rule. The driver's armed instant, Wheel.sleepUntil, is when
// its poller will wake it (running while it works). Whenever the driver
// sleeps, the armed instant is no later than the latest instant (deadline
// plus slack: see precision.go) of every pending timer:
//
//	sleepUntil <= min latest(t) over every pending timer t
//
// unless the clock has passed it, and then the driver is awake or being
// woken. Two moves change the armed instant, and every path that arms a
// timer or puts the driver to sleep takes one of them (a driver that has
// left, see endDriver, counts as asleep toward its armed instant):
//
//  1. Producers lower it. Whoever arms a timer (a start, Entry.Reset,
//     ResetTicker, SleepFor), whether it lists the timer in the intake, files
//     it in the store or moves its deadline in place, calls notify once the
//     timer is where the consumer will find it: wakeIfEarlier lowers the
//     armed instant to the timer's latest instant if that is earlier, and
//     then wakes the driver. Stop only removes a latest instant, and a
//     Reset to a later deadline in place (one CAS, see Entry.Reset) only
//     raises one: it is taken only for a timer armed far enough ahead that
//     its slack is at the cap, where a later deadline cannot have an
//     earlier latest instant.
//  2. The consumer raises it, holding the consumer role (see consumer.go):
//     the driver, before it sleeps (publish). It raises it only to next,
//     a lower bound of the latest instant of every pending timer, taken
//     from where the timers wait:
//     the near heap's earliest latest instant (nearHeap.wake); for the
//     store, a wake-up no later than the start of the first bucket that
//     holds anything (wakeFor), since every holder lies at or before its
//     timer's deadline; the overflow area's lowest key; and nothing for the
//     intake, since the driver never sleeps with a timer listed (the drain
//     files them). Then it computes next again: a producer that made its
//     timer visible before the armed instant was raised, but read it while
//     the driver was running (and so lowered nothing), is seen by the second
//     computation, and one that reads it after lowers it itself. If the
//     second is earlier, or a timer was listed meanwhile, the driver goes
//     round again.
//
// One more move raises it outside the consumer role, and only to
// NoDeadline: a Stop that finds the driver gone and no timer pending
// (dropRestart). It counts the pending timers again after the raise, and
// restarts the driver if a producer armed one meanwhile, so the rule holds
// as it does after the consumer's raise.
//
// What the consumer does to the timers themselves (the walk's re-filing,
// the drain, a ticker's re-arm, compaction) it does while it holds the role,
// before it computes next, and needs nothing more. Everything else only
// makes the driver wake sooner than the rule asks: maxSleep, reading a
// bucket's backlog again maxAhead before it, pre-walking, the count of
// timers filed into a peeped bucket, and the wake-ups producers ask for to
// have the intake drained. With no timer pending for maxSleep, next is NoDeadline and the
// driver parks; the first producer to arm a timer then lowers the armed
// instant from there.
//
// In test binaries built with the stashcheck tag, a checker compares the
// armed instant with a brute-force minimum over every pending timer after
// each round of the driver and each producer call (see wakecheck.go).

// endDriver lets the driver's goroutine end, and its thread go, on the system
// clock, while it would
// sleep toward next, at least leaveBeyond after now: nothing is pending
// (next is NoDeadline), or nothing is due for a while, and then a runtime
// timer brings it back reviveLead before next. The armed instant stays
// next, so a producer that needs the driver sooner lowers it and starts a
// new driver goroutine (wakeIfEarlier): the driver sets driverGone and then
// reads the armed instant, the producer lowers the armed instant and then
// reads driverGone, and so one of them sees the other. It reports whether the
// driver is to end: false if the armed instant was lowered meanwhile and
// this driver goes on. The consumer role is not held.
func (w *Wheel) endDriver(next, now int64) bool {
	if next != poller.NoDeadline {
		// Armed before driverGone is set, so that a driver started after it
		// re-arms it later, never before.
		wait := time.Duration(max(next-now-reviveLead, 0))
		if w.restart == nil {
			w.restart = time.AfterFunc(wait, w.restartDriver)
		} else {
			w.restart.Reset(wait)
		}
	}
	w.driverGone.Store(true)
	if w.sleepUntil.Load() < next && w.driverGone.CompareAndSwap(true, false) {
		return false // a producer lowered it, and started no driver
	}
	return true
}

// dropRestart is called after a Stop disarmed a timer. If the driver has
// left and no timer is pending any more, it takes the runtime timer that
// would bring the driver back out of the runtime's heap, so that a program
// blocked for good is reported as deadlocked as soon as with package time.
// It fires that timer now rather than stop it (a stopped one may stay in
// its P's heap until its instant), and restartDriver then finds nothing to come
// back for.
//
// It raises the armed instant to NoDeadline first: a producer that arms a
// timer from then on finds it above its own and starts the driver. Then it
// counts the pending timers again, for a producer that armed one before
// the raise and left the driver to the runtime timer: the counts are read
// after the raise, so they include that timer. No lock is held.
func (w *Wheel) dropRestart() {
	if !w.driverGone.Load() || w.Live() > 0 {
		return
	}
	su := w.sleepUntil.Load()
	if su == poller.NoDeadline || !w.sleepUntil.CompareAndSwap(su, poller.NoDeadline) {
		return
	}
	w.restart.Reset(0) // set before driverGone, which this goroutine has seen
	if w.Live() > 0 {
		w.wakeIfEarlier(w.Now())
	}
}

// restartDriver starts the driver a little before the instant it left for,
// or, if the runtime ran it late, after: then the armed instant has
// passed, and lowering it to the clock would not start the driver.
func (w *Wheel) restartDriver() {
	if w.sleepUntil.Load() == poller.NoDeadline {
		return // nothing is pending (see dropRestart); a producer starts the driver
	}
	if w.driverGone.Load() && w.driverGone.CompareAndSwap(true, false) {
		go w.run()
		return
	}
	w.wakeIfEarlier(w.Now())
}

const (
	// leaveBeyond is how far ahead the driver's next wake-up must be
	// for its goroutine to end meanwhile.
	leaveBeyond = int64(100 * time.Millisecond)
	// reviveLead is how long before that wake-up the runtime timer
	// brings it back: more than the runtime's timers are commonly late.
	reviveLead = int64(5 * time.Millisecond)
	// idleLeave is how long the driver waits with no timer pending before
	// it leaves: short enough that a leak checker run at the end of a
	// test, which retries for a while (goleak: about 0.4 s), sees no
	// goroutine of the wheel's, even after the driver slept toward a
	// timer stopped since (up to leaveBeyond), and long enough that a
	// program arming a timer now and then does not start a goroutine for
	// each.
	idleLeave = int64(100 * time.Millisecond)
)

// notify tells the consumer of a timer e that a producer armed at now for
// when, and made visible: it lowers the armed instant to the timer's latest
// instant, by the precision rule. The caller holds no entry's lock.
func (w *Wheel) notify(e *Entry, now, when int64) {
	w.wakeIfEarlier(addSat(when, w.slack(when-now)))
	checkArmed(e, now, when)
}

// wakeIfEarlier lowers the armed instant to when if that is earlier, and
// then wakes the driver to sleep again toward it, or starts it if it has
// left (see endDriver).
func (w *Wheel) wakeIfEarlier(when int64) {
	for {
		d := w.sleepUntil.Load()
		if when >= d {
			return
		}
		if w.sleepUntil.CompareAndSwap(d, when) {
			if w.driverGone.Load() && w.driverGone.CompareAndSwap(true, false) {
				go w.run() // the driver had left (see endDriver)
				return
			}
			w.poller.Wake()
			return
		}
	}
}

// publish raises the armed instant to next, which the driver computed at
// now, and reports whether the driver must go round again instead of
// sleeping: a timer was made visible meanwhile that next does not serve,
// or one was listed, or next has come. The consumer role is held.
func (d *driver) publish(now, next int64) (again bool) {
	mustHoldRole(d.w)
	w := d.w
	w.sleepUntil.Store(next)
	again = d.next(now) < next || w.Now() >= next || w.intake.waiting()
	if again {
		w.sleepUntil.Store(running) // it will not sleep to next
		return true
	}
	checkAsleep(w, "the driver, before it sleeps")
	return false
}

// next returns the deadline to sleep to: the soonest of the near heap's
// latest instant (see precision.go), the overflow area's lowest key and the
// wake-up for the first bucket beyond the walk that holds anything (see
// wakeFor). Waking a lookahead before a bucket starts, the pass moves the
// bucket's holders into the near heap (or fires them), so finding the next
// deadline never scans a bucket, and unless a bucket's backlog grows while
// the driver waits for it, the driver wakes at most twice per non-empty
// bucket beyond the timers themselves.
//
// While timers are pending, the driver wakes at least every maxSleep.
// Once none has been for idleLeave it returns NoDeadline, whatever stale
// holders remain, and the driver leaves (see endDriver): no goroutine of the
// wheel's is left, so the runtime still reports a deadlock in a program
// that has one, and leak checkers see nothing. Leaving at once would cost
// a goroutine start in the next timer after every Stop that disarms the
// last one.
func (d *driver) next(now int64) int64 {
	w := d.w
	var next int64
	next, d.stack = d.heap.wake(d.stack)
	if m, ok := w.store.OverflowMin(); ok && m < uint64(next) {
		next = int64(m)
	}
	d.ahead, d.aheadAt = 0, math.MaxInt64
	if b, ok := w.store.NextBucket(uint64(next)); ok {
		next = min(next, d.wakeFor(int64(b), now))
	}
	if w.Live() > 0 {
		d.idleSince = 0
		return min(next, addSat(now, maxSleep))
	}
	if d.idleSince == 0 {
		d.idleSince = now
	}
	if now-d.idleSince >= idleLeave {
		return poller.NoDeadline
	}
	return min(next, addSat(d.idleSince, idleLeave))
}

// addSat returns a+b for b >= 0, or math.MaxInt64 if that overflows.
func addSat(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// maxSleep bounds one sleep of the driver in the kernel.
const maxSleep = int64(time.Second)

// wakeFor returns when to wake for the bucket starting at b, the first that
// holds anything.
//
// A bucket of a few holders (peepMax) is peeped: the driver wakes when the
// first timer in it must fire by the precision rule, as if the near heap
// held them (see peepWake), so that a sparse bucket costs one wake-up, not
// one to take its timers in and one to fire them. Producers then count the
// timers they file within what the walk at that wake-up takes in
// (Wheel.peepEnd), and the one that brings the count to peepMax wakes the
// driver to look again (see noteFiled).
//
// Otherwise it wakes a lookahead before b, or earlier if the backlog is
// more than a few batches: such a bucket is pre-walked from b less an
// estimate of the walk's time (never before now), so that the near heap
// holds all of it by its first deadline. A producer filing into b does not
// wake the driver then, so the backlog may grow unseen: the driver looks
// again maxAhead before b.
func (d *driver) wakeFor(b, now int64) int64 {
	w := d.w
	// Count the filings from here on, so that none between the backlog's
	// reading and the peep goes uncounted.
	w.peepAdds.Store(0)
	w.peepEnd.Store(math.MaxInt64)
	n := w.store.Backlog(uint64(b))
	if n <= min(peepMax, 4*w.maxBatch) {
		if t, ok := d.peepWake(b, now); ok {
			w.peepEnd.Store(addSat(t, w.lookahead+w.bucket))
			if b-maxAhead > now {
				t = min(t, b-maxAhead)
			}
			return t
		}
	}
	w.peepEnd.Store(0)
	wake := b - w.lookahead
	// A holder the pre-walk re-files in the store must land beyond b, and
	// file files a far timer at least farMin after now.
	lead := min(int64(n)*walkCost, maxAhead, w.farMin-2*w.bucket)
	if n > 4*w.maxBatch && lead > 0 {
		d.ahead, d.aheadAt = b, max(b-lead, now)
		wake = min(wake, d.aheadAt)
	}
	if b-maxAhead > now {
		wake = min(wake, b-maxAhead)
	}
	return wake
}

// peepWake returns when the first of the timers filed from bucket b on must
// fire: the earliest deadline plus slack among them (the slack of a timer
// taken into the near heap at now), or the deadline of the first if it is
// alone in that window, as nearHeap.wake has it. It reads the deadlines
// without the entries' locks: a deadline moved later since (Reset's CAS)
// makes the wake-up early, never late, and one moved earlier comes with
// its producer's wake-up. It looks at the buckets that instant can reach,
// and gives up (ok false) past peepMax holders.
func (d *driver) peepWake(b, now int64) (wake int64, ok bool) {
	w := d.w
	first, second, latest := int64(math.MaxInt64), int64(math.MaxInt64), int64(math.MaxInt64)
	end := addSat(b, w.bucket+w.maxSlack+1)
	peeped := d.peeped[:0]
	for _, e := range w.store.PeepRange(uint64(b), uint64(end)) {
		if len(peeped) == peepMax {
			return 0, false
		}
		when := e.dl.Load()
		if when < 0 {
			when = ^when // open: see Entry.unlock
		}
		// A live holder lies at or before its deadline; one that lies
		// after it is stale, and the walk must reach it to drop it.
		peeped = append(peeped, max(when, b))
	}
	d.peeped = peeped
	n := len(peeped)
	// Each slack is measured from a clock reading taken after the timer
	// was filed, so after it was armed: a reading from before could give
	// it more slack than its distance allows.
	seen := max(w.Now(), now)
	for _, when := range peeped {
		latest = min(latest, addSat(when, w.slack(when-seen)))
		if when < first {
			first, second = when, first
		} else if when < second {
			second = when
		}
	}
	// A holder beyond the peeped range lies at or after end, and so is
	// due no sooner: wake by then to take it in, whatever was peeped. So
	// does one the peep did not see because it lies behind a slot a
	// producer has reserved but not yet filled.
	end = min(end, int64(min(w.store.PeepFloor(), math.MaxInt64)))
	if n == 0 {
		return 0, false // wakeFor wakes a lookahead before b
	}
	if second > latest {
		return max(min(first, end), now), true // alone in its window
	}
	return max(min(latest, end), now), true
}

// noteFiled counts a timer a producer filed at key while the driver
// sleeps toward a peeped bucket, and wakes the driver once peepMax have
// been filed within what its walk will take in (see wakeFor).
func (w *Wheel) noteFiled(key, now int64) {
	if end := w.peepEnd.Load(); end != 0 && key <= end && w.peepAdds.Add(1) == peepMax {
		w.wakeIfEarlier(now)
	}
}

const (
	// peepMax is the most holders a bucket may have for the driver to
	// peep it rather than wake a lookahead before it, and how many more
	// filed meanwhile have it look again.
	peepMax = 64
	// walkCost is a generous estimate of the time a pass takes to walk one
	// holder into the near heap.
	walkCost = 200 // ns
	// maxAhead bounds how long before a bucket starts the driver pre-walks
	// it, and is when it looks at the bucket's backlog again.
	maxAhead = int64(500 * time.Millisecond)
)
