package stash

import (
	"iter"
	"math"
	"sync/atomic"
	"unsafe"
)

// Walk returns an iterator over every value in a bucket that starts below
// end, in key order (insertion order within a bucket), starting at
// FirstValid. Each value is consumed as it is yielded. Stopping the
// iteration early keeps the rest for the next Walk.
//
// When the iteration ends, FirstValid moves up to the first bucket that may
// still hold a value below end: the bucket where the iteration stopped, a
// bucket with a slot a producer has reserved but not filled, or end rounded
// down to a bucket.
//
// Walk first moves values that have come within reach from the overflow area
// into the tree. Only the consumer may call Walk.
func (s *Store[T]) Walk(end uint64) iter.Seq2[uint64, *T] {
	return func(yield func(uint64, *T) bool) {
		s.acquire()
		defer s.release()
		s.drain(end)
		fv := s.fv.Load()
		w := walker[T]{s: s, consume: true, yield: yield, floor: math.MaxUint64}
		w.root(fv, s.limit(end))
		next := end - end%s.bucket
		if w.floor < next {
			next = w.floor
		}
		if next != fv {
			s.fv.CompareAndSwap(fv, next)
		}
	}
}

// Peep returns an iterator over the values Walk(end) would yield, in the
// same order, without consuming anything or moving any cursor. Only the
// consumer may call Peep.
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
		w := walker[T]{s: s, yield: yield, floor: math.MaxUint64}
		w.root(begin, s.limit(end))
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

// root walks the coarsest level, whose slots are reused every revolution: a
// child is visited only when its base is the one the window expects there.
func (w *walker[T]) root(from, hi uint64) {
	lv := w.s.levels[0]
	n := w.s.root
	p := from - from%lv.Div
	for p < hi {
		i := (p / lv.Div) % lv.Mod
		j := n.next(i, lv.Mod)
		if j == lv.Mod { // wrap around to the start of the array
			j = n.next(0, i)
			if j == i {
				return // no child at all
			}
			j += lv.Mod
		}
		gap := (j - i) * lv.Div
		if p > math.MaxUint64-gap {
			return
		}
		p += gap
		if p >= hi {
			return
		}
		if c := n.child(j%lv.Mod, lv); c != nil && baseOf(c, len(w.s.levels) == 1) == p {
			if !w.visit(c, 1, from, hi) {
				return
			}
		}
		if p > math.MaxUint64-lv.Div {
			return
		}
		p += lv.Div
	}
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
