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

// watchBeyond is the shortest weakened timer whose abandonment the wheel
// watches for. A shorter abandoned timer leaves its 48-byte entry in the
// store until its deadline passes; a longer one (and every ticker) pays for
// a cleanup on its channel when the nursery weakens it, so that an
// abandoned After(time.Minute) in a loop leaves only an 8-byte slot after
// the next collections, instead of its entry until its deadline. (A sweep of
// the store after each collection was tried instead: its cost grows with
// the store.)
const watchBeyond = 1 << 36 // about 69 s

// watch arranges for e to be stopped and taken out of the store once its
// channel is collected.
func (e *entry) watch(c chan Time) {
	runtime.AddCleanup(headerOf(c), (*entry).abandon, e)
}

// abandon stops an entry whose channel has been collected: nobody can
// receive from it any more.
func (e *entry) abandon() {
	e.lock()
	e.disarm()
	e.unqueue()
	e.unlock()
}
