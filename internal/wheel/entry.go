package wheel

import (
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
	"weak"

	"github.com/stashgo/stash/internal/percpu"
	"github.com/stashgo/stash/internal/stash"
)

// A timerKind says what an entry is.
type timerKind uint8

// The kinds of entry.
const (
	kindChan      timerKind = iota // NewTimer, After: send the expiry instant on a channel
	kindFunc                       // AfterFunc: run f in its own goroutine
	kindTicker                     // NewTicker, Tick: send, then re-arm one period later
	kindStdTimer                   // a time.Timer made inside a synctest bubble
	kindStdTicker                  // a time.Ticker made inside a synctest bubble
)

// How a channel timer or ticker refers to its channel (entry.chanRef). It
// starts strong, which is cheap, and is weakened once the timer has
// outlived a garbage collection while pending, so that only timers that
// live long pay for a weak reference; until then the intake lists it to be
// weakened, in one of two stages (see intake.go).
type chanRef uint8

const (
	refWeak     chanRef = iota // ref is a weak handle of the channel
	refStrong                  // ref is the channel itself, and nothing lists e to be weakened
	refUnfiled                 // ref is the channel itself, and e's live unfiled listing lists it to be weakened too
	refToWeaken                // ref is the channel itself, and a toWeaken list lists e
)

// A holder says where an entry's live holder is (entry.holder).
type holder uint8

// The holders an entry can have.
const (
	noHolder     holder = iota
	storeHolder         // a slot in the store, in bucket loc
	heapHolder          // an item in the driver's near heap, keyed by when
	intakeHolder        // a listing on an unfiled list of the intake (see intake.go)
)

// isChan reports whether e is a channel timer (not a ticker).
func (e *Entry) isChan() bool { return e.kind == kindChan }

// The states of an entry, as its fields tell them (pending, holder), who
// moves it to which next state, and under which lock. Every move takes e.mu
// but two: a start, before the entry is shared, and a Reset to a later
// deadline of an open entry, which is a CAS on dl (see unlock). An entry is
// pending exactly when it has a live holder (the checker of wakecheck.go
// checks it at every unlock).
//
//	state    pending holder   live holder          moved by, to
//	idle     false   none     none (loc 0)          start, Reset, Sleep: to listed or filed
//	stopped  false   none     none; a stale        the consumer's drain: to idle (loc 0);
//	listed                    listing on the       start, Reset, Sleep far: to listed
//	                          unfiled list of its   again, through that listing (relist)
//	                          shard (loc-1)
//	listed   true    intake   a listing on the     the consumer's drain: to filed;
//	                          unfiled list of its   Stop: to stopped listed;
//	                          shard (loc-1)         a later Reset: stays (deadline moved)
//	filed    true    store    slot in bucket loc,   the consumer's walk: to near, or filed again
//	                          or the overflow      further on; Stop: to idle (the slot
//	                          area (no slot)       emptied, or left stale if the walk took it
//	                                               or it has none); a later Reset: stays
//	                                               (CAS, if open)
//	near     true    heap     near-heap item       the consumer's fire: to idle (a ticker:
//	         (keyed by dl)                         near or filed again); Stop: to idle
//	                                               (the item goes stale)
//
// An earlier Reset moves a listed, filed or near entry to a new holder
// (arm); the old one goes stale. A stale holder is dropped when the
// consumer meets it: only the live one matches the entry's holder and loc
// (store) or deadline (heap). The entry is open (dl complemented) only while
// filed with a slot or listed, and not a ticker, nor a channel timer whose
// channel is held strongly and that is not listed to be weakened (unlock).
//
// Separately, a channel timer's or ticker's chanRef says how it holds its
// channel, and in which stage of the intake (intake.go) it waits to hold
// it weakly. Every move takes e.mu, and the shard's lock for a listing.
//
//	chanRef          ref       listed                  moved by, to
//	strong        channel   not to be weakened      arming (weakenLater), if a ticker or a
//	                                                timer due weakBeyond or more ahead: to
//	                                                unfiled if listed, else to toWeaken
//	unfiled        channel   by its live unfiled      the drain: to toWeaken (eager: to weak);
//	                        listing                 the sweep: to weak; Stop, an earlier
//	                                                Reset: to strong (the listing goes stale)
//	toWeaken      channel   on its shard's          the sweep: to weak if pending, else to
//	                        toWeaken list           strong
//	weak          handle    no                      none
//
// A timer is listed to be weakened once: a toWeaken listing is never
// appended for an entry in unfiled or toWeaken, and an unfiled listing stands
// for one only while it is the live holder. A closed wheel lists nothing,
// so a timer started as it closes stays strong.
//
// An entry is one timer as the wheel sees it. The store holds *Entry values.
//
// Every field below mu but dl is guarded by mu, taken with lock and
// released with unlock, once the entry is shared (see Wheel.listNew). Producers (Reset, Stop) and the driver (which
// fires) take it for a few instructions; a Reset to a later deadline of a
// pending timer does not take it at all (see unlock). For channel timers
// the firing send and Stop/Reset's drain also happen under it, so a value
// prepared before Stop or Reset returns can never be received after.
//
// An entry is examined by a holder: a slot in the store or an item in the
// driver's near heap. At most one holder is live: in the store, the one in
// bucket loc; in the heap, the one keyed by the entry's deadline. A holder
// that does not match is stale and is dropped when met. An entry is
// re-filed in place (no new holder) whenever its live holder is in the store
// and will be examined no later than its new deadline. Stop takes the live
// store holder out of its slot, and the driver's compactions reclaim the
// emptied slots, so a stopped timer leaves (almost) nothing behind.
//
// An entry is kept small, since a server may hold millions: what differs by
// kind shares the one word ref, and a ticker's period lives in the
// tickerEntry around it.
type Entry struct {
	w *Wheel
	// ref is, by kind: the func (kindFunc); the channel or its weak
	// handle, as chanRef says (kindChan, kindTicker); the *time.Timer or
	// *time.Ticker (kindStdTimer, kindStdTicker). Only a channel's may
	// change once the entry is shared, under mu.
	ref unsafe.Pointer

	mu      sync.Mutex
	kind    timerKind // set before the entry is shared
	chanRef chanRef   // what ref holds of a channel, and its stage: refWeak, refStrong, refUnfiled or refToWeaken
	pending bool      // armed and neither fired nor stopped
	holder  holder    // where the live holder is: noHolder, storeHolder, heapHolder or intakeHolder
	// loc is, with a store holder, its bucket (see Wheel.bucketNum); with
	// an intake holder or none, 1 + the intake shard whose unfiled list
	// holds a listing of e the drain has not yet met, or 0 (see
	// intake.relist).
	loc uint32
	// dl is the deadline of the current arming, on the wheel's clock. It
	// is the only field that changes without mu: while the entry is open
	// (see unlock), dl holds the deadline complemented (negative, since
	// readings are not), and Entry.Reset may move it later with a CAS
	// (see resetLater). lock closes the entry, so under mu dl holds the
	// deadline itself; when and setWhen read and write it.
	dl   atomic.Int64
	slot stash.Ref
}

// lock takes e.mu and closes the entry: a Reset that moved the deadline
// later without the lock is seen, and no other can happen until unlock.
func (e *Entry) lock() {
	e.mu.Lock()
	for {
		v := e.dl.Load()
		if v >= 0 || e.dl.CompareAndSwap(v, ^v) {
			return
		}
	}
}

// unlock opens the entry if a later deadline can be stored in place, and
// releases e.mu. That is so when it is armed, its live holder is a store
// slot (which lies at or before the deadline, so it is examined no later
// than any later one) or an unfiled listing (whose drain files it by its
// deadline then), and storing a later deadline needs no other change: it
// is a timer (a ticker's Reset takes the lock) that is not a channel timer
// held strongly and not listed to be weakened, which a far deadline would
// list (weakenLater).
func (e *Entry) unlock() {
	if e.pending && (e.holder == storeHolder && e.slot != (stash.Ref{}) || e.holder == intakeHolder) &&
		(e.kind == kindFunc || e.kind == kindChan && e.chanRef != refStrong) {
		e.dl.Store(^e.dl.Load())
	}
	checkEntry(e)
	e.mu.Unlock()
}

// resetLater stores when as the deadline if the entry is open and when is
// no earlier than its deadline, and reports whether it did. It needs no
// lock: the live holder stays where it is, and the driver, which closes
// the entry before it reads the deadline, finds the later one there.
func (e *Entry) resetLater(when int64) bool {
	v := e.dl.Load()
	return v < 0 && when >= ^v && e.dl.CompareAndSwap(v, ^when)
}

// when returns the deadline. e.mu is held.
func (e *Entry) when() int64 { return e.dl.Load() }

// setWhen sets the deadline. e.mu is held, or e is not yet shared.
func (e *Entry) setWhen(when int64) { e.dl.Store(when) }

// A tickerEntry is the entry of a Ticker: an entry, its period, and how
// many firings in a row found the last tick still unreceived (see
// tickerIdle), guarded by the entry's mu. drops fits the entry's size class.
type tickerEntry struct {
	Entry
	period int64
	drops  uint32
}

// ticker returns the tickerEntry around e; e.kind must be kindTicker.
func (e *Entry) ticker() *tickerEntry { return (*tickerEntry)(unsafe.Pointer(e)) }

func (e *Entry) fn() func() { return *(*func())(unsafe.Pointer(&e.ref)) }

func (e *Entry) setFn(f func()) { e.ref = *(*unsafe.Pointer)(unsafe.Pointer(&f)) }

// ch returns the entry's channel, or nil once the channel has been
// collected. e.mu is held, or the entry not yet shared.
func (e *Entry) ch() chan time.Time {
	if e.chanRef != refWeak {
		return *(*chan time.Time)(unsafe.Pointer(&e.ref))
	}
	p := (*weak.Pointer[hchan])(unsafe.Pointer(&e.ref)).Value()
	if p == nil {
		return nil
	}
	return *(*chan time.Time)(unsafe.Pointer(&p))
}

// holdCh makes c the entry's channel, held strongly.
func (e *Entry) holdCh(c chan time.Time) {
	e.chanRef = refStrong
	e.ref = *(*unsafe.Pointer)(unsafe.Pointer(&c))
}

// setCh makes c the entry's channel, held weakly.
func (e *Entry) setCh(c chan time.Time) {
	wp := weak.Make(headerOf(c))
	e.chanRef = refWeak
	e.ref = *(*unsafe.Pointer)(unsafe.Pointer(&wp))
}

func (e *Entry) stdTimer() *time.Timer   { return (*time.Timer)(e.ref) }
func (e *Entry) stdTicker() *time.Ticker { return (*time.Ticker)(e.ref) }

// inStore reports whether the store holder met in the bucket starting at b
// is the entry's live one. e.mu is held.
func (e *Entry) inStore(b int64) bool {
	mustHold(e)
	return e.holder == storeHolder && e.loc == e.w.bucketNum(b)
}

// inHeap reports whether the near-heap holder keyed key is the entry's live
// one. e.mu is held.
func (e *Entry) inHeap(key int64) bool {
	mustHold(e)
	return e.holder == heapHolder && e.when() == key
}

// arm sets a new deadline, seen at now, and reports whether e was pending.
// Unless the live holder is in the store and examined no later than when,
// it files a new holder (and takes the old one out of the store): in the
// store again if the old one was there, however far the deadline, since a
// timer that has lived to be filed is likely to live on and move again
// (see placement.go). e.mu is held.
func (e *Entry) arm(now, when int64) (wasPending bool) {
	mustHold(e)
	wasPending = e.pending
	p := -1 // the caller's P, read once, when needed
	if !wasPending {
		p = percpu.ProcID()
		e.w.starts.AddOn(p, 1)
	}
	old := e.when()
	checkDisarmed(e) // the arming it replaces
	e.pending = true
	e.setWhen(when)
	switch {
	case e.holder == storeHolder && e.slot != (stash.Ref{}) && e.w.bucketStart(e.loc, now) <= when:
	case e.holder == intakeHolder && when >= old:
		// a listed deadline may only move later
	case e.holder == storeHolder:
		e.dropHolder()
		e.w.file(e, now)
	default:
		e.dropHolder()
		if p < 0 {
			p = percpu.ProcID()
		}
		e.w.place(e, now, p)
	}
	e.weakenLater(now)
	return wasPending
}

// dropHolder lets the live holder go stale, so that e has none: it takes a
// store holder out of its slot if it can, so that it costs nothing more,
// and lets a live unfiled listing go stale (and with it its listing to be
// weakened, refUnfiled). e.mu is held.
func (e *Entry) dropHolder() {
	mustHold(e)
	switch e.holder {
	case storeHolder:
		// The holder goes stale whether or not it comes out: one the
		// walk has taken, or that moved (out of the overflow area), is
		// dropped when met.
		if e.w.store.Remove(e.slot, e) {
			e.w.noteHole()
		}
		e.unhold()
	case heapHolder:
		e.unhold() // the item goes stale
	case intakeHolder:
		// The listing goes stale, and stays for a later arming to restart
		// (see intake.relist).
		e.holder = noHolder
		if e.chanRef == refUnfiled {
			e.chanRef = refStrong
		}
	}
	e.slot = stash.Ref{}
}

// unhold records that e has no holder, after a store or heap holder. e.mu
// is held.
func (e *Entry) unhold() {
	mustHold(e)
	e.holder, e.loc = noHolder, 0
}

// disarm stops the current arming and reports whether it was pending.
// e.mu is held.
func (e *Entry) disarm() bool {
	mustHold(e)
	if !e.pending {
		return false
	}
	e.pending = false
	e.w.stopped.Add(1)
	checkDisarmed(e)
	return true
}
