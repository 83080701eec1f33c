//go:build stashcheck

package wheel

import (
	"container/heap"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/stashgo/stash/internal/stash"
)

// The wake-up checker, built into test binaries with the stashcheck tag
// (go test -tags stashcheck). It keeps its own record of every pending
// timer, as its producer or the consumer armed it, and after every round of
// the driver and every producer call compares the driver's armed instant
// with the brute-force minimum of their latest instants (see the rule in
// wakeup.go). A breach panics, naming the timer, the path that armed it and
// the armed instant.
//
// A producer's call is checked once it has made its timer visible and
// notified the consumer, holding the consumer role so that no pass moves
// timers meanwhile; the driver is checked once it has decided to sleep.
// An arming superseded before
// its producer has recorded the new one (a Reset in flight) is not held
// against the wheel: the record is dropped when the entry's deadline no
// longer matches it.

// WakeCheck reports whether the wake-up checker is built in. Tests of what
// the wheel retains, or of its lock-free paths, skip with it: the checker
// keeps its own record of every timer, and takes entries' locks.
const WakeCheck = true

// checkRecord is a wheel's record of its pending timers.
type checkRecord struct {
	mu      sync.Mutex
	armings map[*Entry]checkArming // the current arming of each pending timer
	byLate  checkHeap              // the same armings and superseded ones, by latest instant
}

type checkArming struct {
	e                *Entry
	when, at, latest int64
	kind             timerKind
	path             string
}

type checkHeap []checkArming

func (h checkHeap) Len() int           { return len(h) }
func (h checkHeap) Less(i, j int) bool { return h[i].latest < h[j].latest }
func (h checkHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *checkHeap) Push(x any)        { *h = append(*h, x.(checkArming)) }
func (h *checkHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

var (
	checkMu      sync.Mutex
	checkRecords = map[*Wheel]*checkRecord{}
)

func recordOf(w *Wheel) *checkRecord {
	checkMu.Lock()
	defer checkMu.Unlock()
	r := checkRecords[w]
	if r == nil {
		r = &checkRecord{armings: map[*Entry]checkArming{}}
		checkRecords[w] = r
	}
	return r
}

var kindNames = map[timerKind]string{kindChan: "channel timer", kindFunc: "AfterFunc timer", kindTicker: "ticker"}

// record notes e's arming at at for when. e.mu is held.
func (r *checkRecord) record(e *Entry, at, when int64, path string) {
	a := checkArming{e: e, when: when, at: at, latest: addSat(when, e.w.slack(when-at)), kind: e.kind, path: path}
	r.mu.Lock()
	r.armings[e] = a
	heap.Push(&r.byLate, a)
	if len(r.byLate) > 2*len(r.armings)+1024 {
		// Mostly superseded armings: keep the current ones only.
		r.byLate = r.byLate[:0]
		for _, a := range r.armings {
			r.byLate = append(r.byLate, a)
		}
		heap.Init(&r.byLate)
	}
	r.mu.Unlock()
}

// first returns the arming with the earliest latest instant. r.mu is held.
func (r *checkRecord) first() (checkArming, bool) {
	for len(r.byLate) > 0 {
		a := r.byLate[0]
		cur, ok := r.armings[a.e]
		dl := a.e.dl.Load()
		if dl < 0 {
			dl = ^dl
		}
		switch {
		case !ok || cur != a:
			heap.Pop(&r.byLate) // disarmed or armed again since
		case dl != a.when:
			// Armed again, its producer not yet through: it records
			// the new arming once the consumer can see it.
			heap.Pop(&r.byLate)
			delete(r.armings, a.e)
		default:
			return a, true
		}
	}
	return checkArming{}, false
}

// checkArmed records the arming a producer made at now for when, once it
// has notified the consumer, and checks the rule, unless a consumer is at
// work.
func checkArmed(e *Entry, now, when int64) {
	w := e.w
	e.lock()
	checkTrace(w, "armed %p at %d for %d", e, now, when)
	if e.pending && e.when() == when { // else fired or stopped already
		recordOf(w).record(e, now, when, "armed by a producer")
	}
	e.unlock()
	if w.consumer.TryLock() {
		checkAsleep(w, "a producer, after it armed a timer")
		w.consumer.Unlock()
	}
}

// checkRearmed records a ticker's next tick, armed by the consumer at now.
// e.mu is held.
func checkRearmed(e *Entry, now int64) {
	if e.pending {
		recordOf(e.w).record(e, now, e.when(), "a ticker re-armed by the consumer")
	}
}

// checkDisarmed forgets e's arming: it fired, was stopped, or is being armed
// again. e.mu is held.
func checkDisarmed(e *Entry) {
	r := recordOf(e.w)
	r.mu.Lock()
	delete(r.armings, e)
	r.mu.Unlock()
}

// checkEntry checks that e is in a state of the table in entry.go: pending
// exactly when it has a live holder. e.mu is held.
func checkEntry(e *Entry) {
	if e.pending != (e.holder != noHolder) {
		panic(fmt.Sprintf("stashtime: a %s (%p) is in no state of the entry's table: pending %v, holder %d, loc %d",
			kindNames[e.kind], e, e.pending, e.holder, e.loc))
	}
}

var (
	traceMu  sync.Mutex
	traceBuf []string
)

// checkTrace notes an arming (checkArmed), for the report of a
// breach.
func checkTrace(w *Wheel, format string, args ...any) {
	if !w.system {
		return
	}
	s := fmt.Sprintf("%d %p ", w.Now(), w) + fmt.Sprintf(format, args...)
	traceMu.Lock()
	traceBuf = append(traceBuf, s)
	if len(traceBuf) > 400 {
		traceBuf = append(traceBuf[:0], traceBuf[200:]...)
	}
	traceMu.Unlock()
}

// checkTraceDump returns the last events noted, for a test's failure.
func checkTraceDump() string {
	traceMu.Lock()
	defer traceMu.Unlock()
	return strings.Join(traceBuf[max(len(traceBuf)-60, 0):], "\n")
}

// checkClosed forgets a closed wheel's record.
func checkClosed(w *Wheel) {
	checkMu.Lock()
	delete(checkRecords, w)
	checkMu.Unlock()
}

// checkAsleep checks the rule while who holds the consumer role: unless
// the driver is running or due to, its armed instant is no later than the
// latest instant of every pending timer.
func checkAsleep(w *Wheel, who string) {
	if w.closed.Load() {
		return
	}
	// The record first: a producer records its timer only after it has
	// lowered the armed instant, so the armed instant read after the
	// record serves every timer in it, unless the consumer (whose role
	// the caller holds) breaks the rule.
	r := recordOf(w)
	r.mu.Lock()
	a, ok := r.first()
	r.mu.Unlock()
	su := w.sleepUntil.Load()
	if su == running {
		return
	}
	now := w.Now()
	if su <= now {
		return
	}
	if ok && su > a.latest {
		e := a.e
		e.lock()
		state := fmt.Sprintf("pending %v, holder %d, bucket %v, slot %v holding it %v, deadline %v", e.pending, e.holder, time.Duration(w.bucketStart(e.loc, now)), e.slot != stash.Ref{}, w.store.Holds(e.slot, e), time.Duration(e.when()))
		e.unlock()
		inHeap := -1
		for i, it := range w.drv.heap {
			if it.e == e {
				inHeap = i
			}
		}
		hw, _ := w.drv.heap.wake(nil)
		nb, nbok := w.store.NextBucket(uint64(su))
		bl := w.store.Backlog(nb)
		pw, pok := w.drv.peepWake(int64(nb), now)
		state += fmt.Sprintf("; heap wake %v, next bucket %v %v backlog %d, peep %v %v, next %v, live %d, peepfloor %v", time.Duration(hw), time.Duration(nb), nbok, bl, time.Duration(pw), pok, time.Duration(w.drv.next(now)), w.Live(), w.store.PeepFloor())
		traceMu.Lock()
		for _, s := range traceBuf[max(len(traceBuf)-60, 0):] {
			println(s)
		}
		traceMu.Unlock()
		// Let the driver's deferred acquire through as it unwinds.
		w.consumer.Unlock()
		panic(fmt.Sprintf("stashtime: wake-up rule broken, seen by %s: the driver sleeps to %v, after the latest instant %v of a %s (%p) %s at %v for %v; clock %v; the entry: %s, at %d in the near heap of %d; first valid %v",
			who, time.Duration(su), time.Duration(a.latest), kindNames[a.kind], a.e, a.path, time.Duration(a.at), time.Duration(a.when), time.Duration(now),
			state, inHeap, len(w.drv.heap), time.Duration(w.store.FirstValid())))
	}
}

// mustHold panics unless e.mu is held: the precondition "e.mu is held" of
// the entry's methods. (TryLock fails while anyone holds it, so a lock held
// by another goroutine passes: the check catches a caller that holds none.)
func mustHold(e *Entry) {
	if e.mu.TryLock() {
		e.mu.Unlock()
		panic("stashtime: internal error: an entry's method called without its lock")
	}
}

// mustHoldRole panics unless the consumer role of w is held.
func mustHoldRole(w *Wheel) {
	if w.consumer.TryLock() {
		w.consumer.Unlock()
		panic("stashtime: internal error: the consumer's work done without the consumer role")
	}
}
