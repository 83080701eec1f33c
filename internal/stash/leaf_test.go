package stash

import (
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"
)

// slotAt returns the address of slot i of l, looking from seg, and the
// segment holding it; nil if its segment does not exist.
func slotAt(l *leaf, seg *segment, i uint64) (*unsafe.Pointer, *segment) {
	s := l.segmentFor(seg, i, false)
	if s == nil || s.start > i {
		return nil, s
	}
	return s.slot(i - s.start), s
}

// TestLeafAppendOrderAndSegments: a leaf's segments start at LeafChunk
// slots, the first one inline, and double up to maxSegment; reserved slots
// read as the sentinel until filled, and values stay in reservation order.
func TestLeafAppendOrderAndSegments(t *testing.T) {
	const chunk = 2
	l := newLeaf(40, chunk)
	if l.first.Load() != &l.seg0 || l.seg0.slot(0) != &l.inline[0] {
		t.Fatal("the first segment is not inline")
	}
	wantSizes := []int{2, 4, 8, 16, 32, maxSegment, maxSegment, maxSegment}
	n := 0
	for _, size := range wantSizes {
		n += size
	}
	n++ // into a ninth segment
	vals := make([]int, n)
	for i := range n {
		p := l.reserve()
		if got := atomic.LoadPointer(p); got != sentinel {
			t.Fatalf("reserved slot %d reads %p, want the sentinel", i, got)
		}
		vals[i] = i
		atomic.StorePointer(p, unsafe.Pointer(&vals[i]))
	}
	if l.end.Load() != uint64(n) {
		t.Fatalf("write cursor %d, want %d", l.end.Load(), n)
	}
	var sizes []int
	start := uint64(0)
	for s := &l.seg0; s != nil; s = s.next.Load() {
		if s.start != start {
			t.Fatalf("segment %d starts at %d, want %d", len(sizes), s.start, start)
		}
		sizes = append(sizes, int(s.n))
		start = s.end()
	}
	if want := append(wantSizes, maxSegment); !slices.Equal(sizes, want) {
		t.Fatalf("segment sizes %v, want %v", sizes, want)
	}
	if l.tail.Load().start != uint64(n-1) || l.tailStart.Load() != uint64(n-1) {
		t.Fatal("tail is not the newest segment")
	}
	// Reading from the first segment, index by index, finds every value in
	// order.
	seg := &l.seg0
	for i := range uint64(n) {
		p, s := slotAt(l, seg, i)
		if p == nil || *(*int)(atomic.LoadPointer(p)) != int(i) {
			t.Fatalf("slot %d out of order", i)
		}
		seg = s
	}
	if p, _ := slotAt(l, seg, uint64(n)+maxSegment); p != nil {
		t.Fatal("a read created a segment")
	}
}

// TestSegmentLayout: a segment's slots follow its header in one
// allocation, the largest filling 512 bytes; a first segment too large for
// the leaf, or any segment larger than maxSegment, is allocated alone; and
// what Add reads of a leaf sits in its first cache line, the leaf in 128
// bytes.
func TestSegmentLayout(t *testing.T) {
	if n := unsafe.Sizeof(sized[[maxSegment]unsafe.Pointer]{}); n != 512 {
		t.Errorf("a full segment takes %d bytes, want 512", n)
	}
	var l leaf
	if n := unsafe.Sizeof(l); n > 128 {
		t.Errorf("a leaf takes %d bytes, want at most 128", n)
	}
	if off := unsafe.Offsetof(l.tailStart) + unsafe.Sizeof(l.tailStart); off > 64 {
		t.Errorf("a leaf's fields up to tailStart end at byte %d, past its first line", off)
	}
	for _, chunk := range []int{3, 5, 100} {
		l := newLeaf(0, chunk)
		if (l.first.Load() == &l.seg0) != (chunk <= inlineSlots) {
			t.Errorf("chunk %d: first segment inline = %v", chunk, l.first.Load() == &l.seg0)
		}
		var want []int
		for size, n := chunk, 0; n < 300; size = max(size, min(2*size, maxSegment)) {
			want = append(want, size)
			n += size
		}
		var ps []*unsafe.Pointer
		for range 300 {
			p := l.reserve()
			if atomic.LoadPointer(p) != sentinel {
				t.Fatalf("chunk %d: reserved slot %d does not read as the sentinel", chunk, len(ps))
			}
			ps = append(ps, p)
		}
		var sizes []int
		i := 0
		for s := l.first.Load(); s != nil; s = s.next.Load() {
			sizes = append(sizes, int(s.n))
			for j := range s.n {
				if s.slot(j) != ps[i] || &s.slots()[j] != ps[i] {
					t.Fatalf("chunk %d: slot %d is not where reserve put it", chunk, i)
				}
				if i++; i == len(ps) {
					break
				}
			}
		}
		if !slices.Equal(sizes, want) {
			t.Errorf("chunk %d: segment sizes %v, want %v", chunk, sizes, want)
		}
	}
}

// TestLeafConcurrentReserve has producers append to one leaf at once:
// every reservation gets its own slot, none is lost or shared.
func TestLeafConcurrentReserve(t *testing.T) {
	const G, N, chunk = 8, 2000, 4
	l := newLeaf(0, chunk)
	var wg sync.WaitGroup
	vals := make([][N]int, G)
	for g := range G {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range N {
				vals[g][i] = g*N + i
				atomic.StorePointer(l.reserve(), unsafe.Pointer(&vals[g][i]))
			}
		}()
	}
	wg.Wait()
	seen := make([]bool, G*N)
	seg := &l.seg0
	for i := range uint64(G * N) {
		p, s := slotAt(l, seg, i)
		seg = s
		v := *(*int)(atomic.LoadPointer(p))
		if seen[v] {
			t.Fatalf("value %d in two slots", v)
		}
		seen[v] = true
	}
	// Each producer's values keep their relative order.
	last := make([]int, G)
	for i := range last {
		last[i] = -1
	}
	seg = &l.seg0
	for i := range uint64(G * N) {
		p, s := slotAt(l, seg, i)
		seg = s
		v := *(*int)(atomic.LoadPointer(p))
		g := v / N
		if v <= last[g] {
			t.Fatalf("producer %d's values out of order", g)
		}
		last[g] = v
	}
}

// TestLeafCursors checks the leaf's three cursors: producers move the write
// cursor, the walk its own read cursor, and Clean moves the leaf's first
// segment up to the walk's so consumed segments are dropped.
func TestLeafCursors(t *testing.T) {
	cfg := Config{Levels: []Level{{Div: 1, Mod: 4, Chunk: 4}}, LeafChunk: 1}
	s := mustNew[kv](t, cfg, 0)
	const n = 13 // segments of 1, 2, 4, 8 slots
	for i := range n {
		s.Add(1, &kv{key: 1, id: i})
	}
	l := (*leaf)(s.root.child(1, cfg.Levels[0]))
	if l.end.Load() != n || l.walk != 0 {
		t.Fatalf("cursors end=%d walk=%d before walking", l.end.Load(), l.walk)
	}
	// Peep reads without moving the walk cursor.
	if got := peepAll(s, 2); len(got) != n {
		t.Fatalf("peeped %d, want %d", len(got), n)
	}
	if l.walk != 0 {
		t.Fatal("Peep moved the walk cursor")
	}
	// Walk half, stop, check the cursor, then the rest.
	k := 0
	for range s.Walk(2) {
		if k++; k == 9 { // into the fourth segment, which starts at 7

			break
		}
	}
	if l.walk != 9 || l.walkSeg.start != 7 {
		t.Fatalf("walk cursor %d in segment %d", l.walk, l.walkSeg.start)
	}
	if l.first.Load() != &l.seg0 {
		t.Fatal("the walk moved the clean cursor")
	}
	if s.FirstValid() != 1 {
		t.Fatalf("FirstValid = %d, want the stopped bucket 1", s.FirstValid())
	}
	if s.Clean() != 0 {
		t.Fatal("Clean detached the bucket the walk stopped in")
	}
	if l.first.Load() != l.walkSeg {
		t.Fatal("Clean did not move the leaf's first segment up to the walk's")
	}
	if got := walkAll(s, 2); len(got) != n-k || got[0].id != k {
		t.Fatalf("rest of the leaf: %v", ids(got))
	}
	// A producer still lands after the walked values.
	s.Add(1, &kv{key: 1, id: n})
	if got := walkAll(s, 2); len(got) != 1 || got[0].id != n {
		t.Fatalf("after the walk: %v", ids(got))
	}
}
