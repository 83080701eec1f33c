package stashtime

import (
	"errors"
	"math"
	"runtime"
	"time"

	"github.com/stashgo/stash/internal/clock"
	"github.com/stashgo/stash/internal/stash"
	"github.com/stashgo/stash/poller"
)

// A driver is the wheel's single consumer. It runs on one goroutine locked
// to its OS thread and owns the store's read side and the near heap.
//
// Each pass walks every bucket that starts at or before now and examines
// each holder met: a stale or stopped one is dropped, one whose deadline is
// in a later bucket is re-filed in the store, and the rest (due, or due
// later in the bucket now is in) go to the near heap. Then it fires, in
// deadline order, what the heap holds that is due. A pass walks and fires
// at most MaxBatch timers; when the walk stops early it fires only what lies
// below the store's StopFloor, so deadline order holds across batches. After
// the last pass it cleans what the walk passed, compacts the slots that
// Stop and Reset emptied (see compaction), finds the next deadline,
// publishes it, checks again, and sleeps.
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
	// lookB is the bucket wakeFor last looked at, lookN its backlog then,
	// and lookAt when to look at it again.
	lookB, lookAt int64
	lookN         int

	heldFor int // passes in a row held back by a reserved slot

	stack []int32 // scratch space for nearHeap.latest
}

func (w *Wheel) run() {
	runtime.LockOSThread()
	defer close(w.done)
	d := w.drv
	defer d.acquire() // for good: no helper runs a pass on a closed wheel
	for !w.closed.Load() {
		w.sleepUntil.Store(running)
		d.acquire()
		d.takeSyncs()
		more, fired, held := d.pass()
		if more {
			d.release()
			if fired > 0 {
				runtime.Gosched() // let the callbacks just started run
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
		now := w.now()
		next := d.next(now)
		if next > d.syncAt {
			// Nothing due when the syncs were taken is left. One pass
			// is not always enough: a walk can end with a due key moved
			// out of the overflow area only as it returns.
			d.replySyncs()
		}
		w.helpAt.Store(d.helpAt(next))
		w.sleepUntil.Store(next)
		again := d.next(now) < next || w.now() >= next || w.intake.waiting()
		d.release()
		if again {
			continue // a producer added an earlier deadline, or listed one, while we worked
		}
		if err := w.poller.Wait(next); err != nil {
			if errors.Is(err, poller.ErrClosed) || w.closed.Load() {
				return
			}
			// The poller failed, as none is known to. Rather than
			// leave every timer unfired, poll the clock instead.
			w.pollerErrors.Add(1)
			time.Sleep(pollerFailedPoll)
		}
		w.wakes.Add(1)
	}
}

// pass walks and fires what is due now. It reports whether it stopped at
// MaxBatch with more possibly due, how many timers it fired, and whether it
// held back due timers because the walk parked at a slot a producer has
// reserved but not yet filled: a timer filed there may be due before them.
func (d *driver) pass() (more bool, fired int, held bool) {
	w := d.w
	now := w.now()
	w.walks.Add(1)
	// Nothing listed in the intake is due before its floor.
	intakeFloor := w.intake.drain(w, now)
	// The walk takes every bucket up to the one starting at through.
	through := d.walkEnd(now)
	if now >= d.aheadAt {
		through = max(through, d.ahead)
		d.lookN = 0 // what wakeFor saw is walked: a backlog found later is new
	}
	n, cut := 0, false
	for b, e := range w.store.Walk(uint64(max(now, through)) + 1) {
		d.examine(e, int64(b), now, through)
		if n++; n >= w.maxBatch {
			cut = true
			break
		}
	}
	floor := int64(min(w.store.StopFloor(), math.MaxInt64))
	// The walk took whole buckets up to the one holding max(now, through);
	// a timer due after them may still wait, unwalked, in the store. The
	// clock read again below may lie beyond them (a pre-walked bucket's
	// timers are in the heap before the walk reaches the bucket).
	walked := addSat(w.bucketOf(max(now, through)), w.bucket-1)
	now = w.now()
	for len(d.heap) > 0 && d.heap[0].key <= now && d.heap[0].key <= floor {
		if key := d.heap[0].key; fired >= w.maxBatch || key >= intakeFloor || key > walked {
			return true, fired, false
		}
		it := d.heap.pop()
		if d.fire(it, now) {
			fired++
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
func (d *driver) examine(e *entry, b, now, through int64) {
	e.lock()
	switch {
	case !e.inStore(b):
		// Stale: the entry has a newer holder.
	case !e.pending:
		e.unhold()
	default:
		d.refile(e, now, through)
	}
	e.unlock()
}

// refile gives a pending entry a new holder: the near heap if it is due by
// the end of the bucket starting at through, which the walk has reached,
// the store otherwise. e.mu is held.
func (d *driver) refile(e *entry, now, through int64) {
	w := d.w
	if when := e.when(); when <= now || w.bucketOf(when) <= through {
		e.holder, e.slot = heapHolder, stash.Ref{}
		d.heap.push(nearItem{key: when, latest: addSat(when, w.slack(when-now)), e: e})
		return
	}
	w.file(e, now)
}

// walkEnd returns the start of the last bucket a pass at now walks: the
// one a lookahead ahead, so that the near heap takes timers in early
// enough to know their slack (see precision.go).
func (d *driver) walkEnd(now int64) int64 {
	return d.w.bucketOf(addSat(now, d.w.lookahead))
}

// fire fires the timer of a near-heap holder if it is still its live
// holder, still armed and due; it reports whether it fired.
func (d *driver) fire(it nearItem, now int64) bool {
	w := d.w
	e := it.e
	e.lock()
	if !e.inHeap(it.key) {
		e.unlock()
		return false
	}
	if !e.pending {
		e.unhold()
		e.unlock()
		return false
	}
	// A live heap holder is keyed by the deadline (a Reset gives the
	// entry a new holder), and the pass pops only keys due by now.
	when := it.key
	w.late.record(now - when)
	w.fired.Add(1)
	switch e.kind {
	case kindFunc:
		e.pending = false
		e.unhold()
		w.ended.Add(1)
		f := e.fn()
		e.unlock()
		go call(f)
		return true
	case kindChan:
		e.pending = false
		e.unhold()
		w.ended.Add(1)
		if c := e.ch(); c != nil {
			select {
			case c <- w.clock.Time(when):
			default:
			}
		}
	case kindTicker:
		c := e.ch()
		if c == nil { // abandoned: the channel has been collected
			e.pending = false
			e.unhold()
			w.ended.Add(1)
			break
		}
		te := e.ticker()
		after := now // the next firing is the first tick after it
		select {
		case c <- w.clock.Time(when):
			te.drops = 0
		default: // a tick is already waiting: drop this one
			if te.drops < math.MaxUint32 {
				te.drops++
			}
			after = idleAfter(now, te.period, te.drops)
		}
		e.setWhen(nextTick(when, te.period, after))
		// A ticker stays in the near heap from tick to tick, unless its
		// period is long: the heap may hold a timer beyond the walk's end,
		// which fires only once the walk has passed it.
		d.refile(e, now, w.bucketOf(addSat(now, max(w.lookahead, tickerNear))))
	}
	e.unlock()
	return true
}

// tickerNear is how far ahead a ticker's next tick may lie for the
// driver to keep the ticker in its near heap.
const tickerNear = int64(1 << 27) // about 134 ms

// call runs f. It is the body of AfterFunc's goroutine, so that a nil f
// panics there and not on the driver.
func call(f func()) { f() }

// nextTick returns the first tick after now of a ticker that was due at
// when: fixed rate, phase aligned, missed ticks dropped.
func nextTick(when, period, now int64) int64 {
	late := now - when
	next := when + period*(1+late/period)
	if next < when {
		return math.MaxInt64
	}
	return next
}

// A ticker nobody receives from would cost the driver a firing every
// period for nothing, where package time's costs nothing (its channel timer
// is in the runtime's heap only while a goroutine blocks on the channel).
// So once tickerIdle firings in a row have found the last tick still
// waiting in the channel, each further such firing puts the next one off
// past the ticks in between, by a span that doubles with each (two periods,
// then four...) up to tickerIdleMax: the next firing is then the last tick
// within that span, or the next tick if the period is longer. The firing
// that finds the channel empty, because the receiver took the tick, delivers
// and ends the backoff, so the receiver's next tick is at most about
// tickerIdleMax later than package time's; a receiver that takes each tick
// before tickerIdle more come due sees exactly package time's ticks.
const (
	tickerIdle    = 16
	tickerIdleMax = int64(1 << 27) // about 134 ms
)

// idleAfter returns the instant after which the next firing of a ticker of
// period, fired at now with drops firings in a row that found a tick
// waiting, is the first tick: now, or later once drops reaches tickerIdle.
func idleAfter(now, period int64, drops uint32) int64 {
	if drops < tickerIdle || period >= tickerIdleMax {
		return now
	}
	span := tickerIdleMax
	if k := drops - tickerIdle + 1; k < 32 && period <= tickerIdleMax>>k {
		span = period << k
	}
	return addSat(now, span-period)
}

// clean reclaims the store below the walk, once per bucket passed.
func (d *driver) clean() {
	fv := d.w.store.FirstValid()
	if fv-fv%uint64(d.w.bucket) == d.lastClean {
		return
	}
	d.lastClean = fv - fv%uint64(d.w.bucket)
	d.w.store.Clean()
	d.w.cleans.Add(1)
}

// next returns the deadline to sleep to: the soonest of the near heap's
// top, the overflow area's lowest key and the wake-up for the first bucket
// that holds anything (see wakeFor). Waking at a bucket's start, the pass
// moves the bucket's holders into the near heap (or fires them), so finding
// the next deadline never scans a bucket, and unless a bucket's backlog
// grows while the driver waits for it, the driver wakes at most twice per
// non-empty bucket beyond the timers themselves.
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
	next, d.stack = d.heap.latest(d.stack)
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
// holds anything: at its start, unless its backlog is more than a few
// batches. Such a bucket is pre-walked from b less an estimate of the walk's
// time (never before now), so that the near heap holds all of it by its
// first deadline.
//
// A producer filing into b does not wake the driver, so the backlog may
// grow unseen: the driver looks again halfway to b each time it finds a
// backlog of more than one new or grown (down to lookMin before b), and in
// any case maxAhead before b.
func (d *driver) wakeFor(b, now int64) int64 {
	w := d.w
	n := w.store.Backlog(uint64(b))
	wake := b - w.lookahead
	// A holder the pre-walk re-files in the store must land beyond b, and
	// file files a far timer at least farMin after now.
	lead := min(int64(n)*walkCost, maxAhead, w.farMin-2*w.bucket)
	if n > 4*w.maxBatch && lead > 0 {
		d.ahead, d.aheadAt = b, max(b-lead, now)
		wake = min(wake, d.aheadAt)
	}
	if b != d.lookB || n > d.lookN {
		d.lookB, d.lookN, d.lookAt = b, n, b
		if n > 1 && b-now > 2*lookMin {
			d.lookAt = now + (b-now)/2
		}
	}
	if d.lookAt > now {
		wake = min(wake, d.lookAt)
	}
	if b-maxAhead > now {
		wake = min(wake, b-maxAhead)
	}
	return wake
}

const (
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

func (d *driver) takeSyncs() {
	w := d.w
	w.syncMu.Lock()
	if len(w.syncs) > 0 {
		d.syncAt = w.now()
	}
	d.syncs = append(d.syncs, w.syncs...)
	clear(w.syncs)
	w.syncs = w.syncs[:0]
	w.syncMu.Unlock()
}

func (d *driver) replySyncs() {
	for i, ch := range d.syncs {
		close(ch)
		d.syncs[i] = nil
	}
	d.syncs = d.syncs[:0]
}
