package stashtime

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// The nursery defers the weak reference of a channel timer until the timer
// has outlived a garbage collection.
//
// An abandoned After, NewTimer, Tick or NewTicker must be collected (rule
// 16 of docs/semantics.md), so the wheel may not hold its channel strongly
// for long. But a weak reference costs more than the rest of starting a
// timer (weak.Make registers a special with the runtime, which the collector
// then scans and sweeps), and most timers are stopped or fire soon after
// they start. So a channel timer starts holding its channel strongly, and,
// unless it is due within weakBeyond, is listed here. After each collection
// the nursery goes through its list: every timer still pending gets a weak
// reference (and, if due beyond watchBeyond or a ticker, a cleanup on its
// channel); the others are dropped from the list, and a later arming lists
// them again. Invariant: a pending channel timer due beyond weakBeyond from
// its last arming holds its channel weakly or is listed.
//
// An abandoned timer's channel is therefore collected one cycle later than
// the runtime would collect it, and its entry, which a cleanup on the
// channel takes out of the store (see weakchan.go), one more; a timer
// stopped before the next collection never pays for a weak reference. A timer due within weakBeyond keeps its
// channel until it fires, which it then does soon.
//
// When most listed timers outlive the collection anyway (an After abandoned
// in a loop, say), deferring saves little and costs a cycle: the channels
// of a cycle's abandoned timers, and their entries for another, are live
// at the next collection. So each sweep that finds at least sweepSample
// listed timers records whether half or more of them were still pending,
// and while that holds the nursery is eager: the intake's drain (see
// intake.go), which lists here the pending timers it files, weakens all but
// one in eagerSample of them at once, on the driver, at most eagerMax a
// drain; the ones it still lists keep the record up to date. Abandoned, a
// timer the drain weakened before a collection began has its channel
// collected by that collection, as the runtime would collect it, and its
// entry by the next.
//
// A channel timer or ticker that the intake lists (see intake.go) is not
// listed here as well: its place on the intake's list stands in for one here (grip
// gripListed), and the sweep goes through the intakes' lists too. A timer
// stopped there is let go at the intake's next drain, not at the next
// collection, and starting one takes one list's lock, not two. The drain
// lists here the pending ones it files in the store. Invariant, then: a
// pending channel timer due beyond weakBeyond from its last arming holds
// its channel weakly, is listed here, or is listed by an intake, whose
// wheel is open.
type nursery struct {
	shards []nurseryShard // a power of two of them; P ids index them
	// armed is set while a canary is out: the next collection will run
	// sweep. A listing arms one if none is.
	armed atomic.Bool
	// begun and done count the sweeps started and finished, so that a
	// test can tell whether one ran while it looked.
	begun, done atomic.Uint64
	// eager is set while the last sweep that found at least sweepSample
	// listed timers found half or more of them pending (see admit).
	eager atomic.Bool

	mu      sync.Mutex
	intakes []*intake // of the open wheels
	buf     []*entry  // the sweep's copy of an intake's list
}

// A nurseryShard is the list of one P's listings, on lines of its own.
type nurseryShard struct {
	mu    sync.Mutex
	list  []*entry
	spare []*entry // the list before last, emptied, for reuse
	_     [128 - 56]byte
}

// maxSpare bounds the capacity of a list kept for reuse.
const maxSpare = 4096

// weakBeyond is the shortest channel timer that the nursery lists. A
// shorter one holds its channel until it fires, which an abandoned one then
// does within weakBeyond, where the runtime would free it at the next
// collection.
const weakBeyond = 1 << 30 // about 1.07 s

var theNursery = &nursery{shards: make([]nurseryShard, shardCount())}

// nurseIfLong lists a pending channel timer or ticker, just placed (armed
// at now), whose channel is held strongly and unlisted, unless it is a
// timer due within weakBeyond of now. One on an intake's list is only
// marked so. e.mu is held.
func (e *entry) nurseIfLong(now int64) {
	switch {
	case e.grip != gripStrong && e.grip != gripListed:
	case e.kind == kindChan && e.when()-now < weakBeyond:
		e.grip = gripStrong
	case e.holder == intakeHolder:
		e.grip = gripListed
		theNursery.arm()
	default:
		e.grip = gripNursed
		theNursery.list(e)
	}
}

// sweepSample is the fewest listed timers a sweep decides eagerness on;
// while eager, one in eagerSample of the drained timers is listed rather
// than weakened, and a drain weakens at most eagerMax: about 100 µs of the
// driver's time (a weak handle and a cleanup each), spent before it fires
// anything, so that the drain stays within the precision rule's slack.
const (
	sweepSample = 16
	eagerSample = 8
	eagerMax    = 128
)

// admit takes a pending channel timer whose intake listing stood in for a
// listing here (gripListed) as the drain files it in the store: it lists
// it, or, while the nursery is eager, weakens it at once, unless it falls
// in the sample or the drain has weakened eagerMax already (*budget counts
// down from it). e.mu is held, and the caller is the driver.
func (n *nursery) admit(e *entry, budget *int) {
	e.grip = gripNursed
	if *budget > 0 && n.eager.Load() && rand.Uint32()%eagerSample != 0 {
		*budget--
		e.weaken()
		return
	}
	n.list(e)
}

// list adds e to the list of the P the caller runs on.
func (n *nursery) list(e *entry) {
	s := &n.shards[procID()&(len(n.shards)-1)]
	s.mu.Lock()
	s.list = append(s.list, e)
	s.mu.Unlock()
	n.arm()
}

// arm makes sure that the next collection runs sweep.
func (n *nursery) arm() {
	if !n.armed.Load() && n.armed.CompareAndSwap(false, true) {
		armCanary(n)
	}
}

// addIntake makes the sweep go through in's lists, until dropIntake.
func (n *nursery) addIntake(in *intake) {
	n.mu.Lock()
	n.intakes = append(n.intakes, in)
	n.mu.Unlock()
}

func (n *nursery) dropIntake(in *intake) {
	n.mu.Lock()
	if i := slices.Index(n.intakes, in); i >= 0 {
		n.intakes = slices.Delete(n.intakes, i, i+1)
	}
	n.mu.Unlock()
}

// A canary is an object nothing refers to: its cleanup runs after the next
// collection. It holds a pointer so that it is not tiny-allocated alongside
// other objects, which could keep it alive.
type canary struct{ _ *canary }

func armCanary(n *nursery) {
	runtime.AddCleanup(new(canary), startSweep, n)
}

// startSweep runs on the runtime's cleanup goroutine, which the cleanups of
// the whole program share, so the sweep gets a goroutine of its own.
func startSweep(n *nursery) { go n.sweep() }

// sweep runs after a collection. It weakens the references of the listed
// timers still pending and empties its lists, and weakens those of the
// pending timers the intakes list. Listings made while it runs arm a new
// canary, since armed is cleared first.
func (n *nursery) sweep() {
	n.begun.Add(1)
	defer n.done.Add(1)
	n.armed.Store(false)
	n.mu.Lock() // one sweep at a time goes through the intakes, with buf
	for _, in := range n.intakes {
		for i := range in.shards {
			s := &in.shards[i]
			if !s.some.Load() {
				continue
			}
			s.mu.Lock() // a copy: e.mu is never taken under s.mu
			n.buf = append(n.buf[:0], s.list...)
			s.mu.Unlock()
			for _, e := range n.buf {
				if e.kind != kindChan && e.kind != kindTicker { // set before e is shared
					continue
				}
				e.lock()
				if e.grip == gripListed && e.holder == intakeHolder {
					e.grip = gripNursed // as if listed here; weaken unlists it
					e.weaken()
				}
				e.unlock()
			}
		}
	}
	clear(n.buf[:cap(n.buf)])
	if n.buf = n.buf[:0]; cap(n.buf) > maxSpare {
		n.buf = nil
	}
	n.mu.Unlock()
	listed, pending := 0, 0
	for i := range n.shards {
		s := &n.shards[i]
		s.mu.Lock()
		list := s.list
		s.list, s.spare = s.spare, nil
		s.mu.Unlock()
		listed += len(list)
		for _, e := range list {
			e.lock()
			if e.weaken() {
				pending++
			}
			e.unlock()
		}
		if cap(list) <= maxSpare {
			clear(list)
			s.mu.Lock()
			s.spare = list[:0]
			s.mu.Unlock()
		}
	}
	if listed >= sweepSample {
		n.eager.Store(2*pending >= listed)
	}
}

// weaken takes a listed entry off the list: a pending one gets a weak
// reference to its channel, and a cleanup on it if it is a ticker or due
// beyond watchBeyond; another is left strong and unlisted. It reports
// whether e was listed and pending. e.mu is held.
func (e *entry) weaken() bool {
	if e.grip != gripNursed {
		return false
	}
	if !e.pending {
		e.grip = gripStrong
		return false
	}
	c := e.ch()
	e.setCh(c)
	if e.kind == kindTicker || e.when()-e.w.now() >= watchBeyond {
		e.watch(c)
	}
	return true
}
