package stash

import (
	"math"
	"testing"
)

// NextBucket reports the first bucket with slots the walk has not passed,
// including slots whose values Remove took out, and none once walked.
func TestNextBucket(t *testing.T) {
	s, err := New[int](Config{Levels: []Level{{Div: 8, Mod: 8, Chunk: 4}, {Div: 1, Mod: 8, Chunk: 4}}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s.NextBucket(math.MaxUint64); ok {
		t.Fatal("empty store reports a bucket")
	}
	a, b := 1, 2
	ra := s.Add(3, &a)
	s.Add(9, &b)
	if !s.Remove(ra, &a) {
		t.Fatal("Remove of a value in its slot failed")
	}
	if s.Remove(ra, &a) {
		t.Fatal("second Remove succeeded")
	}
	if k, ok := s.NextBucket(math.MaxUint64); !ok || k != 3 {
		t.Fatalf("NextBucket = %d, %v; want the removed value's bucket 3", k, ok)
	}
	if k, ok := s.NextBucket(3); ok {
		t.Fatalf("NextBucket(3) = %d: the window ends before bucket 3", k)
	}
	var got []int
	for _, v := range s.Walk(5) {
		got = append(got, *v)
	}
	if len(got) != 0 {
		t.Fatalf("walk returned removed values %v", got)
	}
	if k, ok := s.NextBucket(math.MaxUint64); !ok || k != 9 {
		t.Fatalf("after the walk NextBucket = %d, %v; want 9", k, ok)
	}
}
