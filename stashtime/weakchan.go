package stashtime

import (
	"runtime"
	"unsafe"
)

// hchan stands for the runtime's channel header, which a chan value points
// to. Only its address is used.
type hchan struct{ _ byte }

// headerOf returns the runtime channel header that c points to.
func headerOf(c <-chan Time) *hchan { return *(**hchan)(unsafe.Pointer(&c)) }

// A channel timer that outlives a collection while pending refers to its
// channel weakly (a weak.Pointer to its header, in entry.ref; see
// nursery.go), so that an abandoned After, NewTimer, Tick or NewTicker is
// collected as it is by the runtime (Go 1.23). A receiver blocked on the
// channel keeps it alive, and then the wheel still delivers to it.

// watchBeyond is the shortest time left to a weakened timer whose
// abandonment the wheel watches for. The nursery weakens only timers armed
// at least weakBeyond ahead that outlived a collection, and every one of
// them with at least watchBeyond left (and every ticker) pays for a cleanup
// on its channel, so that an abandoned After(time.Minute) in a loop leaves
// only an 8-byte slot, until the next compaction, after the collections
// that free its channel and then its entry. One with less left leaves its
// entry in the store until its deadline passes, soon. (A sweep of the store
// after each collection was tried instead: its cost grows with the store.)
const watchBeyond = 1 << 28 // about 268 ms

// watch arranges for e to be stopped and taken out of the store once its
// channel is collected.
func (e *entry) watch(c chan Time) {
	runtime.AddCleanup(headerOf(c), (*entry).abandon, e)
}

// abandon stops an entry whose channel has been collected: nobody can
// receive from it any more. Taken out of the store, the entry is garbage at
// the next collection; one that the intake lists is referred to by the
// list until the driver drains it, so the driver is woken to drain it now
// rather than at its next pass, up to a second later.
func (e *entry) abandon() {
	e.lock()
	listed := e.holder == intakeHolder
	e.disarm()
	e.dropHolder()
	e.unlock()
	if listed {
		e.w.wakeIfEarlier(e.w.now())
	}
}
