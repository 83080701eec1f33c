package stashtime

import (
	"sync"
	"sync/atomic"
)

// The intake defers filing a timer that is not due soon.
//
// Most timers are stopped or moved long before they are due (request
// timeouts, idle deadlines). A producer that starts or re-arms a timer due
// at least intakeAhead from now appends it to its P's list instead of
// filing it in the store; the driver drains the lists into the store at the
// start of every pass, and never sleeps with a timer listed. A timer
// stopped before then never touches the store: no slot, no compaction.
//
// Deadline order holds across the lists: before it drains them, the driver
// raises the floor to the clock plus intakeAhead, and fires nothing at or
// beyond the floor in that pass; a producer lists a timer, or keeps or
// revives a listing with a new deadline (see relist), only if that deadline
// is at or beyond the floor it reads under the list's lock, and otherwise a
// listed deadline only moves later. So every listed timer is due after every
// timer the driver fires before it drains again.
//
// A list that grows to intakeWake wakes the driver to drain it; one that
// is full (the driver cannot keep up) takes no more, and a producer then
// files its timer in the store itself.
//
// A listing outlives a Stop, or a Reset to an earlier deadline, until the
// drain meets it, and an entry remembers which shard holds it (entry.qb).
// Arming the timer again far before then revives that listing (relist: the
// floor check under the list's lock, and no append), so the Stop-then-Reset
// idiom does not grow the lists or give the drain a listing per Reset.
type intake struct {
	floor  atomic.Int64 // no listed deadline is below it
	shards []intakeShard
}

// An intakeShard is one P's list, on lines of its own.
type intakeShard struct {
	mu      sync.Mutex
	list    []*entry
	spare   []*entry    // the list before last, emptied, for reuse
	some    atomic.Bool // len(list) > 0, for the driver's check before it sleeps
	closed  bool        // the wheel is closed: list nothing
	revived int         // relists since the last drain
	_       [128 - 72]byte
}

const (
	intakeAhead = 1 << 26 // about 67 ms: nearer timers are filed at once
	intakeWake  = 1024    // a list this long wakes the driver to drain it
	intakeCap   = 1 << 16 // a full list takes no more until drained
)

func newIntake(shards int) intake {
	return intake{shards: make([]intakeShard, shards)}
}

// The results of intake.list.
const (
	listed  = iota
	wake    // listed, and the driver should drain the lists
	tooSoon // not listed: due before the floor (or the wheel is closed)
	full    // not listed: the list is full
)

// list appends e, whose deadline is at least intakeAhead away, to the list
// of P p, the caller's, unless its deadline is below the floor, the list
// is full or the wheel is closed. e.mu is held, or e is not yet shared.
func (in *intake) list(e *entry, p int) int {
	s := &in.shards[p&(len(in.shards)-1)]
	s.mu.Lock()
	r := listed
	switch {
	case e.when() < in.floor.Load() || s.closed:
		r = tooSoon
	case len(s.list) >= intakeCap:
		r = full
	default:
		s.list = append(s.list, e)
		e.qb = uint32(p&(len(in.shards)-1)) + 1
		switch len(s.list) {
		case 1:
			s.some.Store(true)
		case intakeWake:
			r = wake
		}
	}
	s.mu.Unlock()
	return r
}

// relist lists e again, through the listing of it that the lists of shard
// i hold and the drain has not yet met (see entry.qb), without appending:
// it is list without the append. The drain will meet that listing after
// the caller releases e.mu, before the driver fires anything it would not
// fire with e freshly listed in shard i. e.mu is held, and e has no
// holder.
func (in *intake) relist(e *entry, i int) int {
	s := &in.shards[i]
	s.mu.Lock()
	r := listed
	switch {
	case e.when() < in.floor.Load() || s.closed:
		r = tooSoon
	default:
		// As many relists as a list's intakeWake listings wake the
		// driver too: a timer reset again and again before the drain
		// meets its listing is filed then, and re-armed in place after.
		if s.revived++; s.revived == intakeWake {
			r = wake
		}
	}
	s.mu.Unlock()
	return r
}

// close empties the lists of a closed wheel and lists nothing more, and
// stops the nursery's sweep from going through them. Their timers never
// fire; the ones started later are filed in the store (and the nursery).
func (in *intake) close() {
	theNursery.dropIntake(in)
	for i := range in.shards {
		s := &in.shards[i]
		s.mu.Lock()
		s.closed = true
		s.list, s.spare = nil, nil
		s.some.Store(false)
		s.mu.Unlock()
	}
}

// waiting reports whether any timer is listed.
func (in *intake) waiting() bool {
	for i := range in.shards {
		if in.shards[i].some.Load() {
			return true
		}
	}
	return false
}

// drain raises the floor to now plus intakeAhead, files every listed timer
// still listed and pending in the store, and returns the floor. Only the
// driver calls it.
func (in *intake) drain(w *Wheel, now int64) int64 {
	floor := addSat(now, intakeAhead)
	in.floor.Store(floor)
	eager := eagerMax // see nursery.admit
	for i := range in.shards {
		s := &in.shards[i]
		s.mu.Lock() // even for an empty list: see list's check of the floor
		s.revived = 0
		if len(s.list) == 0 {
			s.mu.Unlock()
			continue
		}
		list := s.list
		s.list, s.spare = s.spare, nil
		s.some.Store(false)
		s.mu.Unlock()
		for _, e := range list {
			e.lock()
			switch {
			case e.holder == intakeHolder && e.pending:
				w.file(e, now)
				if e.grip == gripListed { // the nursery's now (see nursery.go)
					theNursery.admit(e, &eager)
				}
			case e.holder == intakeHolder || e.holder == noHolder:
				// Stopped: nothing to file, and this listing (or a
				// later one, which then lists e in vain) revives
				// nothing any more.
				e.dropHolder()
				e.qb = 0
			}
			e.unlock()
		}
		if cap(list) <= 2*intakeWake { // a longer one is not kept idle
			clear(list)
			s.mu.Lock()
			s.spare = list[:0]
			s.mu.Unlock()
		}
	}
	return floor
}
