package wheel

import "sync/atomic"

// A timer stopped (or reset earlier) while the store holds it leaves its
// slot empty, and the slot would stay until the walk passes it: 8 bytes for
// every such timer since, which for timers stopped long before they are due
// (timeouts that do not expire) is far more than is live. The driver
// compacts the store, unlinking the stretches of leaves whose slots have all
// been emptied, once the slots emptied since the last compaction outnumber
// half the live timers (and at least compactMin), so that memory follows
// what is live, as with package time, at a cost proportional to the work
// that made the garbage. A timer stopped while the intake lists it empties
// no slot, and counts for nothing.
const compactMin = 4096

// compaction is the bookkeeping for it. Wheel.holes is a counter whose
// cells every emptied slot adds to; each cell adds to reported once per
// holeBatch of its own, so the shared word is written only that often, and
// lags the true count by less than holeBatch a cell.
//
// Compaction has no wake-up of its own: the driver checks the mark after
// every round of work, and while any timer is live it sleeps at most
// maxSleep (once none is, it runs one more round before it parks). So the
// slots emptied between two checks are those of at most maxSleep of Stops.
type compaction struct {
	reported atomic.Int64 // emptied slots reported by the cells
	at       atomic.Int64 // the reported count at which to compact next
}

const holeBatch = 64

// noteHole records one more emptied slot.
func (w *Wheel) noteHole() {
	if w.holes.Add(1)%holeBatch == 0 {
		w.compaction.reported.Add(holeBatch)
	}
}

// compact compacts the store if enough slots were emptied since the last
// time, and sets the next mark.
func (d *driver) compact() {
	w := d.w
	n := w.compaction.reported.Load()
	if n < w.compaction.at.Load() {
		return
	}
	w.store.Compact()
	w.compacts.Add(1)
	w.compaction.at.Store(n + max(compactMin, w.Live()/2))
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
