package stashtime

import "sync/atomic"

// A stopped timer leaves its slot in the store empty, and the slot would
// stay until the walk passes it: 8 bytes for every timer stopped since, which
// for timers stopped long before they are due (timeouts that do not expire)
// is far more than is live. The driver compacts the store, unlinking the
// stretches of leaves whose slots have all been emptied, once the timers
// stopped since the last compaction outnumber half the live ones (and at
// least compactMin), so that memory follows what is live, as with package
// time, at a cost proportional to the work that made the garbage.
const compactMin = 4096

// compaction is the bookkeeping for it. The stopped count is a counter
// whose cells every Stop adds to; each cell reports to stops once per
// stopBatch of its own, so the mark is checked against a shared word only
// that often, and lags the true count by less than stopBatch a cell.
type compaction struct {
	stops atomic.Int64 // stops reported by the cells
	at    atomic.Int64 // the reported count at which to compact next
	woken atomic.Bool  // a Stop past at has woken the driver for it
}

const stopBatch = 64

// noteStop records one more stopped timer and wakes the driver once the
// reported count reaches the mark.
func (w *Wheel) noteStop() {
	if w.stopped.add(1)%stopBatch != 0 {
		return
	}
	n := w.compaction.stops.Add(stopBatch)
	if n >= w.compaction.at.Load() && w.compaction.woken.CompareAndSwap(false, true) {
		w.poller.Wake()
	}
}

// compact compacts the store if enough timers were stopped since the last
// time, and sets the next mark.
func (d *driver) compact() {
	w := d.w
	n := w.compaction.stops.Load()
	if n < w.compaction.at.Load() {
		return
	}
	w.store.Compact()
	w.compacts.Add(1)
	w.compaction.at.Store(n + max(compactMin, w.live()/2))
	w.compaction.woken.Store(false)
}
