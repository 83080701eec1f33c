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
		defer func() {
			if reading {
				s.settle(from)
			}
		}()
		for {
			s.reach()
			var target, hi uint64
			from, target, hi = s.advance(end)
			w.floor = math.MaxUint64
			reading = true
			hi = s.limit(hi)
			w.root(s.rootKids(from, hi), from, hi)
			reading = false
			s.settle(w.floor)
			if w.floor != math.MaxUint64 || target >= end-end%s.bucket {
				break
			}
		}
		s.drain()
	}
}

// advance picks the next step of a walk up to end and raises FirstValid to
// the step's target before the step reads anything. It returns the window
// [from, hi) to read and the target. A step stops short of end at the bucket
// of the first overflow key the tree cannot take yet.
func (s *Store[T]) advance(end uint64) (from, target, hi uint64) {
	for {
		from = s.fv.Load()
		target, hi = end-end%s.bucket, end
		if m, ok := s.OverflowMin(); ok && m < end {
			// Keys below the horizon wait only for Clean to free their
			// path; the step stops at the first one the tree cannot take.
			if h := s.horizon(from); m < h {
				m = s.ov.minFrom(h)
			}
			if m < end {
				if b := m - m%s.bucket; b < target {
					target, hi = b, b
				}
			}
		}
		if target <= from || s.fv.CompareAndSwap(from, target) {
			return from, target, hi
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
		s.drain()
		w := walker[T]{s: s, yield: yield, floor: math.MaxUint64}
		hi := s.limit(end)
		w.root(s.rootKids(begin, hi), begin, hi)
	}
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
}

// root walks the coarsest level, whose slots are reused every revolution.
// The window may be longer than a revolution (FirstValid was lowered far by
// a late key), so kids, the children whose bases fall in the window, come
// gathered in key order (rootKids); a child of an older revolution is left
// to Clean.
func (w *walker[T]) root(kids []rootKid, from, hi uint64) {
	for _, k := range kids {
		if !w.visit(k.c, 1, from, hi) {
			return
		}
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
	chunk := w.s.leafChunk
	i, seg := l.walk, l.walkSeg
	defer func() {
		if w.consume {
			l.walk, l.walkSeg = i, seg
		}
	}()
	for end := l.end.Load(); i < end; i++ {
		slot, sg := l.slotAt(seg, i, chunk)
		if slot == nil {
			return w.park(l)
		}
		seg = sg
		p := atomic.LoadPointer(slot)
		if p == sentinel {
			return w.park(l)
		}
		if p == nil {
			continue
		}
		if w.consume {
			if !atomic.CompareAndSwapPointer(slot, p, nil) {
				continue // a producer took it back
			}
			if w.s.trace != nil {
				w.s.emit(OpWalk, l.base, len(w.s.levels))
			}
		} else if w.s.trace != nil {
			w.s.emit(OpPeep, l.base, len(w.s.levels))
		}
		if !w.yield(l.base, (*T)(p)) {
			i++
			w.stop(l.base)
			if w.consume {
				w.s.stopFloor = max(l.base, l.min.Load())
			}
			return false
		}
	}
	return true
}

// park notes a reserved, unfilled slot: the walk goes on with the next
// bucket, but FirstValid will not pass this one.
func (w *walker[T]) park(l *leaf) bool {
	if w.s.trace != nil {
		w.s.emit(OpPending, l.base, len(w.s.levels))
	}
	w.stop(l.base)
	return true
}

func (w *walker[T]) stop(key uint64) {
	if key < w.floor {
		w.floor = key
	}
}
