package stash

import (
	"fmt"
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// modelGeometries are the small geometries the property test draws from:
// spans of 64 and 128 keys, buckets of 1 and 4 keys, with and without a
// horizon margin.
var modelGeometries = []Config{
	tiny(),
	{Levels: []Level{{Div: 32, Mod: 4, Chunk: 2}, {Div: 4, Mod: 8, Chunk: 3}}, LeafChunk: 1},
	{Levels: []Level{{Div: 8, Mod: 8, Chunk: 4}, {Div: 1, Mod: 8, Chunk: 4}}, LeafChunk: 3, HorizonMargin: 20},
	{Levels: []Level{{Div: 16, Mod: 4, Chunk: 1}, {Div: 4, Mod: 4, Chunk: 1}, {Div: 1, Mod: 4, Chunk: 2}}, LeafChunk: 2},
}

// model is the reference: the values not yet walked, in insertion order.
// Walk(end) must return those whose bucket starts below end, ordered by
// bucket and then by insertion, each exactly once, and nothing else.
type model struct {
	bucket uint64
	vals   []kv
}

func (m *model) due(end uint64) []kv {
	var out []kv
	for _, v := range m.vals {
		if v.key-v.key%m.bucket < end {
			out = append(out, v)
		}
	}
	slices.SortStableFunc(out, func(a, b kv) int {
		ba, bb := a.key-a.key%m.bucket, b.key-b.key%m.bucket
		switch {
		case ba < bb:
			return -1
		case ba > bb:
			return 1
		}
		return 0
	})
	return out
}

func (m *model) remove(got []kv) {
	gone := make(map[int]bool, len(got))
	for _, v := range got {
		gone[v.id] = true
	}
	m.vals = slices.DeleteFunc(m.vals, func(v kv) bool { return gone[v.id] })
}

// isSubsequence reports whether sub appears in seq in order.
func isSubsequence(sub, seq []int) bool {
	i := 0
	for _, x := range seq {
		if i < len(sub) && sub[i] == x {
			i++
		}
	}
	return i == len(sub)
}

// checkModel runs a random sequence of adds (near, beyond the span, late
// below FirstValid, on a key already used), removes, walks (whole and
// stopped early), peeps, cleans and compactions against the model.
func checkModel(t *rapid.T) {
	cfg := modelGeometries[rapid.IntRange(0, len(modelGeometries)-1).Draw(t, "geometry")]
	start := rapid.Uint64Range(0, 1000).Draw(t, "start")
	s, err := New[kv](cfg, start)
	if err != nil {
		t.Fatal(err)
	}
	m := &model{bucket: s.Bucket()}
	span := s.Span()
	next := 0
	type added struct {
		v   *kv
		ref Ref
	}
	var all []added
	add := func(k uint64) {
		v := &kv{key: k, id: next}
		all = append(all, added{v, s.Add(k, v)})
		m.vals = append(m.vals, *v)
		next++
	}
	t.Repeat(map[string]func(*rapid.T){
		"addNear": func(t *rapid.T) {
			add(s.FirstValid() + rapid.Uint64Range(0, span-1).Draw(t, "off"))
		},
		"addBeyond": func(t *rapid.T) {
			add(s.FirstValid() + span + rapid.Uint64Range(0, 3*span).Draw(t, "off"))
		},
		"addLate": func(t *rapid.T) {
			fv := s.FirstValid()
			if fv == 0 {
				t.Skip("nothing below FirstValid")
			}
			add(fv - 1 - rapid.Uint64Range(0, min(fv-1, 2*span)).Draw(t, "back"))
		},
		"addSame": func(t *rapid.T) {
			if len(m.vals) == 0 {
				t.Skip("no key yet")
			}
			add(rapid.SampledFrom(m.vals).Draw(t, "v").key)
		},
		"walk": func(t *rapid.T) {
			end := s.FirstValid() + rapid.Uint64Range(0, 3*span).Draw(t, "ahead")
			want := m.due(end)
			got := walkAll(s, end)
			if !slices.Equal(ids(got), ids(want)) {
				t.Fatalf("Walk(%d) = %v, want %v", end, got, want)
			}
			m.remove(got)
		},
		"walkStop": func(t *rapid.T) {
			end := s.FirstValid() + rapid.Uint64Range(0, 2*span).Draw(t, "ahead")
			stop := rapid.IntRange(1, 5).Draw(t, "stop")
			want := m.due(end)
			var got []kv
			for _, v := range s.Walk(end) {
				got = append(got, *v)
				if len(got) == stop {
					break
				}
			}
			if len(want) > stop {
				want = want[:stop]
			}
			if !slices.Equal(ids(got), ids(want)) {
				t.Fatalf("Walk(%d) stopped after %d = %v, want %v", end, stop, got, want)
			}
			m.remove(got)
		},
		"peep": func(t *rapid.T) {
			end := s.FirstValid() + rapid.Uint64Range(0, 3*span).Draw(t, "ahead")
			want := m.due(end)
			got := peepAll(s, end)
			// Peep shows what is in the tree; values still waiting in the
			// overflow area may be missing, nothing else.
			if !isSubsequence(ids(got), ids(want)) || (len(got) < len(want) && s.Overflow() == 0) {
				t.Fatalf("Peep(%d) = %v, want %v (overflow %d)", end, got, want, s.Overflow())
			}
		},
		"clean": func(t *rapid.T) {
			s.Clean()
		},
		"remove": func(t *rapid.T) {
			if len(all) == 0 {
				t.Skip("nothing added yet")
			}
			a := rapid.SampledFrom(all).Draw(t, "value")
			// Remove fails for a value already walked, or moved out of
			// its slot (from the overflow area, or by salvage).
			if s.Remove(a.ref, a.v) {
				m.remove([]kv{*a.v})
			}
		},
		"compact": func(t *rapid.T) {
			s.Compact()
		},
		"": func(t *rapid.T) {
			// FirstValid is a true low-water mark: every value not yet
			// walked is in a bucket at or above it.
			fv := s.FirstValid()
			for _, v := range m.vals {
				if v.key < fv-fv%m.bucket {
					t.Fatalf("value %v below FirstValid %d", v, fv)
				}
			}
		},
	})
	// Drain: a walk far enough ahead returns everything left, in order.
	end := s.FirstValid() + 10*span
	for _, v := range m.vals {
		end = max(end, v.key+1)
	}
	want := m.due(end)
	if got := walkAll(s, end); !slices.Equal(ids(got), ids(want)) {
		t.Fatalf("final Walk(%d) = %v, want %v", end, got, want)
	}
	if s.Overflow() != 0 {
		t.Fatalf("%d values left in the overflow area", s.Overflow())
	}
}

func TestModel(t *testing.T) {
	rapid.Check(t, checkModel)
}

// FuzzModel runs the model check on fuzzer-chosen sequences:
// go test -fuzz FuzzModel ./internal/stash/
func FuzzModel(f *testing.F) {
	for i := range 4 {
		f.Add([]byte(fmt.Sprint(i, "seed")))
	}
	f.Fuzz(rapid.MakeFuzz(checkModel))
}
