package stashtime

import (
	"cmp"
	"math"
	"runtime"
	"slices"
)

// A driver is the wheel's single consumer. It runs on one goroutine locked
// to its OS thread and owns the store's read side, the near heap and the
// batch.
//
// Each pass: walk every bucket that starts at or before now, examine each
// holder met (drop it if stale or stopped, re-file it if its deadline moved
// later, keep it in the near heap if it is due later within the current
// bucket, collect it if due), then fire the collected timers in deadline
// order, at most MaxBatch per pass; clean what the walk passed; find the
// next deadline; publish it; check again; sleep.
type driver struct {
	w         *Wheel
	heap      nearHeap
	batch     []due
	syncs     []chan struct{}
	lastClean uint64
}

// A due timer, collected by a pass and fired after the batch is sorted.
type due struct {
	when int64
	e    *entry
	heap bool  // its holder was in the near heap
	key  int64 // its holder's key
}

func (w *Wheel) run() {
	runtime.LockOSThread()
	defer close(w.done)
	d := &driver{w: w}
	for !w.closed.Load() {
		w.sleepUntil.Store(running)
		d.takeSyncs()
		if d.pass() {
			runtime.Gosched() // let the callbacks just started run
			continue
		}
		d.clean()
		d.replySyncs()
		next := d.next()
		w.sleepUntil.Store(next)
		if d.next() < next || w.clock.Now() >= next {
			continue // a producer added an earlier deadline while we worked
		}
		if err := w.poller.Wait(next); err != nil {
			return
		}
	}
}

// pass walks and fires what is due now. It reports whether it stopped at
// MaxBatch with more possibly due.
func (d *driver) pass() bool {
	w := d.w
	now := w.clock.Now()
	w.walks.Add(1)
	d.batch = d.batch[:0]
	for b, e := range w.store.Walk(uint64(now) + 1) {
		d.examine(e, false, int64(b), now)
		if len(d.batch) >= w.maxBatch {
			break
		}
	}
	for len(d.heap) > 0 && d.heap[0].key <= now && len(d.batch) < w.maxBatch {
		it := d.heap.pop()
		d.examine(it.e, true, it.key, now)
	}
	if len(d.batch) == 0 {
		return false
	}
	slices.SortStableFunc(d.batch, func(a, b due) int { return cmp.Compare(a.when, b.when) })
	now = w.clock.Now()
	for i := range d.batch {
		d.fire(&d.batch[i], now)
		d.batch[i] = due{}
	}
	return len(d.batch) >= w.maxBatch
}

// examine handles one holder met by the walk or popped from the near heap:
// drop it if stale or stopped, re-file it if not yet due, collect it if due.
func (d *driver) examine(e *entry, heap bool, key, now int64) {
	e.mu.Lock()
	switch {
	case !e.holderFor(heap, key):
		// Stale: the entry has a newer holder.
	case !e.pending:
		e.queued = false
	case e.when > now:
		d.refile(e, now)
	default:
		d.batch = append(d.batch, due{e.when, e, heap, key})
	}
	e.mu.Unlock()
}

// refile gives a pending entry whose deadline is after now a new holder:
// the near heap if its deadline is in the bucket the walk has consumed, the
// store otherwise. e.mu is held.
func (d *driver) refile(e *entry, now int64) {
	w := d.w
	if w.bucketOf(e.when) == w.bucketOf(now) {
		e.qheap, e.qkey = true, e.when
		d.heap.push(nearItem{e.when, e})
		return
	}
	e.qheap, e.qkey = false, w.bucketOf(e.when)
	w.store.Add(uint64(e.when), e)
}

// fire fires a collected timer if it is still armed as collected.
func (d *driver) fire(t *due, now int64) {
	w := d.w
	e := t.e
	e.mu.Lock()
	if !e.holderFor(t.heap, t.key) || !e.pending {
		if e.holderFor(t.heap, t.key) {
			e.queued = false
		}
		e.mu.Unlock()
		return
	}
	if e.when > now { // reset later in place since collected
		d.refile(e, now)
		e.mu.Unlock()
		return
	}
	when := e.when
	w.late.record(now - when)
	w.fired.Add(1)
	switch e.kind {
	case kindFunc:
		e.pending, e.queued = false, false
		w.live.Add(-1)
		f := e.f
		e.mu.Unlock()
		go call(f)
		return
	case kindChan:
		e.pending, e.queued = false, false
		w.live.Add(-1)
		if c := e.ch.get(); c != nil {
			select {
			case c <- w.clock.Time(when):
			default:
			}
		}
	case kindTicker:
		c := e.ch.get()
		if c == nil { // abandoned: the channel has been collected
			e.pending, e.queued = false, false
			w.live.Add(-1)
			break
		}
		select {
		case c <- w.clock.Time(when):
		default: // a tick is already waiting: drop this one
		}
		e.when = nextTick(when, e.period, now)
		d.refile(e, now)
	}
	e.mu.Unlock()
}

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
// top, the overflow area's lowest key and the start of the first bucket that
// holds anything. Waking at a bucket's start, the pass moves the bucket's
// holders into the near heap (or fires them), so finding the next deadline
// never scans a bucket, and the driver wakes at most once per non-empty
// bucket beyond the timers themselves.
func (d *driver) next() int64 {
	w := d.w
	next := int64(math.MaxInt64)
	if len(d.heap) > 0 {
		next = d.heap[0].key
	}
	if m, ok := w.store.OverflowMin(); ok && m < uint64(next) {
		next = int64(m)
	}
	for b := range w.store.Peep(uint64(next)) {
		next = min(next, int64(b))
		break
	}
	return next
}

func (d *driver) takeSyncs() {
	w := d.w
	w.syncMu.Lock()
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
