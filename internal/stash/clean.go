package stash

import (
	"sync/atomic"
	"unsafe"
)

// A detached subtree: Clean took it out of the tree and keeps it until it
// knows no producer left a value in it.
type detached struct {
	c     unsafe.Pointer
	depth int    // depth of c: a leaf when depth is the number of levels
	last  uint64 // the last key c covers (its end would wrap at the top)
}

// Clean reclaims every subtree that lies wholly below FirstValid, and the
// consumed front of the leaf FirstValid is in. It returns the number of
// subtrees detached. Only the consumer may call Clean.
//
// Clean needs no time margin: everything below FirstValid has been walked,
// and a producer that raced into a detached subtree either takes its value
// back and adds it again, or leaves it for the salvage at the end of Clean,
// which re-adds whatever it finds once FirstValid has moved back under the
// subtree.
func (s *Store[T]) Clean() int {
	s.acquire()
	defer s.release()
	return s.cleanLocked()
}

// cleanLocked is Clean for a caller that holds the consumer role. It ends by
// moving into the tree the overflow values whose paths the detached
// subtrees held.
func (s *Store[T]) cleanLocked() int {
	fv := s.fv.Load()
	var dropped []detached
	s.clean(s.root, 0, fv, &dropped)
	if len(dropped) == 0 {
		return 0
	}
	fv = s.fv.Load()
	for _, d := range dropped {
		if d.last >= fv {
			s.salvage(d.c, d.depth)
		}
	}
	s.fileOverflow()
	return len(dropped)
}

func (s *Store[T]) clean(n *node, d int, fv uint64, dropped *[]detached) {
	lv := s.levels[d]
	leaves := d+1 == len(s.levels)
	for i := n.next(0, lv.Mod); i < lv.Mod; i = n.next(i+1, lv.Mod) {
		slot := n.kids.at(int(i), lv.Chunk, false)
		if slot == nil {
			continue
		}
		c := atomic.LoadPointer(slot)
		if c == nil {
			continue
		}
		// base+lv.Div wraps to 0 in the last slot of the key space, so
		// the comparisons are on fv-base.
		base := baseOf(c, leaves)
		switch {
		case base <= fv && fv-base >= lv.Div:
			n.unmark(i) // before the slot empties: a new child sets it again
			if atomic.CompareAndSwapPointer(slot, c, nil) {
				*dropped = append(*dropped, detached{c, d + 1, base + (lv.Div - 1)})
				if s.trace != nil {
					s.emit(OpClean, base, d)
				}
			}
		case base <= fv:
			if leaves {
				l := (*leaf)(c)
				l.first.Store(l.walkSeg)
			} else {
				s.clean((*node)(c), d+1, fv, dropped)
			}
		}
	}
}

// salvage re-adds every value left in a detached subtree.
func (s *Store[T]) salvage(c unsafe.Pointer, d int) {
	if d < len(s.levels) {
		n := (*node)(c)
		lv := s.levels[d]
		for i := uint64(0); i < lv.Mod; i++ {
			if k := n.child(i, lv); k != nil {
				s.salvage(k, d+1)
			}
		}
		return
	}
	l := (*leaf)(c)
	// Slots not yet reserved read as the sentinel; a reservation whose
	// segment is not published is its producer's to add again, once it
	// finds the subtree detached.
	for seg := l.first.Load(); seg != nil; seg = seg.next.Load() {
		slots := seg.slots()
		for i := range slots {
			slot := &slots[i]
			p := atomic.LoadPointer(slot)
			if p == nil || p == sentinel {
				continue
			}
			if atomic.CompareAndSwapPointer(slot, p, nil) {
				if s.trace != nil {
					s.emit(OpSalvage, l.base, d)
				}
				s.add(l.base, p)
			}
		}
	}
}

// fileOverflow moves the overflow area into the tree when the tree can take a key
// in it, oldest first, so values at one key that all waited there keep
// their order. What still does not fit goes back. It reports whether it
// moved anything.
func (s *Store[T]) fileOverflow() bool {
	m := s.ov.min.Load()
	if s.ov.empty() || m > s.top(s.fv.Load()) {
		return false
	}
	if s.trace != nil {
		s.emit(OpDrain, m, -1)
	}
	for it := s.ov.takeAll(); it != nil; it = it.next {
		s.add(it.key, it.p)
	}
	return true
}

// admitOverflow files the overflow area for a walk. If a key the tree can take
// still waits there afterwards, its path is held by a subtree of an older
// revolution that the walk has passed: Clean detaches that subtree and the
// key enters the tree.
func (s *Store[T]) admitOverflow() {
	if !s.fileOverflow() {
		return
	}
	if !s.ov.empty() && s.ov.min.Load() <= s.top(s.fv.Load()) {
		s.cleanLocked()
	}
}
