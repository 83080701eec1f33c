package stash

// Compact unlinks, in every leaf, the segments ahead of the walk whose slots
// have all been emptied, by Remove or by producers taking values back, and
// returns how many it unlinked. A workload that removes most of what it
// adds (timers stopped long before they are due) then holds memory in
// proportion to what is live, not to everything added since the walk last
// passed. Only the consumer may call Compact.
//
// A segment is unlinked only when every one of its slots is empty. An empty
// slot stays empty, so no producer is still writing to it and none will
// reserve in it again; the walk, which alone follows the chain from its
// cursor, steps over the gap. The newest segment of a leaf always stays, so
// producers keep appending at the true end of the chain, and an unlinked
// segment keeps its link onward for a producer that still holds it.
func (s *Store[T]) Compact() int {
	s.acquire()
	defer s.release()
	n := 0
	s.compact(s.root, 0, &n)
	return n
}

func (s *Store[T]) compact(nd *node, d int, n *int) {
	lv := s.levels[d]
	leaves := d+1 == len(s.levels)
	for i := nd.next(0, lv.Mod); i < lv.Mod; i = nd.next(i+1, lv.Mod) {
		c := nd.child(i, lv)
		switch {
		case c == nil:
		case leaves:
			*n += (*leaf)(c).compact()
		default:
			s.compact((*node)(c), d+1, n)
		}
	}
}

// compact unlinks the emptied segments after the walk's and returns how
// many it unlinked. Only the consumer calls it.
func (l *leaf) compact() int {
	n := 0
	prev := l.walkSeg
	for {
		seg := prev.next.Load()
		if seg == nil {
			return n
		}
		next := seg.next.Load()
		if next == nil || !seg.emptied() {
			prev = seg
			continue
		}
		prev.next.Store(next)
		n++
	}
}
