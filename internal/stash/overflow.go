package stash

import (
	"math"
	"sync/atomic"
	"unsafe"
)

// overflow holds values whose keys the tree cannot take yet: beyond the
// span, within HorizonMargin of it, or on a path still held by a subtree of
// another revolution. It is a lock-free stack; min is a lower bound of the
// keys in it (math.MaxUint64 when empty), so the consumer drains it only
// when the walk can reach something in it. A key math.MaxUint64 leaves min
// at its empty value: empty, not min, tells whether anything waits.
type overflow struct {
	head atomic.Pointer[ovItem]
	min  atomic.Uint64
	n    atomic.Int64
}

type ovItem struct {
	key  uint64
	p    unsafe.Pointer
	next *ovItem
}

func (o *overflow) init() { o.min.Store(math.MaxUint64) }

// empty reports whether the stack holds nothing. A push links its item
// before it lowers min, so a non-empty stack whose min still reads
// math.MaxUint64 holds that key or a push in flight.
func (o *overflow) empty() bool { return o.head.Load() == nil }

func (o *overflow) push(key uint64, p unsafe.Pointer) {
	o.pushItem(&ovItem{key: key, p: p})
}

func (o *overflow) pushItem(it *ovItem) {
	key := it.key
	for {
		it.next = o.head.Load()
		if o.head.CompareAndSwap(it.next, it) {
			break
		}
	}
	o.n.Add(1)
	for {
		m := o.min.Load()
		if key >= m || o.min.CompareAndSwap(m, key) {
			return
		}
	}
}

// takeAll empties the stack and returns what it held, oldest first. The
// bound is reset first, so a concurrent push either lands in the list taken
// here or lowers the bound again afterwards.
func (o *overflow) takeAll() *ovItem {
	o.min.Store(math.MaxUint64)
	var l *ovItem
	for it := o.head.Swap(nil); it != nil; {
		next := it.next
		it.next = l
		l = it
		it = next
		o.n.Add(-1)
	}
	return l
}

// minAbove returns the least key above t in the overflow area; ok is false
// when there is none. Only the consumer calls it: it alone unlinks items.
func (o *overflow) minAbove(t uint64) (m uint64, ok bool) {
	m = math.MaxUint64
	for it := o.head.Load(); it != nil; it = it.next {
		if it.key > t && it.key <= m {
			m, ok = it.key, true
		}
	}
	return m, ok
}
