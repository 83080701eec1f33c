package wheel

import (
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/stashgo/stash/internal/percpu"
)

// The intake: per-P lists through which a wheel takes in the timers it
// need not settle at once.
//
// Most timers are stopped, or fire, soon after they start, so a wheel puts
// off two costs until a timer has lived a while: a place in the store for
// a far timer, and a weak reference to the channel of a channel timer
// (weak.Make registers a special that the collector scans and sweeps),
// which an abandoned After, NewTimer, Tick or NewTicker needs to be
// collected (rule 16 of docs/semantics.md). Each P has a shard with one
// lock and two lists, the two stages of a listing:
//
//	unfiled    timers armed intakeAhead (67 ms) or more ahead, and func and
//	          channel timers armed within the lookahead (near ones); the
//	          consumer's drain gives them a holder at the start of every
//	          pass (the near heap for a near one, the store for the rest),
//	          and the driver never sleeps with one listed.
//	toWeaken  filed channel timers and tickers; the sweep that follows the
//	          next garbage collection gives the pending ones a weak reference
//	          to their channel (entry.weaken) and empties the list.
//
// A channel timer armed weakBeyond (1.07 s) or more ahead, or a ticker, is
// to be weakened once it outlives a collection (entry.weakenLater). Listed
// to be filed, it is not listed a second time: its unfiled listing stands
// for both (chanRef refUnfiled), the sweep weakens it there, and the drain
// that files it moves it to its shard's toWeaken (refToWeaken). One that
// its producer files in the store, its producer lists in toWeaken. Each
// wheel sweeps its own shards only, started by a canary's cleanup
// (armCanary) after the first collection that follows a listing.
//
// The invariants:
//
//   - Deadline order. Before it takes the lists, the drain raises the floor
//     to the clock plus intakeAhead and nearFloor to the clock, and the
//     consumer fires nothing beyond nearFloor, nor at or beyond the floor,
//     before the next drain (a pass fires only what is due by the reading
//     its drain took). A producer lists a far timer, or revives its listing
//     (relist), only at or beyond the floor it reads under the shard's
//     lock, and a near one only beyond nearFloor; otherwise a listed
//     deadline only moves later. So every listed timer is due after every
//     timer fired before the drain meets it.
//   - Collection. A pending channel timer of an open wheel armed weakBeyond
//     or more ahead, or a pending ticker, holds its channel weakly or is in
//     one of the two stages (its chanRef says which). So the channel of an
//     abandoned one is collected a cycle after package time's would be,
//     and its entry another later (see weakchan.go).
//
// A listing outlives Stop, or a Reset to an earlier deadline: the drain
// drops a stale unfiled listing, the sweep a stale toWeaken one. Arming a
// timer far again before the drain meets its unfiled listing revives that
// listing (relist, through entry.loc) rather than append another, so the
// Stop-then-Reset idiom does not grow the lists. An unfiled list that grows
// to intakeWake wakes the driver, and a full one takes no more: the
// producer files its timer in the store itself.
//
// When most listed timers outlive a collection anyway (an After abandoned
// in a loop, say), putting off their weak references saves little and
// costs a cycle. So a sweep that finds at least sweepSample timers in
// toWeaken records whether half or more of them were pending, and while
// that holds the intake is eager: the drain weakens at once all but one in
// eagerSample of the channel timers it files, at most eagerMax a drain,
// and moves the sample to toWeaken to keep the record up to date.
//
// A closed wheel's intake lists nothing and arms no canary; Close empties
// its lists, and their timers never fire.
type intake struct {
	floor  atomic.Int64 // no deadline listed to be filed is below it
	shards []intakeShard
	// armed is set while a canary is out: the next collection runs sweep.
	armed atomic.Bool
	// eager is set while the last sweep that found at least sweepSample
	// timers in toWeaken found half or more of them pending.
	eager atomic.Bool
	// nearFloor is the clock reading of the last drain: every deadline
	// listed for the near heap lies beyond it.
	nearFloor atomic.Int64
	// begun and done count the sweeps started and finished, so that a
	// test can tell whether one ran while it looked.
	begun, done atomic.Uint64

	filed []*Entry // the timers a drain has filed, held for toWeaken; the consumer's

	sweepMu sync.Mutex // one sweep at a time goes through unfiled, with batch
	batch   []*Entry   // the sweep's copy of an unfiled list
}

// An intakeShard is one P's lists, on lines of its own. Its lock is never
// taken before an entry's.
type intakeShard struct {
	mu       sync.Mutex
	unfiled  []*Entry
	toWeaken []*Entry
	// drained is the unfiled list that a drain goes through, which the
	// sweep goes through too, or, emptied, the last one, for reuse.
	drained   []*Entry
	spareWeak []*Entry    // toWeaken before last, emptied, for reuse
	some      atomic.Bool // len(unfiled) > 0, for the driver's check before it sleeps
	closed    bool        // the wheel is closed: list nothing
	revived   int         // relists since the last drain
	_         [128 - 120]byte
}

const (
	intakeAhead = 1 << 26 // about 67 ms: nearer timers are filed at once
	intakeWake  = 1024    // an unfiled list this long wakes the driver to drain it
	intakeCap   = 1 << 16 // a full unfiled list takes no more until drained
	maxSpare    = 4096    // the longest toWeaken list kept for reuse
)

// The sweep's sample and the eager drain's limits: while eager, one in
// eagerSample of the drained channel timers is moved to toWeaken rather
// than weakened, and a drain weakens at most eagerMax, about 100 µs of the
// consumer's time (a weak handle and a cleanup each), spent before it fires
// anything, so that the drain stays within the precision rule's slack.
const (
	sweepSample = 16
	eagerSample = 8
	eagerMax    = 128
)

func newIntake(shards int) intake {
	return intake{shards: make([]intakeShard, shards)}
}

// The results of intake.listUnfiled and relist.
const (
	listed  = iota
	wake    // listed, and the driver should drain the lists
	tooSoon // not listed: due before the floor (or the wheel is closed)
	full    // not listed: the list is full
)

// listUnfiled appends e to the unfiled list of P p, the caller's, unless its
// deadline is too soon (see below), the list is full or the wheel is
// closed. e.mu is held, or e is not yet shared and the listing publishes
// it. A far timer (near false) is due at least intakeAhead away, and too
// soon below the floor; a near one within the lookahead, and too soon at
// or below nearFloor.
func (in *intake) listUnfiled(e *Entry, p int, near bool) int {
	s := &in.shards[p&(len(in.shards)-1)]
	s.mu.Lock()
	r := listed
	switch {
	case in.tooSoon(e.when(), near) || s.closed:
		r = tooSoon
	case len(s.unfiled) >= intakeCap:
		r = full
	default:
		s.unfiled = append(s.unfiled, e)
		e.loc = uint32(p&(len(in.shards)-1)) + 1
		switch len(s.unfiled) {
		case 1:
			s.some.Store(true)
		case intakeWake:
			r = wake
		}
	}
	s.mu.Unlock()
	return r
}

// tooSoon reports whether a deadline is too soon to be listed: a far
// one below the floor, a near one at or below nearFloor. Read under a
// shard's lock, which the drain takes after it raises both.
func (in *intake) tooSoon(when int64, near bool) bool {
	if near {
		return when <= in.nearFloor.Load()
	}
	return when < in.floor.Load()
}

// relist lists e to be filed again, through the unfiled listing of it that
// shard i holds and the drain has not yet met (see Entry.loc), without
// appending: it is listUnfiled without the append. The drain will meet that
// listing after the caller releases e.mu, before the consumer fires
// anything it would not fire with e freshly listed in shard i. e.mu is
// held, and e has no holder.
func (in *intake) relist(e *Entry, i int, near bool) int {
	s := &in.shards[i]
	s.mu.Lock()
	r := listed
	switch {
	case in.tooSoon(e.when(), near) || s.closed:
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

// listToWeaken appends e, filed, to the toWeaken list of the caller's P
// and reports whether it did: not on a closed wheel. e.mu is held.
func (in *intake) listToWeaken(e *Entry) bool {
	mustHold(e)
	s := &in.shards[percpu.ProcID()&(len(in.shards)-1)]
	s.mu.Lock()
	ok := !s.closed
	if ok {
		s.toWeaken = append(s.toWeaken, e)
	}
	s.mu.Unlock()
	if ok {
		in.arm()
	}
	return ok
}

// arm makes sure that the next collection runs sweep.
func (in *intake) arm() {
	if !in.armed.Load() && in.armed.CompareAndSwap(false, true) {
		armCanary(in)
	}
}

// close empties the lists of a closed wheel and lists nothing more. Their
// timers never fire; the ones started later are filed in the store, with
// their channels held strongly.
func (in *intake) close() {
	for i := range in.shards {
		s := &in.shards[i]
		s.mu.Lock()
		s.closed = true
		s.unfiled, s.drained = nil, nil
		s.toWeaken, s.spareWeak = nil, nil
		s.some.Store(false)
		s.mu.Unlock()
	}
}

// waiting reports whether any timer is listed to be filed.
func (in *intake) waiting() bool {
	for i := range in.shards {
		if in.shards[i].some.Load() {
			return true
		}
	}
	return false
}

// drain raises the floor to now plus intakeAhead and nearFloor to now,
// hands every timer listed to be filed that is still listed and pending
// to file, under its lock, to be given a holder, moves the ones listed to
// be weakened as well to toWeaken (or, eager, weakens them), and returns
// the floor. Only the consumer calls it.
func (in *intake) drain(now int64, file func(e *Entry)) int64 {
	floor := addSat(now, intakeAhead)
	in.floor.Store(floor)
	in.nearFloor.Store(now)
	eager := in.eager.Load()
	budget := eagerMax
	for i := range in.shards {
		s := &in.shards[i]
		s.mu.Lock() // even for an empty list: see listUnfiled's check of the floor
		s.revived = 0
		if len(s.unfiled) == 0 {
			s.mu.Unlock()
			continue
		}
		list := s.unfiled
		s.unfiled, s.drained = s.drained, list // see sweep
		s.some.Store(false)
		s.mu.Unlock()
		for _, e := range list {
			e.lock()
			switch {
			case e.holder == intakeHolder && e.pending:
				file(e)
				if e.chanRef == refUnfiled {
					e.chanRef = refToWeaken
					if eager && budget > 0 && rand.Uint32()%eagerSample != 0 {
						budget--
						e.weaken()
					} else {
						in.filed = append(in.filed, e)
					}
				}
			case e.holder == intakeHolder || e.holder == noHolder:
				// Stopped: nothing to file, and this listing (or a
				// later one, which then lists e in vain) revives
				// nothing any more.
				e.dropHolder()
				e.loc = 0
			}
			e.unlock()
		}
		s.mu.Lock()
		s.drained = nil
		if cap(list) <= 2*intakeWake { // a longer one is not kept idle
			clear(list)
			s.drained = list[:0]
		}
		if len(in.filed) > 0 && !s.closed {
			s.toWeaken = append(s.toWeaken, in.filed...)
		}
		s.mu.Unlock()
		if len(in.filed) > 0 {
			clear(in.filed)
			in.filed = in.filed[:0]
			in.arm()
		}
	}
	if cap(in.filed) > maxSpare {
		in.filed = nil
	}
	return floor
}

// A canary is an object nothing refers to: its cleanup runs after the next
// collection. It holds a pointer so that it is not tiny-allocated alongside
// other objects, which could keep it alive.
type canary struct{ _ *canary }

// armCanary has the next collection start in's sweep. The canary refers to
// nothing, so in does not keep it alive.
func armCanary(in *intake) {
	runtime.AddCleanup(new(canary), (*intake).startSweep, in)
}

// startSweep runs on the runtime's cleanup goroutine, which the cleanups of
// the whole program share, so the sweep gets a goroutine of its own.
func (in *intake) startSweep() { go in.sweep() }

// sweep runs after a collection. It weakens the pending timers listed to
// be weakened, in either stage, and empties the toWeaken lists. Listings
// made while it runs arm a new canary, since armed is cleared first.
//
// It goes first through the shards' unfiled lists and the ones a drain is
// going through, and weakens there the timers still listed (refUnfiled)
// and the ones the drain has filed and holds for toWeaken (refToWeaken),
// whose toWeaken listing then goes stale; then through the toWeaken lists.
// So a drain under way hides none: a drain moves a timer from one list to
// another under the shard's lock, and toWeaken is met last.
func (in *intake) sweep() {
	in.begun.Add(1)
	defer in.done.Add(1)
	in.armed.Store(false)
	in.sweepMu.Lock() // one sweep at a time goes through unfiled, with batch
	for i := range in.shards {
		s := &in.shards[i]
		s.mu.Lock() // a copy: e.mu is never taken under s.mu
		in.batch = append(append(in.batch[:0], s.unfiled...), s.drained...)
		s.mu.Unlock()
		for _, e := range in.batch {
			if e.kind != kindChan && e.kind != kindTicker { // set before e is shared
				continue
			}
			e.lock()
			if e.chanRef == refUnfiled && e.holder == intakeHolder {
				e.chanRef = refToWeaken // as if in toWeaken; weaken takes it off
			}
			e.weaken()
			e.unlock()
		}
	}
	clear(in.batch[:cap(in.batch)])
	if in.batch = in.batch[:0]; cap(in.batch) > maxSpare {
		in.batch = nil
	}
	in.sweepMu.Unlock()
	listed, pending := 0, 0
	for i := range in.shards {
		s := &in.shards[i]
		s.mu.Lock()
		list := s.toWeaken
		s.toWeaken, s.spareWeak = s.spareWeak, nil
		s.mu.Unlock()
		for _, e := range list {
			e.lock()
			if e.chanRef == refToWeaken { // else a stale listing (see above)
				listed++
				if e.weaken() {
					pending++
				}
			}
			e.unlock()
		}
		if cap(list) <= maxSpare {
			clear(list)
			s.mu.Lock()
			if !s.closed {
				s.spareWeak = list[:0]
			}
			s.mu.Unlock()
		}
	}
	if listed >= sweepSample {
		in.eager.Store(2*pending >= listed)
	}
}
