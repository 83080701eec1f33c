package stash

import "testing"

// TestUnmarkedChildIsWalked pins the mask invariant: a producer that
// publishes a child may be preempted before it sets the child's bit, and a
// value another producer stores below that child must still be walked.
func TestUnmarkedChildIsWalked(t *testing.T) {
	cfg := Config{Levels: []Level{{Div: 1 << 8, Mod: 16, Chunk: 4}, {Div: 1 << 4, Mod: 16, Chunk: 4}, {Div: 1, Mod: 16, Chunk: 4}}}
	s := mustNew[int](t, cfg, 0)
	// Producer A publishes the path to key 300 and stops before marking it.
	if s.descend(300) == nil {
		t.Fatal("descend found another revolution in an empty store")
	}
	n := s.root
	for d, lv := range s.levels {
		n.unmark((300 / lv.Div) % lv.Mod)
		if d+1 < len(s.levels) {
			n = (*node)(n.child((300/lv.Div)%lv.Mod, lv))
		}
	}
	// Producer B adds below the same child and returns.
	v := 7
	s.Add(290, &v)
	var got []uint64
	for k, p := range s.Walk(1000) {
		if *p != 7 {
			t.Fatalf("walk yielded %d", *p)
		}
		got = append(got, k)
	}
	if len(got) != 1 || got[0] != 290 {
		t.Fatalf("walk to 1000 yielded keys %v, want [290]", got)
	}
}
