package stash

import (
	"math"
	"sync/atomic"
	"unsafe"
)

// sentinel marks a leaf slot that a producer has reserved but not yet
// filled. The walk never steps past it.
var sentinel = unsafe.Pointer(new(uint64))

// segChunks is the number of chunks in one leaf segment.
const segChunks = 4

// A segment is a run of segChunks*chunk consecutive leaf slots. Segments
// beyond the first are linked and published with CAS.
type segment struct {
	start uint64 // index of the segment's first slot
	slots slots
	next  atomic.Pointer[segment]
}

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
}

func newLeaf(base uint64, chunk int) *leaf {
	l := &leaf{base: base}
	l.min.Store(math.MaxUint64)
	l.seg0.slots = makeSlots(segChunks*chunk, chunk)
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
func (l *leaf) reserve(chunk int) *unsafe.Pointer {
	i := l.end.Add(1) - 1
	s := l.tail.Load()
	if s.start > i {
		s = l.first.Load()
	}
	s = l.segmentFor(s, i, chunk, true)
	return s.slots.at(int(i-s.start), chunk, true, sentinel)
}

// segmentFor follows the chain from s to the segment holding index i,
// creating segments when spawn is set; it returns nil if one is missing.
// Past a stretch that Compact unlinked it returns the first segment after
// it, whose start is above i; a producer never looks for an index there,
// since its own slot keeps its segment linked.
func (l *leaf) segmentFor(s *segment, i uint64, chunk int, spawn bool) *segment {
	size := uint64(segChunks * chunk)
	for i >= s.start+size {
		n := s.next.Load()
		if n == nil {
			if !spawn {
				return nil
			}
			n = &segment{start: s.start + size, slots: makeSlots(segChunks*chunk, chunk)}
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

// slotAt returns the address of slot i, starting the search at s, and the
// segment holding it, so that sequential reads resume there. The address is
// nil if a producer has reserved slot i but not yet allocated its storage;
// the segment too if it has not allocated the segment. If Compact unlinked
// the segment that held i, slotAt returns a nil address and the next linked
// segment, which starts after i: every slot in between was emptied.
func (l *leaf) slotAt(s *segment, i uint64, chunk int) (*unsafe.Pointer, *segment) {
	s = l.segmentFor(s, i, chunk, false)
	if s == nil || s.start > i {
		return nil, s
	}
	return s.slots.at(int(i-s.start), chunk, false, nil), s
}
