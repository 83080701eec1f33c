package wheel

import (
	"runtime"
	"time"
	"unsafe"
)

// hchan stands for the runtime's channel header, which a chan value points
// to. Only its address is used.
type hchan struct{ _ byte }

// headerOf returns the runtime channel header that c points to.
func headerOf(c <-chan time.Time) *hchan { return *(**hchan)(unsafe.Pointer(&c)) }

// A channel timer or ticker starts holding its channel strongly (chanRef
// refStrong), which is cheap. One that outlives a collection while pending
// refers to its channel weakly (refWeak: a weak.Pointer to its header, in
// entry.ref), so that an abandoned After, NewTimer, Tick or NewTicker is
// collected as it is by the runtime (Go 1.23). The intake's lists hold it
// in between (refUnfiled, refToWeaken: see intake.go). A receiver blocked
// on the channel keeps it alive, and then the wheel still delivers to it.

// weakBeyond is the shortest channel timer that is weakened once it
// outlives a collection. A shorter one holds its channel until it fires,
// which an abandoned one then does within weakBeyond, where the runtime
// would free it at the next collection.
const weakBeyond = 1 << 30 // about 1.07 s

// weakensLater reports whether a channel timer or ticker of kind k, armed
// dist ahead, is to be weakened once it outlives a collection pending.
func weakensLater(k timerKind, dist int64) bool {
	return k == kindTicker || k == kindChan && dist >= weakBeyond
}

// weakenLater arranges for a pending channel timer or ticker just placed
// (armed at now), whose channel is held strongly and that is not listed to
// be weakened, to be weakened after the next collection, unless it is a
// timer due within weakBeyond of now: its unfiled listing, if it has one,
// stands for that (refUnfiled); otherwise it is listed in toWeaken
// (refToWeaken), unless the wheel is closed. e.mu is held.
func (e *Entry) weakenLater(now int64) {
	mustHold(e)
	switch {
	case e.chanRef != refStrong && e.chanRef != refUnfiled:
		// weak, listed in toWeaken, or no channel timer
	case !weakensLater(e.kind, e.when()-now):
		e.chanRef = refStrong
	case e.holder == intakeHolder:
		e.chanRef = refUnfiled
		e.w.intake.arm()
	case e.w.intake.listToWeaken(e):
		e.chanRef = refToWeaken
	}
}

// weaken takes an entry listed in toWeaken (refToWeaken) off the list: a
// pending one gets a weak reference to its channel, and a cleanup on it if
// it is a ticker or due beyond watchBeyond; another is left strong and
// unlisted. It reports whether e was listed and pending. e.mu is held.
func (e *Entry) weaken() bool {
	mustHold(e)
	if e.chanRef != refToWeaken {
		return false
	}
	if !e.pending {
		e.chanRef = refStrong
		return false
	}
	c := e.ch()
	e.setCh(c)
	if e.kind == kindTicker || e.when()-e.w.Now() >= watchBeyond {
		e.watch(c)
	}
	return true
}

// watchBeyond is the shortest time left to a weakened timer whose
// abandonment the wheel watches for. Only timers armed at least weakBeyond
// ahead that outlived a collection are weakened, and every one of them
// with at least watchBeyond left (and every ticker) pays for a cleanup on
// its channel, so that an abandoned After(time.Minute) in a loop leaves
// only an 8-byte slot, until the next compaction, after the collections
// that free its channel and then its entry. One with less left leaves its
// entry in the store until its deadline passes, soon. (A sweep of the store
// after each collection was tried instead: its cost grows with the store.)
const watchBeyond = 1 << 28 // about 268 ms

// watch arranges for e to be stopped and taken out of the store once its
// channel is collected.
func (e *Entry) watch(c chan time.Time) {
	runtime.AddCleanup(headerOf(c), (*Entry).abandon, e)
}

// abandon stops an entry whose channel has been collected: nobody can
// receive from it any more. Taken out of the store, the entry is garbage at
// the next collection; one listed to be filed is referred to by its unfiled
// list until the drain meets it, so the driver is woken to drain it now
// rather than at its next pass, up to a second later.
func (e *Entry) abandon() {
	e.lock()
	listed := e.holder == intakeHolder
	e.disarm()
	e.dropHolder()
	e.unlock()
	if listed {
		e.w.wakeIfEarlier(e.w.Now())
	}
}
