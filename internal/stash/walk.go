package stash

import (
	"cmp"
	"iter"
	"math"
	"slices"
	"sync/atomic"
	"unsafe"
)

// Walk returns an iterator over every value in a bucket that starts below
// end, in key order (insertion order within a bucket), starting at
// FirstValid. Each value is consumed as it is yielded. Stopping the
// iteration early keeps the rest for the next Walk.
//
// Before it reads anything, Walk raises FirstValid to end rounded down to a
// bucket, so that a producer that adds a key the walk may already have
// passed sees that key as late and lowers FirstValid again. When the
// iteration ends, FirstValid is at most the first bucket that may still hold
// a value below end: the bucket where the iteration stopped, or a bucket
// with a slot a producer has reserved but not filled.
//
// Walk moves values that have come within reach from the overflow area into
// the tree, and walks a window longer than the span in steps, so values that
// waited in the overflow area are yielded in key order too. Only the
// consumer may call Walk.
func (s *Store[T]) Walk(end uint64) iter.Seq2[uint64, *T] {
	return func(yield func(uint64, *T) bool) {
		s.acquire()
		defer s.release()
		s.stopFloor = math.MaxUint64
		w := walker[T]{s: s, consume: true, yield: yield}
		// If the loop body panics mid-step, FirstValid goes back to where
		// the step began, so nothing the step had not reached is stranded.
		reading, from := false, uint64(0)
		var stuck []*ovItem
		defer func() {
			if reading {
				s.settle(from)
				s.putBack(stuck[w.taken:])
			}
		}()
		for {
			s.admitOverflow()
			var hi uint64
			var more bool
			from, hi, more = s.advance(end)
			w.floor = math.MaxUint64
			reading = true
			stuck, w.taken = s.stuck(from, hi, true), 0
			hi = s.limit(hi)
			w.root(s.rootKids(from, hi), stuck, from, hi)
			reading = false
			s.putBack(stuck[w.taken:])
			s.settle(w.floor)
			if w.floor != math.MaxUint64 || !more {
				break
			}
		}
		s.fileOverflow()
	}
}

// advance picks the next step of a walk up to end and raises FirstValid to
// the step's end, rounded down to a bucket, before the step reads anything.
// It returns the window [from, hi) to read, and more when the step stops
// short of end: at the bucket of the first overflow key the tree cannot
// take yet, which the next step, with FirstValid moved up, can.
func (s *Store[T]) advance(end uint64) (from, hi uint64, more bool) {
	for {
		from = s.fv.Load()
		hi, more = end, false
		if m, ok := s.OverflowMin(); ok && m-m%s.bucket < end {
			// Keys the tree can take wait only for Clean to free their
			// path (the walk yields those itself); the step stops at the
			// first key the tree cannot take.
			if t := s.top(from); m <= t {
				m, ok = s.ov.minAbove(t)
			}
			if b := m - m%s.bucket; ok && b < end {
				hi, more = b, true
			}
		}
		target := hi - hi%s.bucket
		if target <= from || s.fv.CompareAndSwap(from, target) {
			return from, hi, more
		}
	}
}

// settle lowers FirstValid to floor, the lowest bucket where a walk parked
// or stopped. Producers only ever lower FirstValid, so a lower value that
// one of them stored stays.
func (s *Store[T]) settle(floor uint64) {
	for {
		fv := s.fv.Load()
		if fv <= floor || s.fv.CompareAndSwap(fv, floor) {
			return
		}
	}
}

// Peep returns an iterator over the values Walk(end) would yield, in the
// same order, without consuming anything or moving any cursor. Values in the
// overflow area that the tree can take are moved into it first; values
// beyond the span are not yielded (see OverflowMin). Only the consumer may
// call Peep.
func (s *Store[T]) Peep(end uint64) iter.Seq2[uint64, *T] {
	return s.PeepRange(s.fv.Load(), end)
}

// PeepRange is Peep over the buckets that hold keys in [begin, end). It
// panics if end is before begin.
func (s *Store[T]) PeepRange(begin, end uint64) iter.Seq2[uint64, *T] {
	if end < begin {
		panic("stash: window end before begin")
	}
	return func(yield func(uint64, *T) bool) {
		s.acquire()
		defer s.release()
		s.fileOverflow()
		s.peepFloor = math.MaxUint64
		w := walker[T]{s: s, yield: yield, floor: math.MaxUint64}
		stuck := s.stuck(begin, end, false)
		hi := s.limit(end)
		w.root(s.rootKids(begin, hi), stuck, begin, hi)
	}
}

// NextBucket returns the first key of the first bucket that starts before
// end, from the one FirstValid lies in on, whose leaf holds slots the walk
// has not passed: values,
// slots reserved but not yet filled, and slots whose values were taken out
// with Remove. It does not look at the overflow area (see OverflowMin). A
// consumer that wakes at that key wastes no wake-ups on buckets that hold
// nothing, and lets the walk reclaim what Remove left. Only the consumer may
// call NextBucket.
func (s *Store[T]) NextBucket(end uint64) (key uint64, ok bool) {
	s.acquire()
	defer s.release()
	// A value's key may lie after FirstValid and its deadline before it,
	// in the same bucket: the caller looks at buckets, not keys.
	begin := s.fv.Load()
	begin -= begin % s.bucket
	if end <= begin {
		return 0, false
	}
	w := walker[T]{s: s, probe: true, floor: math.MaxUint64, found: math.MaxUint64}
	hi := s.limit(end)
	w.root(s.rootKids(begin, hi), nil, begin, hi)
	return w.found, w.found != math.MaxUint64
}

// limit bounds a window's end by LastValid: no bucket starting after it
// holds anything.
func (s *Store[T]) limit(end uint64) uint64 {
	if lv := s.lv.Load(); lv < math.MaxUint64 && lv+1 < end {
		return lv + 1
	}
	return end
}

// A walker is one traversal of the tree over the buckets starting in
// [from, hi). It consumes what it yields when consume is set.
type walker[T any] struct {
	s       *Store[T]
	consume bool
	yield   func(uint64, *T) bool
	floor   uint64 // lowest bucket where the walk parked or stopped
	taken   int    // how many of the stuck overflow values root has yielded
	probe   bool   // stop at the first leaf with slots the walk has not passed
	found   uint64 // that leaf's first key, when probe found one
}

// root walks the coarsest level, whose slots are reused every revolution.
// The window may be longer than a revolution (FirstValid was lowered far by
// a late key), so kids, the children whose bases fall in the window, come
// gathered in key order (rootKids); a child of an older revolution is left
// to Clean.
//
// The overflow values in stuck (see Store.stuck) have keys in top-level
// slots that no kid covers (their slot holds another revolution), so
// yielding each before the first kid above it keeps key order.
func (w *walker[T]) root(kids []rootKid, stuck []*ovItem, from, hi uint64) {
	for _, k := range kids {
		for w.taken < len(stuck) && stuck[w.taken].key < k.base {
			w.taken++
			if !w.yieldStuck(stuck[w.taken-1].key, stuck[w.taken-1].p) {
				return
			}
		}
		if !w.visit(k.c, 1, from, hi) {
			return
		}
	}
	for w.taken < len(stuck) {
		w.taken++
		if !w.yieldStuck(stuck[w.taken-1].key, stuck[w.taken-1].p) {
			return
		}
	}
}

// yieldStuck yields a stuck overflow value.
func (w *walker[T]) yieldStuck(key uint64, p unsafe.Pointer) bool {
	b := key - key%w.s.bucket
	if w.s.trace != nil {
		op := OpPeep
		if w.consume {
			op = OpWalk
		}
		w.s.emit(op, b, -1)
	}
	if !w.yield(b, (*T)(p)) {
		w.stop(b)
		w.hold(b)
		return false
	}
	return true
}

// stuck returns, in key order (insertion order within a bucket), the
// overflow values with keys below hi that the tree could take but for a
// subtree of another revolution holding their top-level slot: late keys,
// mostly, whose slot a later revolution already uses. With take they leave
// the overflow area (the caller puts back what it does not yield). The slice
// is the consumer's scratch space.
//
// A key the tree can take whose slot is free or holds its own revolution
// is not stuck, though it waits in the overflow area: its producer read
// the horizon before a walk moved it and pushed late. Yielded here it would
// come after the subtree its slot holds; it enters the tree at the next
// drain instead, as a late key.
func (s *Store[T]) stuck(from, hi uint64, take bool) []*ovItem {
	t := min(s.top(s.fv.Load()), s.top(from))
	if s.ov.empty() || !s.isStuck(s.ov.min.Load(), t, hi) {
		return nil
	}
	out := s.stuckBuf[:0]
	if take {
		for it := s.ov.takeAll(); it != nil; {
			next := it.next
			switch {
			case !s.isStuck(it.key, t, hi):
				s.ov.pushItem(it)
			case s.held(it.key):
				out = append(out, it)
			default: // left for the closing drain, so not returned by this walk
				s.stopFloor = min(s.stopFloor, it.key)
				s.ov.pushItem(it)
			}
			it = next
		}
	} else {
		for it := s.ov.head.Load(); it != nil; it = it.next {
			if s.isStuck(it.key, t, hi) && s.held(it.key) {
				out = append(out, it)
			}
		}
		slices.Reverse(out) // the stack is newest first
	}
	// Insertion sort by bucket: stable, and the list is short.
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].key-out[j].key%s.bucket < out[j-1].key-out[j-1].key%s.bucket; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	s.stuckBuf = out
	return out
}

// isStuck reports whether an overflow key the tree can take (at most t, see
// top) is in a bucket that starts below hi.
func (s *Store[T]) isStuck(k, t, hi uint64) bool { return k <= t && k-k%s.bucket < hi }

// held reports whether a subtree of another revolution holds key's
// top-level slot. Only the root aliases: a node's children all lie in its
// own range.
func (s *Store[T]) held(key uint64) bool {
	lv := s.levels[0]
	q, r := divmod(key, lv.Div)
	_, i := divmod(q, lv.Mod)
	c := s.root.child(i, lv)
	return c != nil && baseOf(c, len(s.levels) == 1) != key-r
}

// putBack returns stuck values a walk did not yield to the overflow area.
func (s *Store[T]) putBack(items []*ovItem) {
	for _, it := range items {
		s.ov.pushItem(it)
	}
}

// rootKids returns the children of the root whose bases fall in the window
// [from, hi) rounded down to a top-level slot, in key order. The slice is
// the consumer's scratch space, valid until the next call.
func (s *Store[T]) rootKids(from, hi uint64) []rootKid {
	lv := s.levels[0]
	n := s.root
	lo := from - from%lv.Div
	kids := s.rootBuf[:0]
	for i := n.next(0, lv.Mod); i < lv.Mod; i = n.next(i+1, lv.Mod) {
		c := n.child(i, lv)
		if c == nil {
			continue
		}
		if b := baseOf(c, len(s.levels) == 1); b >= lo && b < hi {
			kids = append(kids, rootKid{b, c})
		}
	}
	s.rootBuf = kids
	slices.SortFunc(kids, func(a, b rootKid) int { return cmp.Compare(a.base, b.base) })
	return kids
}

// A rootKid is a child of the root gathered by a walk.
type rootKid struct {
	base uint64
	c    unsafe.Pointer
}

// visit walks child c at depth d (a leaf when d is the number of levels).
func (w *walker[T]) visit(c unsafe.Pointer, d int, from, hi uint64) bool {
	if d == len(w.s.levels) {
		return w.leaf((*leaf)(c))
	}
	return w.node((*node)(c), d, from, hi)
}

func (w *walker[T]) node(n *node, d int, from, hi uint64) bool {
	lv := w.s.levels[d]
	i := uint64(0)
	if from > n.base {
		i = (from - n.base) / lv.Div
	}
	for i = n.next(i, lv.Mod); i < lv.Mod; i = n.next(i+1, lv.Mod) {
		p := n.base + i*lv.Div
		if p >= hi {
			break
		}
		c := n.child(i, lv)
		if c == nil || baseOf(c, d+1 == len(w.s.levels)) != p {
			continue
		}
		if !w.visit(c, d+1, from, hi) {
			return false
		}
	}
	return true
}

// leaf reads the leaf from its walk cursor up to the reservation cursor.
func (w *walker[T]) leaf(l *leaf) bool {
	if w.probe {
		if l.walk < l.end.Load() {
			w.found = l.base
			return false
		}
		return true
	}
	i, seg := l.walk, l.walkSeg
	defer func() {
		if w.consume {
			l.walk, l.walkSeg = i, seg
		}
	}()
	for end := l.end.Load(); i < end; {
		sg := l.segmentFor(seg, i, false)
		if sg == nil { // reserved, but its segment is not published yet
			return w.park(l)
		}
		seg = sg
		if seg.start > i { // a compacted stretch: nothing left in it
			i = seg.start
			continue
		}
		slots := seg.slots()
		for stop := min(seg.end(), end); i < stop; {
			slot := &slots[i-seg.start]
			p := atomic.LoadPointer(slot)
			if p == sentinel {
				return w.park(l)
			}
			i++
			if p != nil && w.take(l, slot, p) && !w.yield(l.base, (*T)(p)) {
				w.stop(l.base)
				w.hold(max(l.base, l.min.Load()))
				return false
			}
		}
	}
	return true
}

// take claims a value the walk met in slot: consumes it (unless a producer
// took it back first) when walking, just reads it when peeping.
func (w *walker[T]) take(l *leaf, slot *unsafe.Pointer, p unsafe.Pointer) bool {
	if w.consume {
		if !atomic.CompareAndSwapPointer(slot, p, nil) {
			return false // a producer took it back
		}
		if w.s.trace != nil {
			w.s.emit(OpWalk, l.base, len(w.s.levels))
		}
	} else if w.s.trace != nil {
		w.s.emit(OpPeep, l.base, len(w.s.levels))
	}
	return true
}

// park notes a reserved, unfilled slot: the walk goes on with the next
// bucket, but FirstValid will not pass this one, and StopFloor is at most
// the leaf's floor, since the values behind the slot are not returned.
func (w *walker[T]) park(l *leaf) bool {
	if w.s.trace != nil {
		w.s.emit(OpPending, l.base, len(w.s.levels))
	}
	w.stop(l.base)
	w.hold(max(l.base, l.min.Load()))
	return true
}

// hold lowers StopFloor to key, a lower bound of the keys of values a
// consuming walk leaves behind where it stopped or parked. A leaf's floor
// covers every slot reserved before the walk read its cursor: a producer
// lowers it before it reserves.
func (w *walker[T]) hold(key uint64) {
	switch {
	case w.probe:
	case w.consume:
		w.s.stopFloor = min(w.s.stopFloor, key)
	default:
		w.s.peepFloor = min(w.s.peepFloor, key)
	}
}

func (w *walker[T]) stop(key uint64) {
	if key < w.floor {
		w.floor = key
	}
}
