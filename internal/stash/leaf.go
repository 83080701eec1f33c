package stash

import (
	"math"
	"sync/atomic"
	"unsafe"
)

// sentinel marks a leaf slot that a producer has reserved but not yet
// filled. The walk never steps past it.
var sentinel = unsafe.Pointer(new(uint64))

// A leaf grows by segments: its first segment has LeafChunk slots and sits
// in the leaf itself when it fits in inlineSlots, and each later one is
// twice the size of the one before, up to maxSegment slots. A bucket that
// gets one value costs one small allocation; a bucket that gets thousands
// costs a few dozen.
const (
	inlineSlots = 4
	maxSegment  = 64
)

// A segment is a run of consecutive leaf slots, filled with the sentinel
// before it is published. Segments beyond the first are linked and
// published with CAS.
type segment struct {
	start uint64 // index of the segment's first slot
	next  atomic.Pointer[segment]
	slots []unsafe.Pointer
}

func newSegment(start uint64, n int) *segment {
	return &segment{start: start, slots: sentinels(make([]unsafe.Pointer, n))}
}

func sentinels(s []unsafe.Pointer) []unsafe.Pointer {
	for i := range s {
		s[i] = sentinel
	}
	return s
}

// end is the index after the segment's last slot.
func (s *segment) end() uint64 { return s.start + uint64(len(s.slots)) }

// A leaf is one bucket: an append-only list of values.
//
// Producers reserve an index with end and fill the slot. Only the consumer
// touches walk, walkSeg and first: walk is the next index to read, walkSeg
// the segment that holds it, and first the oldest segment still referenced
// (Clean moves it up to walkSeg, dropping consumed segments).
type leaf struct {
	base    uint64        // first key of the bucket
	min     atomic.Uint64 // lowest key ever added: a floor for what the walk has not read
	end     atomic.Uint64
	tail    atomic.Pointer[segment] // newest segment: where producers start looking
	first   atomic.Pointer[segment]
	walk    uint64
	walkSeg *segment
	seg0    segment
	inline  [inlineSlots]unsafe.Pointer // seg0's slots, when they fit
}

func newLeaf(base uint64, chunk int) *leaf {
	l := &leaf{base: base}
	l.min.Store(math.MaxUint64)
	if chunk <= inlineSlots {
		l.seg0.slots = sentinels(l.inline[:chunk])
	} else {
		l.seg0.slots = sentinels(make([]unsafe.Pointer, chunk))
	}
	l.tail.Store(&l.seg0)
	l.first.Store(&l.seg0)
	l.walkSeg = &l.seg0
	return l
}

// lowerMin makes the leaf's floor at most key. Producers call it before they
// reserve a slot, so a walk that reads the slot sees the floor.
func (l *leaf) lowerMin(key uint64) {
	for {
		m := l.min.Load()
		if key >= m || l.min.CompareAndSwap(m, key) {
			return
		}
	}
}

// reserve claims the next slot and returns its address; the slot reads as
// the sentinel until the caller stores a value.
func (l *leaf) reserve() *unsafe.Pointer {
	i := l.end.Add(1) - 1
	s := l.tail.Load()
	if s.start > i {
		s = l.first.Load()
	}
	s = l.segmentFor(s, i, true)
	return &s.slots[i-s.start]
}

// segmentFor follows the chain from s to the segment holding index i,
// creating segments when spawn is set; it returns nil if one is missing.
// Past a stretch that Compact unlinked it returns the first segment after
// it, whose start is above i; a producer never looks for an index there,
// since its own slot keeps its segment linked.
func (l *leaf) segmentFor(s *segment, i uint64, spawn bool) *segment {
	for i >= s.end() {
		n := s.next.Load()
		if n == nil {
			if !spawn {
				return nil
			}
			size := len(s.slots)
			n = newSegment(s.end(), max(size, min(2*size, maxSegment)))
			if !s.next.CompareAndSwap(nil, n) {
				n = s.next.Load()
			} else if t := l.tail.Load(); t.start < n.start {
				l.tail.CompareAndSwap(t, n)
			}
		}
		s = n
	}
	return s
}

// emptied reports whether every slot of the segment is empty.
func (s *segment) emptied() bool {
	for i := range s.slots {
		if atomic.LoadPointer(&s.slots[i]) != nil {
			return false
		}
	}
	return true
}
