package stash

import (
	"math"
	"reflect"
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
	maxSegment  = 61 // with its header, a 512-byte allocation
)

// A segment is a run of consecutive leaf slots, filled with the sentinel
// before it is published. Segments beyond the first are linked and
// published with CAS.
//
// The n slots follow the header in the same allocation (see sized), so a
// producer that knows where the tail starts computes its slot's address
// from the tail's address alone, and the slot's cache line is fetched
// while the header that confirms the guess is on its way (see reserve).
type segment struct {
	start uint64 // index of the segment's first slot
	n     uint64 // number of slots
	next  atomic.Pointer[segment]
}

// A sized is a segment with room for its slots: A is an array of
// unsafe.Pointer.
type sized[A any] struct {
	segment
	_ A // the slots, reached through segment.slot, by address
}

func alloc[A any]() *segment { return &new(sized[A]).segment }

// newSegment returns a segment of n slots starting at index start, in an
// allocation with room for at least n.
func newSegment(start, n uint64) *segment {
	var s *segment
	switch {
	case n <= 1:
		s = alloc[[1]unsafe.Pointer]()
	case n <= 2:
		s = alloc[[2]unsafe.Pointer]()
	case n <= 4:
		s = alloc[[4]unsafe.Pointer]()
	case n <= 8:
		s = alloc[[8]unsafe.Pointer]()
	case n <= 16:
		s = alloc[[16]unsafe.Pointer]()
	case n <= 32:
		s = alloc[[32]unsafe.Pointer]()
	case n <= maxSegment:
		s = alloc[[maxSegment]unsafe.Pointer]()
	default: // only a LeafChunk above maxSegment asks for more
		t := reflect.StructOf([]reflect.StructField{
			{Name: "Segment", Type: reflect.TypeFor[segment]()},
			{Name: "Slots", Type: reflect.ArrayOf(int(n), reflect.TypeFor[unsafe.Pointer]())},
		})
		s = (*segment)(reflect.New(t).UnsafePointer())
	}
	s.start, s.n = start, n
	sentinels(s.slots())
	return s
}

func sentinels(s []unsafe.Pointer) {
	for i := range s {
		s[i] = sentinel
	}
}

// slot returns the address of the segment's slot j, for j below n.
func (s *segment) slot(j uint64) *unsafe.Pointer {
	return (*unsafe.Pointer)(unsafe.Add(unsafe.Pointer(s), unsafe.Sizeof(*s)+uintptr(j)*unsafe.Sizeof(unsafe.Pointer(nil))))
}

// slots returns the segment's slots.
func (s *segment) slots() []unsafe.Pointer { return unsafe.Slice(s.slot(0), s.n) }

// end is the index after the segment's last slot.
func (s *segment) end() uint64 { return s.start + s.n }

// A leaf is one bucket: an append-only list of values.
//
// Producers reserve an index with end and fill the slot. Only the consumer
// touches walk, walkSeg and first: walk is the next index to read, walkSeg
// the segment that holds it, and first the oldest segment still referenced
// (Clean moves it up to walkSeg, dropping consumed segments).
//
// What Add reads, base to tailStart, sits in the leaf's first cache line.
type leaf struct {
	base      uint64        // first key of the bucket
	min       atomic.Uint64 // lowest key ever added: a floor for what the walk has not read
	end       atomic.Uint64
	tail      atomic.Pointer[segment] // newest segment: where producers start looking
	tailStart atomic.Uint64           // at most tail's start; equal once its mover has raised it
	first     atomic.Pointer[segment]
	walk      uint64
	walkSeg   *segment
	seg0      segment
	inline    [inlineSlots]unsafe.Pointer // seg0's slots: seg0 is the first segment if they fit
}

func newLeaf(base uint64, chunk int) *leaf {
	l := &leaf{base: base}
	l.min.Store(math.MaxUint64)
	s := &l.seg0
	if chunk <= inlineSlots {
		s.n = uint64(chunk)
		sentinels(s.slots())
	} else {
		s = newSegment(0, uint64(chunk))
	}
	l.tail.Store(s)
	l.first.Store(s)
	l.walkSeg = s
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
	s, t := l.tail.Load(), l.tailStart.Load()
	// The slot's address is computed from s and t; s's header only
	// confirms that s starts at t and holds i, so the slot's line can be
	// fetched on the predicted branch before the header arrives.
	if j := i - t; s.start == t && j < s.n {
		return s.slot(j)
	}
	if s.start > i {
		s = l.first.Load()
	}
	s = l.segmentFor(s, i, true)
	return s.slot(i - s.start)
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
			n = newSegment(s.end(), max(s.n, min(2*s.n, maxSegment)))
			if !s.next.CompareAndSwap(nil, n) {
				n = s.next.Load()
			} else if t := l.tail.Load(); t.start < n.start && l.tail.CompareAndSwap(t, n) {
				l.raiseTailStart(n.start)
			}
		}
		s = n
	}
	return s
}

// raiseTailStart makes tailStart at least start, the start of a segment
// the caller made the tail. The tail only moves up, so tailStart ends at
// its start whatever order its movers raise it in.
func (l *leaf) raiseTailStart(start uint64) {
	for {
		t := l.tailStart.Load()
		if start <= t || l.tailStart.CompareAndSwap(t, start) {
			return
		}
	}
}

// emptied reports whether every slot of the segment is empty.
func (s *segment) emptied() bool {
	slots := s.slots()
	for i := range slots {
		if atomic.LoadPointer(&slots[i]) != nil {
			return false
		}
	}
	return true
}
