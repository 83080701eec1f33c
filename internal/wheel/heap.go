package wheel

import "math"

// nearItem is a holder in the driver's near heap: an entry examined at key
// (its deadline), and to be fired by latest (see Wheel.slack).
type nearItem struct {
	key    int64
	latest int64 // >= key
	e      *Entry
}

// nearHeap is a binary min-heap of nearItems by key, owned by the
// consumer (see consumer.go). It holds the timers due by the end of the
// bucket the walk has reached (a lookahead past now, or the bucket being
// pre-walked), and tickers re-filed at a firing whose next tick is within
// max(lookahead, tickerNear) of it, about 134 ms, which may lie beyond the
// walk's end (see the ticker case of driver.fire in fire.go).
type nearHeap []nearItem

// wake returns when the driver must wake for the items: the earliest
// latest instant among them, so that one wake-up fires every item due by
// then, each within its slack; or, when the first item is alone in that
// window, its own deadline, since waiting would gather nothing. It is
// math.MaxInt64 if there are none.
func (h nearHeap) wake(stack []int32) (int64, []int32) {
	best, stack := h.latest(stack)
	if best == math.MaxInt64 {
		return best, stack
	}
	// The first item is alone if both its children (and so everything
	// below them) are due after best.
	if (len(h) < 2 || h[1].key > best) && (len(h) < 3 || h[2].key > best) {
		return h[0].key, stack
	}
	return best, stack
}

// latest returns the earliest latest of the items, or math.MaxInt64 if
// there are none: the instant by which the driver must wake to fire every
// item within its slack. It visits only the items keyed before that
// instant, the ones the wake-up then fires, so it costs what firing them
// does. stack is scratch space, returned for reuse.
func (h nearHeap) latest(stack []int32) (int64, []int32) {
	if len(h) == 0 {
		return math.MaxInt64, stack
	}
	best := h[0].latest
	stack = append(stack[:0], 1, 2)
	for len(stack) > 0 {
		i := int(stack[len(stack)-1])
		stack = stack[:len(stack)-1]
		if i >= len(h) || h[i].key >= best {
			continue // neither it nor what lies below it fires sooner
		}
		best = min(best, h[i].latest)
		stack = append(stack, int32(2*i+1), int32(2*i+2))
	}
	return best, stack
}

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
