package stashtime

import (
	"sync"
	"time"
	"unsafe"
	"weak"
)

// The kinds of entry.
const (
	kindChan      uint8 = iota // NewTimer, After: send the expiry instant on a channel
	kindFunc                   // AfterFunc: run f in its own goroutine
	kindTicker                 // NewTicker, Tick: send, then re-arm one period later
	kindStdTimer               // a time.Timer made inside a synctest bubble
	kindStdTicker              // a time.Ticker made inside a synctest bubble
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
//
// An entry is kept small, since a server may hold millions: what differs by
// kind shares the one word ref, and a ticker's period lives in the
// tickerEntry around it.
type entry struct {
	w *Wheel
	// ref is, by kind: the func (kindFunc); the weak handle of the
	// channel (kindChan, kindTicker); the *time.Timer or *time.Ticker
	// (kindStdTimer, kindStdTicker). It is set before the entry is shared.
	ref  unsafe.Pointer
	kind uint8

	mu      sync.Mutex
	pending bool  // armed and neither fired nor stopped
	queued  bool  // a live holder exists
	qheap   bool  // the live holder is in the near heap (else in the store)
	when    int64 // deadline of the current arming, on the wheel's clock
	qkey    int64 // when the live holder is examined: its bucket start, or its heap key
}

// A tickerEntry is the entry of a Ticker: an entry and its period, guarded
// by the entry's mu.
type tickerEntry struct {
	entry
	period int64
}

// ticker returns the tickerEntry around e; e.kind must be kindTicker.
func (e *entry) ticker() *tickerEntry { return (*tickerEntry)(unsafe.Pointer(e)) }

func (e *entry) fn() func() { return *(*func())(unsafe.Pointer(&e.ref)) }

func (e *entry) setFn(f func()) { e.ref = *(*unsafe.Pointer)(unsafe.Pointer(&f)) }

// ch returns the entry's channel, or nil once the channel has been
// collected.
func (e *entry) ch() chan Time {
	return weakChan{*(*weak.Pointer[hchan])(unsafe.Pointer(&e.ref))}.get()
}

func (e *entry) setCh(c chan Time) {
	w := makeWeakChan(c)
	e.ref = *(*unsafe.Pointer)(unsafe.Pointer(&w.p))
}

func (e *entry) stdTimer() *time.Timer   { return (*time.Timer)(e.ref) }
func (e *entry) stdTicker() *time.Ticker { return (*time.Ticker)(e.ref) }

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
