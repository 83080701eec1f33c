package stash

import (
	"math"
	"testing"
)

// TestOverflowBeyondSpan adds keys one and several spans out: they are not
// an error, they wait in the overflow area, in order, and enter the tree
// when the walk's span reaches them.
func TestOverflowBeyondSpan(t *testing.T) {
	s := mustNew[kv](t, tiny(), 0) // span 64
	s.Add(100, &kv{key: 100, id: 0})
	s.Add(100, &kv{key: 100, id: 1})
	s.Add(70, &kv{key: 70, id: 2})
	s.Add(10, &kv{key: 10, id: 3})
	if s.Overflow() != 3 {
		t.Fatalf("Overflow = %d, want 3", s.Overflow())
	}
	if m, ok := s.OverflowMin(); !ok || m != 70 {
		t.Fatalf("OverflowMin = %d, %v; want 70", m, ok)
	}
	if got := walkAll(s, 70); !equalInts(ids(got), []int{3}) {
		t.Fatalf("Walk(70) = %v, want [3]: a value came out before its key", ids(got))
	}
	if got := walkAll(s, 100); !equalInts(ids(got), []int{2}) {
		t.Fatalf("Walk(100) = %v, want [2]", ids(got))
	}
	if got := walkAll(s, 101); !equalInts(ids(got), []int{0, 1}) {
		t.Fatalf("Walk(101) = %v, want [0 1] in insertion order", ids(got))
	}
	if s.Overflow() != 0 {
		t.Fatalf("Overflow = %d after draining", s.Overflow())
	}
	if _, ok := s.OverflowMin(); ok {
		t.Fatal("OverflowMin reports an empty area as holding something")
	}
}

// TestWalkAcrossRevolutions walks one window many spans long: every value
// comes out once, in key order, whichever revolution it was added in.
func TestWalkAcrossRevolutions(t *testing.T) {
	s := mustNew[kv](t, tiny(), 0)
	keys := []uint64{500, 3, 64 + 3, 2*64 + 3, 1000, 63, 64, 300, 3}
	for i, k := range keys {
		s.Add(k, &kv{key: k, id: i})
	}
	got := walkAll(s, 1001)
	want := []int{1, 8, 5, 6, 2, 3, 7, 0, 4}
	if !equalInts(ids(got), want) {
		t.Fatalf("walked %v, want %v", ids(got), want)
	}
	if s.FirstValid() != 1001 || s.Overflow() != 0 {
		t.Fatalf("FirstValid %d, Overflow %d", s.FirstValid(), s.Overflow())
	}
}

// TestAliasing adds keys exactly one span apart, so they share every slot
// on their path, and walks windows that cross revolutions without and with
// Clean in between: an entry met in a slot from another revolution is never
// returned before its key.
func TestAliasing(t *testing.T) {
	for _, clean := range []bool{false, true} {
		s := mustNew[kv](t, tiny(), 0)
		const span = 64
		for i := range 4 {
			k := uint64(5 + i*span)
			s.Add(k, &kv{key: k, id: i})
		}
		var got []kv
		for end := uint64(0); end < 5*span; end += 13 {
			for _, v := range walkAll(s, end) {
				if v.key >= end {
					t.Fatalf("clean=%v: key %d walked with end %d", clean, v.key, end)
				}
				got = append(got, v)
			}
			// A key one span past a slot the walk has passed but not yet
			// cleaned: its path is held by the older subtree.
			if end == 65 {
				s.Add(end+span-60, &kv{key: end + span - 60, id: 9})
			}
			if clean {
				s.Clean()
			}
		}
		if !equalInts(ids(got), []int{0, 1, 9, 2, 3}) {
			t.Fatalf("clean=%v: walked %v", clean, ids(got))
		}
	}
}

// TestAliasedPathWaits fills a slot, walks past it without cleaning, then
// adds the key one span later: it must wait (the slot still holds the older
// subtree) and come out only when the walk reaches its key.
func TestAliasedPathWaits(t *testing.T) {
	s := mustNew[kv](t, tiny(), 0)
	s.Add(3, &kv{key: 3, id: 0})
	walkAll(s, 60)
	if s.FirstValid() != 60 {
		t.Fatalf("FirstValid = %d", s.FirstValid())
	}
	s.Add(67, &kv{key: 67, id: 1}) // root slot 0, held by the subtree of [0, 8)
	if s.Overflow() != 1 {
		t.Fatalf("Overflow = %d, want 1: the aliased key entered the tree", s.Overflow())
	}
	if got := peepAll(s, 67); len(got) != 0 {
		t.Fatalf("Peep(67) = %v", ids(got))
	}
	if got := walkAll(s, 67); len(got) != 0 {
		t.Fatalf("Walk(67) = %v: early", ids(got))
	}
	if got := walkAll(s, 68); !equalInts(ids(got), []int{1}) {
		t.Fatalf("Walk(68) = %v, want [1]", ids(got))
	}
}

// TestHorizonMargin checks that keys within HorizonMargin of the span wait
// in the overflow area and keys below it enter the tree.
func TestHorizonMargin(t *testing.T) {
	cfg := tiny()
	cfg.HorizonMargin = 16
	s := mustNew[kv](t, cfg, 0)
	s.Add(47, &kv{key: 47, id: 0}) // below 64-16
	if s.Overflow() != 0 {
		t.Fatal("a key below the margin went to the overflow area")
	}
	s.Add(48, &kv{key: 48, id: 1})
	s.Add(63, &kv{key: 63, id: 2})
	if s.Overflow() != 2 {
		t.Fatalf("Overflow = %d, want 2", s.Overflow())
	}
	// Without a margin, both would have entered.
	s2 := mustNew[kv](t, tiny(), 0)
	s2.Add(63, &kv{key: 63})
	if s2.Overflow() != 0 {
		t.Fatal("key 63 overflowed a span of 64 with no margin")
	}
	// Once FirstValid moves into the next top-level slot the horizon
	// moves by a slot too (to 8+64-16): 48 enters the tree, 63 still waits.
	walkAll(s, 9)
	s.Add(55, &kv{key: 55, id: 3})
	if s.Overflow() != 1 {
		t.Fatalf("Overflow = %d, want 1", s.Overflow())
	}
	if got := walkAll(s, 64); !equalInts(ids(got), []int{0, 1, 3, 2}) {
		t.Fatalf("walked %v, want [0 1 3 2]", ids(got))
	}
}

// TestPeepSeesReachableOverflow checks that Peep moves values the tree can
// now take out of the overflow area, so it shows what Walk would return.
func TestPeepSeesReachableOverflow(t *testing.T) {
	s := mustNew[kv](t, tiny(), 0)
	s.Add(70, &kv{key: 70, id: 0})
	walkAll(s, 20) // the horizon is now 16+64
	if s.Overflow() != 1 && s.Overflow() != 0 {
		t.Fatalf("Overflow = %d", s.Overflow())
	}
	if got := peepAll(s, 71); !equalInts(ids(got), []int{0}) {
		t.Fatalf("Peep(71) = %v, want [0]", ids(got))
	}
	if s.Overflow() != 0 {
		t.Fatal("value still in the overflow area after Peep")
	}
}

// TestMaxKeyWalked adds values at math.MaxUint64 and just below it, in
// buckets of 4: one Walk(math.MaxUint64) returns them, in insertion order,
// whether the tree takes them at once (FirstValid in the last revolution)
// or they wait in the overflow area (FirstValid 0). With buckets of 1 the
// key's bucket never starts below a Walk's end, but OverflowMin still
// reports it waiting.
func TestMaxKeyWalked(t *testing.T) {
	cfg := Config{Levels: []Level{{Div: 32, Mod: 4, Chunk: 2}, {Div: 4, Mod: 8, Chunk: 3}}, LeafChunk: 1}
	for _, start := range []uint64{math.MaxUint64 - 100, 0} {
		s := mustNew[kv](t, cfg, start)
		s.Add(math.MaxUint64-2, &kv{key: math.MaxUint64 - 2, id: 0})
		s.Add(math.MaxUint64, &kv{key: math.MaxUint64, id: 1})
		if m, ok := s.OverflowMin(); s.Overflow() > 0 && !ok {
			t.Errorf("start %d: Overflow() = %d, but OverflowMin = %d, false", start, s.Overflow(), m)
		}
		if got := walkAll(s, math.MaxUint64); !equalInts(ids(got), []int{0, 1}) {
			t.Errorf("start %d: Walk(MaxUint64) yielded %v, want [0 1]", start, ids(got))
		}
		if _, ok := s.OverflowMin(); ok || s.Overflow() != 0 {
			t.Errorf("start %d: Overflow() = %d after the walk", start, s.Overflow())
		}
	}
	s := mustNew[kv](t, tiny(), 0)
	s.Add(math.MaxUint64, &kv{key: math.MaxUint64, id: 1})
	if m, ok := s.OverflowMin(); !ok || m != math.MaxUint64 {
		t.Errorf("tiny: OverflowMin = %d, %v; want MaxUint64, true", m, ok)
	}
	if got := walkAll(s, math.MaxUint64); len(got) != 0 {
		t.Errorf("tiny: Walk(MaxUint64) yielded %v from the bucket starting at MaxUint64", ids(got))
	}
}

// TestLatePushNotStuck has a producer push a key to the overflow area late,
// after it read the horizon from before a walk raised FirstValid (a trace
// hook pushes it while the next walk drains). Its top-level slot holds a
// subtree of its own revolution, so it is not stuck: the walk must not
// yield it straight from the overflow area after that whole subtree, out
// of key order.
func TestLatePushNotStuck(t *testing.T) {
	var s *Store[kv]
	armed := false
	cfg := tiny()
	cfg.Trace = func(e Event) {
		if armed && e.Op == OpAdd {
			armed = false
			s.ov.push(69, unsafePointer(&kv{key: 69, id: 9}))
		}
	}
	s = mustNew[kv](t, cfg, 0)
	s.Add(5, &kv{key: 5, id: 0})
	walkAll(s, 17)                 // FirstValid 17; no Clean yet
	s.Add(70, &kv{key: 70, id: 1}) // root slot 0 still holds [0,8): waits
	s.Add(71, &kv{key: 71, id: 2})
	armed = true
	var keys []uint64
	for _, v := range s.Walk(80) {
		keys = append(keys, v.key)
	}
	for i := 1; i < len(keys); i++ {
		if keys[i] < keys[i-1] {
			t.Fatalf("one Walk(80) yielded keys %v: out of key order", keys)
		}
	}
	if f := s.StopFloor(); f > 69 {
		t.Fatalf("StopFloor %d after a walk that left key 69 in the overflow area", f)
	}
	keys = keys[:0]
	for _, v := range s.Walk(80) {
		keys = append(keys, v.key)
	}
	if len(keys) != 1 || keys[0] != 69 {
		t.Fatalf("the next Walk(80) yielded keys %v, want [69]", keys)
	}
}
