package stash

// Backlog returns how many slots of the leaf for key's bucket the walk has
// not passed: values, slots reserved but not yet filled, and slots whose
// values were taken out with Remove. It is 0 when the tree holds no leaf
// for that bucket, or holds one only for another revolution. It does not
// look at the overflow area. A consumer can tell from it how long a walk of
// the bucket will take. Only the consumer may call Backlog.
func (s *Store[T]) Backlog(key uint64) int {
	s.acquire()
	defer s.release()
	n := s.root
	last := len(s.levels) - 1
	for d, lv := range s.levels {
		q, r := divmod(key, lv.Div)
		_, i := divmod(q, lv.Mod)
		c := n.child(i, lv)
		if c == nil || baseOf(c, d == last) != key-r {
			return 0
		}
		if d == last {
			l := (*leaf)(c)
			return int(l.end.Load() - l.walk)
		}
		n = (*node)(c)
	}
	panic("unreachable")
}
