package stashtime

// nearItem is a holder in the driver's near heap: an entry whose deadline
// lies in a bucket the walk has already consumed, examined at key.
type nearItem struct {
	key int64
	e   *entry
}

// nearHeap is a binary min-heap of nearItems by key, owned by the driver.
// It only ever holds timers due by the end of the current bucket or of the
// bucket being pre-walked.
type nearHeap []nearItem

func (h *nearHeap) push(it nearItem) {
	*h = append(*h, it)
	s := *h
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if s[p].key <= s[i].key {
			break
		}
		s[p], s[i] = s[i], s[p]
		i = p
	}
}

func (h *nearHeap) pop() nearItem {
	s := *h
	top := s[0]
	n := len(s) - 1
	s[0] = s[n]
	s[n] = nearItem{}
	s = s[:n]
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && s[r].key < s[l].key {
			m = r
		}
		if s[i].key <= s[m].key {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	*h = s
	return top
}
