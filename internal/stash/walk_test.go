package stash

import (
	"math"
	"sync/atomic"
	"testing"
	"time"
)

// TestWalkOrder adds scattered keys, some twice, and walks them out in
// windows: key order, insertion order within a key, nothing at or past the
// window's end, everything exactly once.
func TestWalkOrder(t *testing.T) {
	s := mustNew[kv](t, tiny(), 0)
	keys := []uint64{5, 3, 60, 3, 17, 1, 63, 40, 5, 9}
	for i, k := range keys {
		s.Add(k, &kv{key: k, id: i})
	}
	var got []kv
	for end := uint64(0); end <= 64; end += 7 {
		for _, v := range walkAll(s, end) {
			if v.key >= end {
				t.Fatalf("key %d walked with end %d", v.key, end)
			}
			got = append(got, v)
		}
	}
	got = append(got, walkAll(s, 100)...)
	want := []int{5, 1, 3, 0, 8, 9, 4, 7, 2, 6} // by key, then by id
	if !equalInts(ids(got), want) {
		t.Fatalf("walked %v, want %v", ids(got), want)
	}
	if got := walkAll(s, 1000); len(got) != 0 {
		t.Fatalf("second walk yielded %v", got)
	}
}

// TestWalkYieldsBucketStart checks that the walk reports the bucket's first
// key, and takes a whole bucket whose start is below end.
func TestWalkYieldsBucketStart(t *testing.T) {
	cfg := Config{Levels: []Level{{Div: 100, Mod: 4, Chunk: 4}, {Div: 10, Mod: 10, Chunk: 4}}}
	s := mustNew[kv](t, cfg, 0)
	s.Add(37, &kv{key: 37})
	s.Add(31, &kv{key: 31, id: 1})
	var buckets []uint64
	for b, v := range s.Walk(31) {
		buckets = append(buckets, b)
		_ = v
	}
	if len(buckets) != 2 || buckets[0] != 30 || buckets[1] != 30 {
		t.Fatalf("buckets %v, want [30 30]", buckets)
	}
	if s.FirstValid() != 30 {
		t.Fatalf("FirstValid = %d, want 30", s.FirstValid())
	}
}

func TestWalkStopEarlyKeepsRest(t *testing.T) {
	s := mustNew[kv](t, tiny(), 0)
	for i := range 6 {
		s.Add(uint64(i*3), &kv{key: uint64(i * 3), id: i})
	}
	var got []int
	for {
		n := 0
		for _, v := range s.Walk(20) {
			got = append(got, v.id)
			if n++; n == 2 {
				break
			}
		}
		if n == 0 {
			break
		}
	}
	if !equalInts(got, []int{0, 1, 2, 3, 4, 5}) {
		t.Fatalf("walked %v", got)
	}
}

func TestPeepConsumesNothing(t *testing.T) {
	s := mustNew[kv](t, tiny(), 0)
	for i, k := range []uint64{9, 2, 30, 2} {
		s.Add(k, &kv{key: k, id: i})
	}
	for range 2 {
		if got := peepAll(s, 31); !equalInts(ids(got), []int{1, 3, 0, 2}) {
			t.Fatalf("peeped %v", ids(got))
		}
	}
	if got := peepAll(s, 10); !equalInts(ids(got), []int{1, 3, 0}) {
		t.Fatalf("Peep(10) = %v", ids(got))
	}
	if s.FirstValid() != 0 {
		t.Fatal("Peep moved FirstValid")
	}
	// PeepRange looks at a window that need not start at FirstValid.
	var got []int
	for _, v := range s.PeepRange(5, 31) {
		got = append(got, v.id)
	}
	if !equalInts(got, []int{0, 2}) {
		t.Fatalf("PeepRange(5, 31) = %v", got)
	}
	// Peep stops when asked, and the walk still finds everything.
	for range s.Peep(31) {
		break
	}
	if got := walkAll(s, 31); !equalInts(ids(got), []int{1, 3, 0, 2}) {
		t.Fatalf("walk after peeps: %v", ids(got))
	}
	if got := peepAll(s, 31); len(got) != 0 {
		t.Fatalf("peeped consumed values %v", ids(got))
	}
}

// TestWalkSkipsEmptyStretches walks windows of years over the default
// geometry (buckets of about 1 ms): the walk must follow the valid-key
// bounds and the occupancy masks, not visit 2^35 empty buckets.
func TestWalkSkipsEmptyStretches(t *testing.T) {
	s := mustNew[kv](t, Config{Levels: DefaultLevels()}, 0)
	keys := []uint64{uint64(time.Millisecond), uint64(3 * time.Hour), uint64(400 * 24 * time.Hour)}
	for i, k := range keys {
		s.Add(k, &kv{key: k, id: i})
	}
	if s.LastValid() != keys[2] {
		t.Fatalf("LastValid = %d, want %d", s.LastValid(), keys[2])
	}
	start := time.Now()
	got := walkAll(s, 1<<55)
	if !equalInts(ids(got), []int{0, 1, 2}) {
		t.Fatalf("walked %v", ids(got))
	}
	if s.FirstValid() != 1<<55 {
		t.Fatalf("FirstValid = %d, want 2^55", s.FirstValid())
	}
	if got := walkAll(s, 1<<56); len(got) != 0 {
		t.Fatal("second walk found values")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("walking two years of empty buckets took %v", d)
	}
}

// TestSentinelFrontier reserves a leaf slot by hand without filling it: the
// walk parks there (never steps past it to the values behind it), goes on
// with later buckets, and FirstValid stays at the parked bucket (the
// pending floor), so Clean keeps the leaf.
func TestSentinelFrontier(t *testing.T) {
	s := mustNew[kv](t, tiny(), 0)
	s.Add(5, &kv{key: 5, id: 0})
	l := s.descend(5)
	slot := l.reserve() // reserved, not filled
	s.Add(5, &kv{key: 5, id: 2})
	s.Add(7, &kv{key: 7, id: 3})
	s.Add(30, &kv{key: 30, id: 4})

	if got := walkAll(s, 20); !equalInts(ids(got), []int{0, 3}) {
		t.Fatalf("walked %v, want [0 3]: the walk stepped past a reserved slot", ids(got))
	}
	if s.FirstValid() != 5 {
		t.Fatalf("FirstValid = %d, want the pending floor 5", s.FirstValid())
	}
	s.Clean()
	if s.FirstValid() != 5 || walkAll(s, 5) != nil {
		t.Fatal("FirstValid passed the pending bucket")
	}
	// Walking again still parks.
	if got := walkAll(s, 20); len(got) != 0 || s.FirstValid() != 5 {
		t.Fatalf("second walk %v, FirstValid %d", ids(got), s.FirstValid())
	}
	// Fill the slot: the walk resumes in order.
	atomic.StorePointer(slot, unsafePointer(&kv{key: 5, id: 1}))
	if got := walkAll(s, 40); !equalInts(ids(got), []int{1, 2, 4}) {
		t.Fatalf("walked %v after filling, want [1 2 4]", ids(got))
	}
	if s.FirstValid() != 40 {
		t.Fatalf("FirstValid = %d, want 40", s.FirstValid())
	}
}

// TestSentinelUnallocated covers a reservation whose segment is not
// published yet (the producer bumped the write cursor and was preempted):
// the walk parks there too.
func TestSentinelUnallocated(t *testing.T) {
	s := mustNew[kv](t, tiny(), 0)
	for i := range s.leafChunk {
		s.Add(3, &kv{key: 3, id: i})
	}
	l := s.descend(3)
	l.end.Add(1) // index leafChunk: its segment does not exist yet
	s.Add(4, &kv{key: 4, id: 99})
	got := walkAll(s, 10)
	if len(got) != s.leafChunk+1 || got[len(got)-1].id != 99 {
		t.Fatalf("walked %v", ids(got))
	}
	if s.FirstValid() != 3 {
		t.Fatalf("FirstValid = %d, want 3", s.FirstValid())
	}
}

// TestLateInsertLowersFirstValid checks, from inside the Add (with a trace
// hook), that a late key lowers FirstValid before its value is published,
// and that the next walk finds it.
func TestLateInsertLowersFirstValid(t *testing.T) {
	var s *Store[kv]
	var sawLate, sawAdd bool
	cfg := tiny()
	cfg.Trace = func(e Event) {
		switch e.Op {
		case OpLate:
			sawLate = true
			if s.FirstValid() != 20 {
				t.Errorf("FirstValid = %d at the late event, want 20", s.FirstValid())
			}
			if got := peepAll(s, 64); len(got) != 0 {
				t.Errorf("value visible before FirstValid was lowered: %v", got)
			}
		case OpAdd:
			sawAdd = true
		}
	}
	s = mustNew[kv](t, cfg, 0)
	walkAll(s, 50)
	if s.FirstValid() != 50 {
		t.Fatalf("FirstValid = %d, want 50", s.FirstValid())
	}
	s.Add(20, &kv{key: 20, id: 7})
	if !sawLate || !sawAdd {
		t.Fatalf("late=%v add=%v", sawLate, sawAdd)
	}
	if s.FirstValid() != 20 {
		t.Fatalf("FirstValid = %d after a late add, want 20", s.FirstValid())
	}
	if got := walkAll(s, 50); !equalInts(ids(got), []int{7}) {
		t.Fatalf("walked %v, want the late value", ids(got))
	}
	if s.FirstValid() != 50 {
		t.Fatalf("FirstValid = %d, want 50", s.FirstValid())
	}
}

// TestAddDuringWalk adds, from inside a walk, a key in a bucket the walk has
// already passed but below its end. The walk must not move FirstValid past
// it: the next walk yields it. (Before the walk raised FirstValid ahead of
// reading, this value was stranded below FirstValid.)
func TestAddDuringWalk(t *testing.T) {
	s := mustNew[kv](t, tiny(), 0)
	s.Add(5, &kv{key: 5, id: 0})
	s.Add(6, &kv{key: 6, id: 1})
	var got []int
	for _, v := range s.Walk(10) {
		got = append(got, v.id)
		if v.id == 0 {
			s.Add(2, &kv{key: 2, id: 2}) // passed
			s.Add(8, &kv{key: 8, id: 3}) // past LastValid when the walk began
		}
	}
	if !equalInts(got, []int{0, 1}) {
		t.Fatalf("walk yielded %v, want [0 1]", got)
	}
	if s.FirstValid() > 2 {
		t.Fatalf("FirstValid = %d, passed the value added at 2", s.FirstValid())
	}
	if got := walkAll(s, 10); !equalInts(ids(got), []int{2, 3}) {
		t.Fatalf("next walk %v, want [2 3]", ids(got))
	}
}

// TestWalkPanicStrandsNothing panics out of a walk's loop body: the values
// the walk had not reached are still walked later.
func TestWalkPanicStrandsNothing(t *testing.T) {
	s := mustNew[kv](t, tiny(), 0)
	for i := range 5 {
		s.Add(uint64(i*10), &kv{key: uint64(i * 10), id: i})
	}
	func() {
		defer func() { recover() }()
		for range s.Walk(60) {
			panic("boom")
		}
	}()
	if got := walkAll(s, 60); !equalInts(ids(got), []int{1, 2, 3, 4}) {
		t.Fatalf("after a panic the walk yields %v, want [1 2 3 4]", ids(got))
	}
}

// TestStopFloorBelowPark parks the walk at a reserved slot with a value
// behind it, then stops it early in a later bucket, or lets it run to its
// end: either way StopFloor is at most the key the walk left behind, and a
// walk that neither parks nor stops leaves it at math.MaxUint64.
func TestStopFloorBelowPark(t *testing.T) {
	for _, stop := range []bool{true, false} {
		s := mustNew[kv](t, tiny(), 0)
		l := s.descend(3)
		l.lowerMin(3)
		slot := l.reserve()          // a producer preempted before its store
		s.Add(3, &kv{key: 3, id: 1}) // another producer's Add returned
		s.Add(10, &kv{key: 10, id: 2})
		s.Add(10, &kv{key: 10, id: 3})
		var got []int
		for _, v := range s.Walk(20) {
			if got = append(got, v.id); stop {
				break
			}
		}
		if f := s.StopFloor(); f > 3 {
			t.Errorf("stopped %v: walked %v, StopFloor %d above the value at key 3 left behind the reserved slot", stop, got, f)
		}
		atomic.StorePointer(slot, unsafePointer(&kv{key: 3, id: 0}))
		got = ids(walkAll(s, 20))
		if f := s.StopFloor(); f != math.MaxUint64 {
			t.Errorf("stopped %v: StopFloor %d after a walk (%v) that neither parked nor stopped", stop, f, got)
		}
	}
}
