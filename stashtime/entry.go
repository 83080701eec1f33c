package stashtime

import (
	"sync"
)

// The kinds of entry.
const (
	kindChan   uint8 = iota // NewTimer, After: send the expiry instant on a channel
	kindFunc                // AfterFunc: run f in its own goroutine
	kindTicker              // NewTicker, Tick: send, then re-arm one period later
)

// An entry is one timer as the wheel sees it. The store holds *entry values.
//
// Every field below mu is guarded by mu. Producers (Reset, Stop) and the
// driver (which fires) take it for a few instructions; for channel timers
// the firing send and Stop/Reset's drain also happen under it, so a value
// prepared before Stop or Reset returns can never be received after.
//
// An entry is examined by a holder: a slot in the store or an item in the
// driver's near heap. At most one holder is live: the one that matches
// (qheap, qkey). A holder that does not match is stale and is dropped when
// met. An entry is re-filed in place (no new holder) whenever its live
// holder will be examined no later than its new deadline.
type entry struct {
	w    *Wheel
	kind uint8

	mu      sync.Mutex
	pending bool  // armed and neither fired nor stopped
	queued  bool  // a live holder exists
	qheap   bool  // the live holder is in the near heap (else in the store)
	when    int64 // deadline of the current arming, on the wheel's clock
	period  int64 // ticker period
	qkey    int64 // when the live holder is examined: its bucket start, or its heap key
	f       func()
	ch      weakChan
}

// holderFor reports whether a holder examined at key in the heap or the
// store is the entry's live one. e.mu is held.
func (e *entry) holderFor(heap bool, key int64) bool {
	return e.queued && e.qheap == heap && e.qkey == key
}

// arm sets a new deadline, seen at now. Unless the live holder is examined
// no later than when, it files a new holder and returns the key the caller
// must add e at after unlocking; else key is -1. It also reports whether e
// was pending. e.mu is held.
func (e *entry) arm(now, when int64) (wasPending bool, key int64) {
	wasPending = e.pending
	if !wasPending {
		e.w.live.Add(1)
	}
	e.pending = true
	e.when = when
	if e.queued && e.qkey <= when {
		return wasPending, -1
	}
	return wasPending, e.w.file(e, now)
}

// disarm stops the current arming and reports whether it was pending.
// e.mu is held.
func (e *entry) disarm() bool {
	if !e.pending {
		return false
	}
	e.pending = false
	e.w.stopped.Add(1)
	if e.w.live.Add(-1) == 0 {
		e.w.idle()
	}
	return true
}
