package stash

import (
	"math"
	"math/bits"
	"sync/atomic"
	"unsafe"
)

// maxLevels bounds the depth of a Store, and so the work of one descent.
const maxLevels = 16

// A Store holds *T values keyed by uint64. Any number of goroutines may Add
// concurrently; Walk, Peep and Clean belong to a single consumer.
type Store[T any] struct {
	levels    []Level
	leafChunk int
	span      uint64 // keys the tree holds at once: Levels[0].Div * Levels[0].Mod
	bucket    uint64 // width of a leaf
	margin    uint64
	trace     func(Event)

	root *node
	fv   atomic.Uint64 // first valid key: everything below has been walked
	lv   atomic.Uint64 // last valid key: nothing above it is in the tree
	ov   overflow
	busy atomic.Bool // a consumer operation is running

	stopFloor uint64 // see StopFloor; the consumer's
	peepFloor uint64 // see PeepFloor; the consumer's

	rootBuf  []rootKid // the consumer's scratch space for walking the root
	stuckBuf []*ovItem // and for the overflow values a walk yields directly
}

// New returns an empty Store whose FirstValid is start.
func New[T any](cfg Config, start uint64) (*Store[T], error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	if len(cfg.Levels) > maxLevels {
		return nil, errTooDeep
	}
	s := &Store[T]{
		levels:    append([]Level(nil), cfg.Levels...),
		leafChunk: cfg.LeafChunk,
		span:      cfg.Levels[0].Div * cfg.Levels[0].Mod,
		bucket:    cfg.Levels[len(cfg.Levels)-1].Div,
		margin:    cfg.HorizonMargin,
		trace:     cfg.Trace,
		root:      newNode(0, cfg.Levels[0]),
	}
	if s.leafChunk == 0 {
		s.leafChunk = inlineSlots
	}
	s.fv.Store(start)
	s.lv.Store(start)
	s.ov.init()
	return s, nil
}

// Span is the number of keys the tree holds at once; keys at or beyond
// FirstValid+Span-HorizonMargin wait in the overflow area.
func (s *Store[T]) Span() uint64 { return s.span }

// Bucket is the width of a leaf: keys within one bucket are kept in
// insertion order.
func (s *Store[T]) Bucket() uint64 { return s.bucket }

// FirstValid is the walk's low-water mark: every value with a key below it
// has been walked.
func (s *Store[T]) FirstValid() uint64 { return s.fv.Load() }

// LastValid is an upper bound of the keys in the tree.
func (s *Store[T]) LastValid() uint64 { return s.lv.Load() }

// Overflow reports how many values wait in the overflow area.
func (s *Store[T]) Overflow() int { return int(s.ov.n.Load()) }

// OverflowMin is a lower bound of the keys waiting in the overflow area; ok
// is false when it is empty.
func (s *Store[T]) OverflowMin() (key uint64, ok bool) {
	m := s.ov.min.Load()
	return m, !s.ov.empty()
}

// StopFloor is, after a Walk that the caller stopped early or that parked
// at a slot a producer had reserved but not filled (see Walk), a lower bound
// of the keys of the values in buckets starting below its end that it has
// not returned; after a Walk that ran to its end without parking it is
// math.MaxUint64. A consumer that batches what it walks may act on
// everything below it in key order, whether or not it stopped the Walk.
func (s *Store[T]) StopFloor() uint64 { return s.stopFloor }

// PeepFloor is, after a PeepRange or Peep iterated to its end, a lower
// bound of the keys of the values in its window that it did not yield
// because it parked at a slot a producer had reserved but not filled (the
// values behind such a slot, filled or not, are not yielded); it is
// math.MaxUint64 if it parked nowhere. A consumer that plans from what it
// peeped must not plan past it.
func (s *Store[T]) PeepFloor() uint64 { return s.peepFloor }

// Add stores v at key. It never blocks and may run concurrently with any
// other method. Values at one key are walked in the order they were added,
// but for one that the overflow area or Clean's salvage filed late (see
// "Insertion order within a bucket" in the package documentation).
// Add panics if v is nil.
//
// Add returns a Ref to the slot v went to, with which Remove can take v out
// again before the walk reaches it.
func (s *Store[T]) Add(key uint64, v *T) Ref {
	if v == nil {
		panic("stash: Add of a nil value")
	}
	return Ref{s.add(key, unsafe.Pointer(v))}
}

// Holds reports whether the slot r names holds v: neither the walk nor
// Remove has taken it out, and it has not moved.
func (s *Store[T]) Holds(r Ref, v *T) bool {
	return r.slot != nil && atomic.LoadPointer(r.slot) == unsafe.Pointer(v)
}

// A Ref names the slot a value was added to. The zero Ref names none.
type Ref struct {
	slot *unsafe.Pointer
}

// Remove takes v out of the slot r names, if it is still there, and reports
// whether it did. The walk then never returns it. Any goroutine may call
// Remove. A value that was moved (from the overflow area, or by Clean's
// salvage) is no longer in the slot its Ref names and stays.
func (s *Store[T]) Remove(r Ref, v *T) bool {
	return r.slot != nil && atomic.CompareAndSwapPointer(r.slot, unsafe.Pointer(v), nil)
}

// add stores p at key and returns the address of its slot, or nil if it
// went to the overflow area.
func (s *Store[T]) add(key uint64, p unsafe.Pointer) *unsafe.Pointer {
	for {
		fv := s.lower(key)
		if key > s.top(fv) {
			s.ov.push(key, p)
			if s.trace != nil {
				s.emit(OpOverflow, key, -1)
			}
			return nil
		}
		s.widen(key)
		l := s.descend(key)
		if l == nil { // the path belongs to another revolution
			s.ov.push(key, p)
			if s.trace != nil {
				s.emit(OpOverflow, key, -1)
			}
			return nil
		}
		l.lowerMin(key)
		slot := l.reserve()
		atomic.StorePointer(slot, p)
		// A walk may have passed key between the first lower and the store.
		s.lower(key)
		if s.attached(key, l) {
			if s.trace != nil {
				s.emit(OpAdd, l.base, len(s.levels))
			}
			return slot
		}
		// Clean detached the subtree under us. Take the value back unless
		// the walk or Clean's salvage already has it.
		if !atomic.CompareAndSwapPointer(slot, p, nil) {
			return nil
		}
		if s.trace != nil {
			s.emit(OpRetry, key, -1)
		}
	}
}

// top is the last key the tree can take while FirstValid is fv: the key
// before the horizon, FirstValid's top-level slot plus span less margin.
// It is inclusive so that it can say that the tree takes every key up to
// math.MaxUint64, as it does once the span reaches the end of the key
// space: no later revolution is left for a key there to alias.
func (s *Store[T]) top(fv uint64) uint64 {
	_, r := divmod(fv, s.levels[0].Div)
	base := fv - r
	if base > math.MaxUint64-s.span {
		return math.MaxUint64
	}
	return base + s.span - s.margin - 1
}

// lower makes FirstValid at most key and returns it.
func (s *Store[T]) lower(key uint64) uint64 {
	for {
		fv := s.fv.Load()
		if key >= fv {
			return fv
		}
		if s.fv.CompareAndSwap(fv, key) {
			if s.trace != nil {
				s.emit(OpLate, key, -1)
			}
			return key
		}
	}
}

// widen makes LastValid at least key.
func (s *Store[T]) widen(key uint64) {
	for {
		lv := s.lv.Load()
		if key <= lv || s.lv.CompareAndSwap(lv, key) {
			return
		}
	}
}

// descend finds or creates the leaf for key and returns it. It returns nil
// if a node on the path belongs to another revolution.
//
// It keeps no record of the path: a producer may run on a goroutine's first,
// small stack (an AfterFunc's f re-arming its timer), and a path of
// maxLevels steps in add's frame made every such goroutine grow its stack.
// attached descends again instead.
func (s *Store[T]) descend(key uint64) *leaf {
	n := s.root
	last := len(s.levels) - 1
	for d := range s.levels {
		lv := &s.levels[d]
		q, r := divmod(key, lv.Div)
		_, i := divmod(q, lv.Mod)
		base := key - r
		slot := n.kids.at(int(i), lv.Chunk, true)
		c := atomic.LoadPointer(slot)
		for c == nil {
			var fresh unsafe.Pointer
			if d == last {
				fresh = unsafe.Pointer(newLeaf(base, s.leafChunk))
			} else {
				fresh = unsafe.Pointer(newNode(base, s.levels[d+1]))
			}
			if atomic.CompareAndSwapPointer(slot, nil, fresh) {
				c = fresh
			} else {
				c = atomic.LoadPointer(slot)
			}
		}
		if !n.marked(i) {
			n.mark(i)
		}
		if baseOf(c, d == last) != base {
			return nil
		}
		if d == last {
			return (*leaf)(c)
		}
		n = (*node)(c)
	}
	panic("unreachable")
}

// attached reports whether l, the leaf descend returned for key, is still
// in the tree: whether the root still leads to it. Clean detaches a subtree
// by emptying the slot that holds it and never puts it back (a later
// descent makes a fresh node there), so a leaf is reachable again only
// along the path it was found on, with every node of it still in place.
func (s *Store[T]) attached(key uint64, l *leaf) bool {
	n := s.root
	last := len(s.levels) - 1
	for d := range s.levels {
		lv := &s.levels[d]
		q, _ := divmod(key, lv.Div)
		_, i := divmod(q, lv.Mod)
		c := n.child(i, *lv)
		if c == nil {
			return false
		}
		if d == last {
			return c == unsafe.Pointer(l)
		}
		n = (*node)(c)
	}
	return false
}

// acquire marks the start of a consumer operation.
func (s *Store[T]) acquire() {
	if !s.busy.CompareAndSwap(false, true) {
		panic("stash: Walk, Peep and Clean run concurrently; a Store has one consumer")
	}
}

func (s *Store[T]) release() { s.busy.Store(false) }

// divmod returns x / d and x % d, by shift and mask when d is a power of
// two (as in DefaultLevels): a 64-bit division costs tens of cycles, and a
// descent would otherwise do several per level.
func divmod(x, d uint64) (q, r uint64) {
	if d&(d-1) == 0 {
		return x >> bits.TrailingZeros64(d), x & (d - 1)
	}
	return x / d, x % d
}
