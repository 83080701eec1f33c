package stashtime

import (
	"math"
	"time"
)

// next returns the deadline to sleep to: the soonest of the near heap's
// latest instant (see precision.go), the overflow area's lowest key and the
// wake-up for the first bucket beyond the walk that holds anything (see
// wakeFor). Waking a lookahead before a bucket starts, the pass moves the
// bucket's holders into the near heap (or fires them), so finding the next
// deadline never scans a bucket, and unless a bucket's backlog grows while
// the driver waits for it, the driver wakes at most twice per non-empty
// bucket beyond the timers themselves.
//
// The driver never sleeps in the kernel longer than maxSleep. Once no timer
// has been armed for maxSleep it returns math.MaxInt64, whatever stale
// holders remain: the driver then parks on a Go channel, not in a system
// call, so that the runtime still reports a deadlock in a program that has
// one (within two maxSleeps of its last Stop). Parking at once would cost a
// wake-up system call in every Stop that disarms the last timer, and
// another in the next start.
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
	if w.live() > 0 {
		d.idleSince = 0
		return min(next, addSat(now, maxSleep))
	}
	if d.idleSince == 0 {
		d.idleSince = now
	}
	if now-d.idleSince >= maxSleep {
		return math.MaxInt64
	}
	return min(next, addSat(d.idleSince, maxSleep))
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
// again halfway to b each time it finds a backlog of more than one new or
// grown (down to lookMin before b), and in any case maxAhead before b.
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
			d.look.bucket, d.look.backlog, d.look.at = b, n, 0
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
	if b != d.look.bucket || n > d.look.backlog {
		d.look.bucket, d.look.backlog, d.look.at = b, n, 0
		if n > 1 && b-now > 2*lookMin {
			d.look.at = now + (b-now)/2
		}
	}
	if d.look.at > now {
		wake = min(wake, d.look.at)
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
	n := 0
	end := addSat(b, w.bucket+w.maxSlack+1)
	for _, e := range w.store.PeepRange(uint64(b), uint64(end)) {
		if n++; n > peepMax {
			return 0, false
		}
		when := e.dl.Load()
		if when < 0 {
			when = ^when // open: see entry.unlock
		}
		// A live holder lies at or before its deadline; one that lies
		// after it is stale, and the walk must reach it to drop it.
		when = max(when, b)
		latest = min(latest, addSat(when, w.slack(when-now)))
		if when < first {
			first, second = when, first
		} else if when < second {
			second = when
		}
	}
	if n == 0 {
		return 0, false
	}
	// A holder beyond the peeped range lies at or after end, and so is
	// due no sooner: wake by then to take it in, whatever was peeped.
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
	// it.
	maxAhead = int64(500 * time.Millisecond)
	// lookMin is how close to a bucket's start the driver stops looking
	// again at a growing backlog.
	lookMin = int64(time.Millisecond)
)
