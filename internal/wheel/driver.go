package wheel

import (
	"errors"
	"math"
	"runtime"
	"time"

	"github.com/stashgo/stash/internal/clock"
	"github.com/stashgo/stash/poller"
)

// A driver is the wheel's consumer side: the store's read side, the near
// heap and what the walk remembers from pass to pass. Only the holder of
// the consumer role, the driver's goroutine, changes it (see consumer.go).
//
// The driver's goroutine is not locked to its OS thread. Its sleep is one
// system call, which keeps the goroutine on one thread while it lasts, so
// a lock would add no precision; and a locked goroutine that yields or
// blocks hands its P to another thread and back, two thread switches each
// time (docs/measured.md, "stashtime against time": the ticker row).
//
// Each pass walks every bucket that starts before now plus the lookahead
// (see precision.go) and examines each holder met: a stale or stopped one
// is dropped, one whose deadline is in a later bucket is re-filed in the
// store, and the rest go to the near heap. Then it fires, in
// deadline order, what the heap holds that is due. A pass walks and fires
// at most MaxBatch timers; when the walk stops early it fires only what lies
// below the store's StopFloor, so deadline order holds across batches. After
// the last pass it cleans what the walk passed, compacts the slots that
// Stop and Reset emptied (see compaction), finds the next deadline,
// publishes it, checks again, and sleeps. The files beside this one hold
// the rest of the driver: fire.go fires a timer, wakeup.go finds when to
// wake, compact.go cleans and compacts, syncs.go answers Wheel.Sync.
//
// A bucket whose backlog would take long to walk is pre-walked: from shortly
// before it starts, the passes walk it too and move the holders due in it
// into the near heap, so that when its first deadline comes the heap holds
// the whole bucket and firing starts at once.
type driver struct {
	w         *Wheel
	heap      nearHeap
	syncs     []chan struct{}
	syncAt    int64 // clock reading when syncs were last taken
	lastClean uint64
	idleSince int64 // clock reading since which no timer has been armed, or 0

	// ahead is the start of the bucket to pre-walk from the clock reading
	// aheadAt on; aheadAt is math.MaxInt64 when there is none.
	ahead, aheadAt int64

	heldFor   int   // passes in a row held back by a reserved slot
	lastFired int64 // the deadline of the last timer a pass fired

	stack  []int32    // scratch space for nearHeap.latest
	peeped []int64    // scratch space for peepWake
	taken  []nearItem // the walk's timers for the near heap, before their slack is known (see pass)
}

// run is the driver's goroutine. It ends when the wheel closes, or when
// nothing is due for a while (see endDriver), and a producer or a runtime timer
// starts it again (see wakeIfEarlier).
func (w *Wheel) run() {
	d := w.drv
	for !w.closed.Load() {
		w.sleepUntil.Store(running)
		d.acquire()
		d.takeSyncs()
		more, fired, held := d.pass()
		if more {
			// More is due. While the timers are on time, let the
			// callbacks just started run first. Once they are
			// catchUpBeyond late, or while the Ps are crowded, fire on:
			// under load the Gosched puts the driver at the back of the
			// global run queue, behind goroutines that may run a whole
			// time slice each.
			now := w.Now()
			behind := now-d.lastFired >= catchUpBeyond
			w.sleepUntil.Store(now)
			d.release()
			if fired > 0 && !behind && !w.crowded() {
				yieldBetweenBatches()
			}
			continue
		}
		if held {
			d.release()
			d.awaitProducer()
			continue
		}
		d.heldFor = 0
		d.clean()
		d.compact()
		now := w.Now()
		next := d.next(now)
		if next > d.syncAt {
			// Nothing due when the syncs were taken is left. One pass
			// is not always enough: a walk can end with a due key moved
			// out of the overflow area only as it returns.
			d.replySyncs()
		}
		again := d.publish(now, next) // see wakeup.go
		d.release()
		if again {
			continue
		}
		if w.system && next-now >= leaveBeyond && w.endDriver(next, now) {
			return
		}
		if fired > 1 && !w.crowded() {
			// Let the goroutines the pass made runnable start before the
			// driver sleeps, on this thread: asleep in the poller the
			// driver keeps its P (see doc.go), or hands it to another
			// thread. One goroutine alone waits in the P's next slot,
			// which an idle P takes whole, at once, from a P in a system
			// call: the yield would only make it later. While the Ps are
			// crowded the driver sleeps through the scheduler, which runs
			// them on this thread, and a yield would queue the driver
			// behind every goroutine waiting.
			yieldBeforeSleep()
		}
		if err := w.poller.Wait(next); err != nil {
			if errors.Is(err, poller.ErrClosed) || w.closed.Load() {
				break
			}
			// The poller failed, as none is known to. Rather than
			// leave every timer unfired, poll the clock instead.
			w.pollerErrors.Add(1)
			time.Sleep(pollerFailedPoll)
		}
		w.wakes.Add(1)
	}
	d.acquire() // for good: no pass runs on a closed wheel
	close(w.done)
}

// pass walks and fires what is due now. It reports whether it stopped at
// MaxBatch with more possibly due, how many timers it fired, and whether it
// held back due timers because the walk parked at a slot a producer has
// reserved but not yet filled: a timer filed there may be due before them.
func (d *driver) pass() (more bool, fired int, held bool) {
	w := d.w
	now := w.Now()
	w.walks.Add(1)
	w.peepEnd.Store(0) // the consumer's own filings need count nothing
	if w.onPass != nil && w.system {
		w.onPass(now)
	}
	// The walk takes every bucket up to the one starting at through, and
	// the drain files the intake's timers as the walk does: in the near
	// heap if the walk reaches their deadline, in the store otherwise.
	// Nothing listed in the intake is due by now: its floor lies beyond.
	through := d.walkEnd(now)
	w.intake.drain(now, func(e *Entry) { d.take(e, now, through) })
	if now >= d.aheadAt {
		through = max(through, d.ahead)
	}
	n, cut := 0, false
	for b, e := range w.store.Walk(uint64(max(now, through)) + 1) {
		d.examine(e, int64(b), now, through)
		if n++; n >= w.maxBatch {
			cut = true
			break
		}
	}
	// The timers the walk takes into the near heap get their slack from
	// a clock reading taken after it met them, so after they were armed:
	// now may predate the arming of one filed while the walk went on,
	// and give it more slack than its distance allows.
	seen := w.Now()
	for i, it := range d.taken {
		it.latest = addSat(it.key, w.slack(it.key-seen))
		d.heap.push(it)
		d.taken[i] = nearItem{}
	}
	d.taken = d.taken[:0]
	// The pass fires what was due at the clock reading the walk served,
	// not at a later one: a producer may have filed a timer due before
	// that later reading behind the walk, where only the next walk finds
	// it, and the heap's timers due after it must wait for it.
	floor := int64(min(w.store.StopFloor(), math.MaxInt64))
	for len(d.heap) > 0 && d.heap[0].key <= now && d.heap[0].key <= floor {
		if fired >= w.maxBatch {
			return true, fired, false
		}
		it := d.heap.pop()
		if d.fire(it, now) {
			fired++
			d.lastFired = it.key
		}
	}
	held = !cut && len(d.heap) > 0 && d.heap[0].key <= now
	return cut, fired, held
}

// awaitProducer lets the producer whose reserved slot held back a pass
// finish: it yields the processor at once, in case the producer waits for
// it, and if that was not enough, sleeps parkWait of real time before the
// next pass (not of the wheel's clock, which a test may hold still).
func (d *driver) awaitProducer() {
	d.heldFor++
	if d.heldFor <= parkSpins {
		runtime.Gosched()
		return
	}
	if d.w.system {
		d.w.poller.Wait(clock.Mono() + parkWait)
	} else {
		time.Sleep(time.Duration(parkWait))
	}
}

// crowded reports whether the poller sleeps through the scheduler because
// the Ps are crowded (see poller.Crowder). Only the driver calls it.
func (w *Wheel) crowded() bool {
	c, ok := w.poller.(poller.Crowder)
	return ok && c.Crowded()
}

// yieldBeforeSleep is the driver's yield before it sleeps, when its pass
// readied two or more goroutines; a test counts it.
var yieldBeforeSleep = runtime.Gosched

// yieldBetweenBatches is the driver's yield between two batches of timers
// on time; a test counts it.
var yieldBetweenBatches = runtime.Gosched

// catchUpBeyond is how late the last timer a batch fired must be for the
// driver to fire the next batch at once rather than yield first.
const catchUpBeyond = int64(time.Millisecond)

// pollerFailedPoll is how long the driver sleeps, in real time, when its
// poller fails to.
const pollerFailedPoll = time.Millisecond

// A producer fills the slot it reserved a few instructions later, unless it
// was preempted (or is allocating the slot's segment).
const (
	parkSpins = 16
	parkWait  = int64(20 * time.Microsecond)
)

// examine handles a holder the walk met in the bucket starting at b, in a
// pass that walks up to the bucket starting at through.
func (d *driver) examine(e *Entry, b, now, through int64) {
	e.lock()
	switch {
	case !e.inStore(b):
		// Stale: the entry has a newer holder.
	case !e.pending:
		e.unhold()
	default:
		d.take(e, now, through)
	}
	e.unlock()
}

// take gives e, pending, a holder in a pass that walks up to the bucket
// starting at through: it re-files e in the store, or keeps it for the
// near heap (see pass). e.mu is held.
func (d *driver) take(e *Entry, now, through int64) {
	mustHold(e)
	if it, near := d.refile(e, now, through); near {
		d.taken = append(d.taken, it)
	}
}
