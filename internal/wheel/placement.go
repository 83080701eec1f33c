package wheel

import (
	"math"
	"math/bits"

	"github.com/stashgo/stash/internal/stash"
)

// Placement: where a pending timer waits for the consumer, by how far
// ahead of the clock its deadline lies when it is armed (start, Reset, a
// ticker's next tick) or when the consumer meets it (walk, intake drain).
// Every holder lies at or before the deadline, so the consumer meets the
// timer no later than it is due.
//
//	distance from now          holder                                  decided by
//	within the walk's end      the near heap, keyed by the deadline    refile (the consumer)
//	  (a lookahead, 16.8 ms)   (a func or channel timer is listed      place, listNew (producers),
//	                           first, on the arming P's shard: the     intake.drain (the consumer)
//	                           drain takes it into the heap)
//	below intakeAhead (67 ms)  the store, keyed by the deadline        file
//	intakeAhead or more        the unfiled list of the arming P's       place, listNew (producers),
//	                           intake shard; the drain then files it   intake.drain (the consumer)
//	                           as below
//	exactWithin (1.07 s) or    the store, one to two grains before     file (fileKey)
//	  more                     the deadline, on a grain of an eighth
//	                           to a quarter of the distance
//	beyond reach (13 days)     the store, about reach ahead            file
//
// A ticker due again within tickerNear stays in the near heap (fire.go). A
// timer whose deadline moves later keeps its holder while that holder still
// lies at or before the new deadline (Entry.arm, Entry.Reset's CAS), and the
// consumer re-files it when it meets it (refile). One whose deadline moves
// before its store holder is filed in the store again, however far ahead:
// it has lived long enough to be filed once, and one listed instead would
// be filed by the drain at the deadline it has then, which a deadline
// pushed sooner and later in turn (a read deadline on every read) has
// moved later again, so that each move sooner would list it anew.

// exactWithin is the distance below which a timer is filed at its own
// deadline. Beyond it, fileKey files it earlier, at a multiple of a coarser
// grain (ratas' range scheduling): far timers share a few dense leaves
// instead of one sparse leaf each, and most are stopped before they are ever
// looked at. A timer met early is re-filed closer, each time at a quarter
// to a half of its remaining distance, so about log3(distance/exactWithin)
// times.
const exactWithin = 1 << 30 // about 1.07 s

// fileKey returns the key at which to file a timer due at when, seen at now:
// when itself if it is near, else a multiple of a grain g, a power of two
// between an eighth and a quarter of the distance, that lies between g and
// 2g before when.
//
// The driver re-files, when it reaches a coarse key, every timer filed
// there, before it can fire any timer due later. Keeping the coarse key at
// least a grain (268 ms at exactWithin) ahead of the deadlines it holds
// gives that work time to finish before the first of them is due, even for
// a burst of a million timers due at one instant.
func fileKey(now, when int64) int64 {
	dist := when - now
	if dist < exactWithin {
		return when
	}
	grain := int64(1) << (bits.Len64(uint64(dist)) - 3)
	key := when - grain
	return key - key%grain
}

// file gives e a holder in the store for its deadline, seen at now. e.mu is
// held or e is not yet shared.
//
// A timer due further than reach from now is filed at about now+reach, and
// re-filed when the walk meets it there. Every holder is then inside the
// store's span, where Stop can take it out (a key beyond the span would wait
// in the overflow area until its deadline, out of Stop's reach: forever for
// a Timer made and stopped with math.MaxInt64), and less than 2^30 buckets
// ahead of the clock, which lets an entry name its holder's bucket in 32
// bits (see bucketNum).
func (w *Wheel) file(e *Entry, now int64) {
	key := fileKey(now, e.when())
	if key > now && uint64(key-now) > uint64(w.reach) {
		key = now + w.reach
		if key < now { // now is within reach of math.MaxInt64
			key = math.MaxInt64
		}
		key -= key % reachGrain(w.reach)
	}
	e.holder, e.loc = storeHolder, w.bucketNum(w.bucketOf(key))
	e.slot = w.store.Add(uint64(key), e)
	w.noteFiled(key, now)
}

// reachGrain is the grain a key filed at reach is rounded down to, so that
// such timers share leaves: a power of two, an eighth to a quarter of reach.
func reachGrain(reach int64) int64 {
	return int64(1) << max(bits.Len64(uint64(reach))-3, 0)
}

// place files an entry that a producer on P p starts or re-arms at now:
// lists it to be filed if it is due at least intakeAhead later, or, a func
// or channel timer, within the lookahead (see listsNear), else files it in
// the store. e.mu is held.
func (w *Wheel) place(e *Entry, now int64, p int) {
	mustHold(e)
	dist := e.when() - now
	if near := w.listsNear(e.kind, dist); near || dist >= intakeAhead {
		var r int
		if e.holder == noHolder && e.loc != 0 { // stopped, still listed
			r = w.intake.relist(e, int(e.loc-1), near)
		} else {
			r = w.intake.listUnfiled(e, p, near)
		}
		if r == listed || r == wake {
			e.holder, e.slot = intakeHolder, stash.Ref{}
			if r == wake {
				w.wakeIfEarlier(now) // for the driver to drain the lists
			}
			return
		}
	}
	w.file(e, now)
}

// listsNear reports whether a timer of kind k armed dist ahead is listed
// for the near heap rather than filed in the store: a func or channel
// timer within the lookahead, which the walk would take into the near
// heap at its next pass. The drain takes it there itself (refile), so the
// timer costs a listing instead of a place in the store and a walk. A
// ticker re-arms on the driver (fire.go).
func (w *Wheel) listsNear(k timerKind, dist int64) bool {
	return dist < w.lookahead && (k == kindFunc || k == kindChan)
}

// listNew lists a new func or channel timer to be filed, complete, as
// place and weakenLater would, if it is due at least intakeAhead later or
// within the lookahead (see listsNear), and reports whether it did. It takes no lock of e: the listing publishes e,
// under the shard's lock, and e is not touched after it.
func (w *Wheel) listNew(e *Entry, now, when int64, p int) bool {
	near := w.listsNear(e.kind, when-now)
	if !near && when-now < intakeAhead || e.kind != kindFunc && e.kind != kindChan {
		return false
	}
	weakens := weakensLater(e.kind, when-now)
	chanRef := e.chanRef
	e.holder = intakeHolder
	if weakens {
		e.chanRef = refUnfiled
	}
	r := w.intake.listUnfiled(e, p, near)
	if r != listed && r != wake {
		e.holder, e.chanRef = noHolder, chanRef // never published
		return false
	}
	if weakens {
		w.intake.arm()
	}
	if r == wake {
		w.wakeIfEarlier(now) // for the driver to drain the lists
	}
	w.notify(e, now, when)
	return true
}

// refile gives a pending entry a new holder: the near heap if it is due by
// the end of the bucket starting at through, which the walk has reached,
// the store otherwise. For the near heap it returns the item, and the
// caller pushes it once it has set its latest instant. e.mu is held.
func (d *driver) refile(e *Entry, now, through int64) (it nearItem, near bool) {
	mustHold(e)
	w := d.w
	if when := e.when(); when <= now || w.bucketOf(when) <= through {
		e.holder, e.slot = heapHolder, stash.Ref{}
		return nearItem{key: when, e: e}, true
	}
	w.file(e, now)
	return nearItem{}, false
}

// walkEnd returns the start of the last bucket a pass at now walks: the
// one a lookahead ahead, so that the near heap takes timers in early
// enough to know their slack (see precision.go).
func (d *driver) walkEnd(now int64) int64 {
	return d.w.bucketOf(addSat(now, d.w.lookahead))
}
