package stash

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rootChildren counts the root's children.
func rootChildren[T any](s *Store[T]) int {
	n := 0
	lv := s.levels[0]
	for i := range lv.Mod {
		if s.root.child(i, lv) != nil {
			n++
		}
	}
	return n
}

// TestCleanBelowFirstValid checks that Clean detaches exactly the subtrees
// wholly below FirstValid, with no time margin, and keeps the rest.
func TestCleanBelowFirstValid(t *testing.T) {
	s := mustNew[kv](t, tiny(), 0)
	for _, k := range []uint64{1, 9, 17, 20, 40} {
		s.Add(k, &kv{key: k})
	}
	if s.Clean() != 0 {
		t.Fatal("Clean detached something before any walk")
	}
	walkAll(s, 18) // FirstValid 18: [0,8) and [8,16) are done; [16,24) is not
	if n := s.Clean(); n != 3 {
		t.Fatalf("Clean detached %d subtrees, want 3 ([0,8), [8,16) and leaf 17)", n)
	}
	if n := rootChildren(s); n != 2 {
		t.Fatalf("%d root children left, want 2 ([16,24) and [40,48))", n)
	}
	// Inside the kept subtree, the leaves below FirstValid go too.
	if n := s.Clean(); n != 0 {
		t.Fatalf("second Clean detached %d", n)
	}
	walkAll(s, 41)
	if n := s.Clean(); n != 2 {
		t.Fatalf("Clean after Walk(41) detached %d, want 2 ([16,24) and leaf 40)", n)
	}
	if got := walkAll(s, 64); len(got) != 0 {
		t.Fatalf("walk after clean found %v", got)
	}
	s.Add(41, &kv{key: 41, id: 5})
	if got := walkAll(s, 64); !equalInts(ids(got), []int{5}) {
		t.Fatalf("walk found %v, want [5]", ids(got))
	}
}

// TestCleanLeafLevel checks Clean's leaf-level step: leaves below FirstValid
// inside a live node are detached, and the leaf FirstValid is in keeps.
func TestCleanLeafLevel(t *testing.T) {
	s := mustNew[kv](t, tiny(), 0)
	for _, k := range []uint64{1, 2, 3, 5} {
		s.Add(k, &kv{key: k})
	}
	walkAll(s, 3)
	if n := s.Clean(); n != 2 {
		t.Fatalf("Clean detached %d leaves, want 2 (1 and 2)", n)
	}
	if got := walkAll(s, 8); len(got) != 2 {
		t.Fatalf("walk after a leaf clean: %v", got)
	}
}

// TestCleanSalvage makes a late producer store a value into a subtree that
// Clean is about to detach (from Clean's own trace hook, between detaching
// one subtree and the next): Clean's salvage re-adds it, and the walk
// returns it exactly once.
func TestCleanSalvage(t *testing.T) {
	var s *Store[kv]
	added := false
	var ops []Op
	cfg := tiny()
	cfg.Trace = func(e Event) {
		ops = append(ops, e.Op)
		if e.Op == OpClean && e.Key == 0 && !added {
			added = true
			s.Add(12, &kv{key: 12, id: 1}) // into [8,16), still attached
		}
	}
	s = mustNew[kv](t, cfg, 0)
	s.Add(3, &kv{key: 3})
	s.Add(12, &kv{key: 12})
	walkAll(s, 50)
	if n := s.Clean(); n != 2 {
		t.Fatalf("Clean detached %d, want 2", n)
	}
	salvaged := 0
	for _, op := range ops {
		if op == OpSalvage {
			salvaged++
		}
	}
	if salvaged != 1 {
		t.Fatalf("%d salvage events, want 1 (events %v)", salvaged, ops)
	}
	if got := walkAll(s, 50); !equalInts(ids(got), []int{1}) {
		t.Fatalf("walk after salvage %v, want [1]", ids(got))
	}
	if got := walkAll(s, 64); len(got) != 0 {
		t.Fatalf("value returned twice: %v", ids(got))
	}
}

// TestCleanTopOfKeySpace adds a value in the last top-level slot of the key
// space, whose end (base + Div) wraps to 0: Clean must keep that subtree
// while FirstValid is below it, with the tiny geometry and the default one.
func TestCleanTopOfKeySpace(t *testing.T) {
	for _, c := range []struct {
		name       string
		cfg        Config
		start, key uint64
	}{
		{"tiny", tiny(), math.MaxUint64 - 63, math.MaxUint64 - 3},
		{"default", Config{Levels: DefaultLevels()}, math.MaxUint64 - 1<<56 + 1, math.MaxUint64 - 1<<40},
	} {
		s := mustNew[kv](t, c.cfg, c.start)
		s.Add(c.key, &kv{key: c.key, id: 1})
		if s.Overflow() != 0 {
			t.Fatalf("%s: key %d went to the overflow area", c.name, c.key)
		}
		fv := s.FirstValid()
		if n := s.Clean(); n != 0 {
			t.Errorf("%s: Clean with FirstValid %d detached %d subtrees", c.name, fv, n)
		}
		if got := walkAll(s, math.MaxUint64); !equalInts(ids(got), []int{1}) {
			t.Errorf("%s: Walk(MaxUint64) after Clean yielded %v, want [1]", c.name, ids(got))
		}
	}
}

// TestAttachedAfterClean checks what a producer that raced with Clean relies
// on: a leaf it descended to stops being attached once Clean detaches it,
// or any node above it, and a fresh descent to the same key finds a new leaf
// that is.
func TestAttachedAfterClean(t *testing.T) {
	s := mustNew[kv](t, tiny(), 0)
	s.Add(1, &kv{key: 1})
	s.Add(17, &kv{key: 17})
	leaf1, leaf17 := s.descend(1), s.descend(17)
	require.True(t, s.attached(1, leaf1))
	require.True(t, s.attached(17, leaf17))
	require.False(t, s.attached(17, leaf1), "a leaf is attached only for its own keys")

	walkAll(s, 18)
	require.Equal(t, 2, s.Clean()) // [0,8) and leaf 17
	assert.False(t, s.attached(1, leaf1), "leaf of key 1 after its subtree was detached")
	assert.False(t, s.attached(17, leaf17), "leaf of key 17 after it was detached")

	s.lower(1) // as a late producer does before it descends
	fresh := s.descend(1)
	require.NotNil(t, fresh)
	assert.NotSame(t, leaf1, fresh)
	assert.True(t, s.attached(1, fresh))
}
