package stash

import (
	"strings"
	"testing"
	"unsafe"
)

// tiny is a two-level geometry: buckets of one key, 8 top-level slots of 8
// keys, a span of 64 keys.
func tiny() Config {
	return Config{Levels: []Level{{Div: 8, Mod: 8, Chunk: 4}, {Div: 1, Mod: 8, Chunk: 4}}, LeafChunk: 2}
}

func mustNew[T any](t testing.TB, cfg Config, start uint64) *Store[T] {
	t.Helper()
	s, err := New[T](cfg, start)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// kv is a value with its own key, so a test can check where it came out.
type kv struct {
	key uint64
	id  int
}

// walkAll collects what Walk(end) yields.
func walkAll(s *Store[kv], end uint64) []kv {
	var out []kv
	for b, v := range s.Walk(end) {
		if v.key-v.key%s.Bucket() != b {
			panic("value yielded under the wrong bucket")
		}
		out = append(out, *v)
	}
	return out
}

func peepAll(s *Store[kv], end uint64) []kv {
	var out []kv
	for _, v := range s.Peep(end) {
		out = append(out, *v)
	}
	return out
}

func ids(vs []kv) []int {
	out := make([]int, len(vs))
	for i, v := range vs {
		out[i] = v.id
	}
	return out
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestConfigErrors(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"no levels", Config{}, "no levels"},
		{"zero div", Config{Levels: []Level{{Div: 0, Mod: 8, Chunk: 1}}}, "Div is zero"},
		{"zero mod", Config{Levels: []Level{{Div: 1, Mod: 0, Chunk: 1}}}, "Mod is zero"},
		{"zero chunk", Config{Levels: []Level{{Div: 1, Mod: 8, Chunk: 0}}}, "Chunk must be positive"},
		{"not nesting", Config{Levels: []Level{{Div: 8, Mod: 8, Chunk: 1}, {Div: 2, Mod: 8, Chunk: 1}}}, "want the Div of level 0"},
		{"overflow", Config{Levels: []Level{{Div: 1 << 40, Mod: 1 << 30, Chunk: 1}}}, "overflows"},
		{"negative leaf chunk", Config{Levels: []Level{{Div: 1, Mod: 8, Chunk: 1}}, LeafChunk: -1}, "LeafChunk"},
		{"margin", Config{Levels: []Level{{Div: 8, Mod: 8, Chunk: 1}}, HorizonMargin: 57}, "HorizonMargin"},
		{"too deep", Config{Levels: func() []Level {
			ls := make([]Level, 17)
			for i := range ls {
				ls[i] = Level{Div: 1 << (2 * (16 - i)), Mod: 4, Chunk: 1}
			}
			return ls
		}()}, "more than 16 levels"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := New[int](tt.cfg, 0)
			if err == nil || s != nil {
				t.Fatalf("New = %v, %v; want an error", s, err)
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "stash: ") {
				t.Fatalf("error %q does not say %q", err, tt.want)
			}
		})
	}
}

func TestConfigAccepted(t *testing.T) {
	for _, cfg := range []Config{
		{Levels: DefaultLevels()},
		tiny(),
		{Levels: []Level{{Div: 8, Mod: 8, Chunk: 1}}, HorizonMargin: 56},
	} {
		s, err := New[int](cfg, 12345)
		if err != nil {
			t.Fatal(err)
		}
		if s.FirstValid() != 12345 || s.LastValid() != 12345 {
			t.Fatalf("bounds %d, %d; want 12345", s.FirstValid(), s.LastValid())
		}
	}
}

func TestDefaultLevels(t *testing.T) {
	s := mustNew[int](t, Config{Levels: DefaultLevels()}, 0)
	if s.Bucket() != 1<<20 {
		t.Errorf("Bucket = %d, want 2^20", s.Bucket())
	}
	if s.Span() != 1<<56 {
		t.Errorf("Span = %d, want 2^56", s.Span())
	}
	if s.leafChunk != 4 {
		t.Errorf("default LeafChunk = %d, want 4", s.leafChunk)
	}
}

func TestNewCopiesLevels(t *testing.T) {
	cfg := tiny()
	s := mustNew[int](t, cfg, 0)
	cfg.Levels[0].Div = 1
	if s.levels[0].Div != 8 {
		t.Fatal("Store shares the caller's Levels slice")
	}
}

func mustPanic(t *testing.T, want string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		if r == nil {
			t.Fatalf("no panic; want %q", want)
		}
		if msg, _ := r.(string); !strings.Contains(msg, want) {
			t.Fatalf("panic %v; want %q", r, want)
		}
	}()
	f()
}

func TestAddNilPanics(t *testing.T) {
	s := mustNew[int](t, tiny(), 0)
	mustPanic(t, "stash: Add of a nil value", func() { s.Add(1, nil) })
}

func TestPeepRangeBackwardsPanics(t *testing.T) {
	s := mustNew[int](t, tiny(), 0)
	mustPanic(t, "stash: window end before begin", func() { s.PeepRange(10, 9) })
}

func TestSecondConsumerPanics(t *testing.T) {
	s := mustNew[int](t, tiny(), 0)
	const want = "a Store has one consumer"
	end := func() uint64 { return s.FirstValid() + 10 }
	inner := map[string]func(){
		"Walk": func() {
			for range s.Walk(end()) {
			}
		},
		"Peep": func() {
			for range s.Peep(end()) {
			}
		},
		"Clean": func() { s.Clean() },
	}
	for outerName, outer := range map[string]func(func(uint64, *int) bool){
		"Walk": func(f func(uint64, *int) bool) { s.Walk(end())(f) },
		"Peep": func(f func(uint64, *int) bool) { s.Peep(end())(f) },
	} {
		for innerName, in := range inner {
			t.Run(outerName+"/"+innerName, func(t *testing.T) {
				v := 1
				s.Add(s.FirstValid(), &v) // so the outer iterator yields
				mustPanic(t, want, func() {
					outer(func(uint64, *int) bool { in(); return false })
				})
			})
		}
	}
	// The panics released the consumer role: a plain walk works again.
	v := 2
	s.Add(s.FirstValid(), &v)
	n := 0
	for range s.Walk(end()) {
		n++
	}
	if n == 0 {
		t.Fatal("store unusable after a rejected second consumer")
	}
}

// TestDescent checks that a key lands on slot (key/Div)%Mod at each level,
// and that each node on its path records the first key it covers.
func TestDescent(t *testing.T) {
	cfg := Config{Levels: []Level{{Div: 100, Mod: 10, Chunk: 2}, {Div: 10, Mod: 10, Chunk: 3}, {Div: 1, Mod: 10, Chunk: 10}}}
	s := mustNew[int](t, cfg, 0)
	v := 1
	const key = 987
	s.Add(key, &v)
	n := s.root
	wantSlots := []uint64{9, 8, 7}
	wantBases := []uint64{900, 980, 987}
	for d, lv := range cfg.Levels {
		if got := (key / lv.Div) % lv.Mod; got != wantSlots[d] {
			t.Fatalf("level %d: slot %d, want %d", d, got, wantSlots[d])
		}
		if n.next(0, lv.Mod) != wantSlots[d] {
			t.Fatalf("level %d: first marked slot %d, want %d", d, n.next(0, lv.Mod), wantSlots[d])
		}
		c := n.child(wantSlots[d], lv)
		if c == nil {
			t.Fatalf("level %d: no child at slot %d", d, wantSlots[d])
		}
		last := d == len(cfg.Levels)-1
		if b := baseOf(c, last); b != wantBases[d] {
			t.Fatalf("level %d: child base %d, want %d", d, b, wantBases[d])
		}
		if last {
			l := (*leaf)(c)
			if l.end.Load() != 1 {
				t.Fatalf("leaf holds %d reservations, want 1", l.end.Load())
			}
			break
		}
		n = (*node)(c)
	}
	if s.LastValid() != key {
		t.Fatalf("LastValid = %d, want %d", s.LastValid(), key)
	}
}

// TestValidBounds checks that Add widens LastValid, a walk moves FirstValid
// to its end and never past what is unwalked.
func TestValidBounds(t *testing.T) {
	s := mustNew[kv](t, tiny(), 0)
	for _, k := range []uint64{3, 40, 17} {
		s.Add(k, &kv{key: k})
	}
	if s.FirstValid() != 0 || s.LastValid() != 40 {
		t.Fatalf("bounds %d, %d; want 0, 40", s.FirstValid(), s.LastValid())
	}
	if got := walkAll(s, 20); len(got) != 2 {
		t.Fatalf("walked %v, want keys 3 and 17", got)
	}
	if s.FirstValid() != 20 {
		t.Fatalf("FirstValid = %d after Walk(20), want 20", s.FirstValid())
	}
	// A walk ending below FirstValid does not move it back.
	walkAll(s, 5)
	if s.FirstValid() != 20 {
		t.Fatalf("FirstValid = %d after Walk(5), want 20", s.FirstValid())
	}
	// A walk stopped early leaves FirstValid at the bucket it stopped in.
	s.Add(30, &kv{key: 30, id: 1})
	s.Add(30, &kv{key: 30, id: 2})
	for range s.Walk(35) {
		break
	}
	if s.FirstValid() != 30 {
		t.Fatalf("FirstValid = %d after a walk stopped at 30", s.FirstValid())
	}
	if got := walkAll(s, 35); len(got) != 1 || got[0].id != 2 {
		t.Fatalf("rest of bucket 30: %v", got)
	}
}

func unsafePointer[T any](p *T) unsafe.Pointer { return unsafe.Pointer(p) }
