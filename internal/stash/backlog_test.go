package stash

import "testing"

// Backlog counts the slots of a bucket's leaf that the walk has not passed,
// removed ones included, and nothing for a bucket of another revolution.
func TestBacklog(t *testing.T) {
	cfg := Config{Levels: []Level{{Div: 16, Mod: 4, Chunk: 4}, {Div: 4, Mod: 4, Chunk: 4}}, LeafChunk: 2}
	s := mustNew[kv](t, cfg, 0) // buckets of 4, a span of 64
	if n := s.Backlog(5); n != 0 {
		t.Fatalf("empty store: Backlog(5) = %d", n)
	}
	vs := []*kv{{key: 6, id: 0}, {key: 4, id: 1}, {key: 5, id: 2}, {key: 9, id: 3}}
	var refs []Ref
	for _, v := range vs {
		refs = append(refs, s.Add(v.key, v))
	}
	check := func(key uint64, want int) {
		t.Helper()
		if n := s.Backlog(key); n != want {
			t.Errorf("Backlog(%d) = %d, want %d", key, n, want)
		}
	}
	check(4, 3)
	check(7, 3) // any key of the bucket
	check(8, 1)
	check(12, 0)
	check(9+64, 0) // bucket 8's slots, a revolution later
	if !s.Remove(refs[1], vs[1]) {
		t.Fatal("Remove failed")
	}
	check(4, 3)
	for range s.Walk(5) {
		break // takes the value at key 6
	}
	check(4, 2)
	if got := walkAll(s, 5); len(got) != 1 || got[0].id != 2 {
		t.Fatalf("second walk = %v, want key 5 only", got)
	}
	check(4, 0)
	check(8, 1)
	walkAll(s, 12)
	check(8, 0)
}
