package stash

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
)

// TestCompact: a leaf with 1000 values at one key, all but three removed,
// is compacted down to the walk's segment, the newest and those holding the
// three, and Peep and Walk still yield exactly those three in order.
func TestCompact(t *testing.T) {
	s := mustNew[kv](t, tiny(), 0) // leaf chunks of 2: segments of 2, 4, ..., 32, then 61 slots
	const n = 1000
	vals := make([]kv, n)
	refs := make([]Ref, n)
	for i := range vals {
		vals[i] = kv{key: 5, id: i}
		refs[i] = s.Add(5, &vals[i])
	}
	keep := []int{3, 500, 501}
	for i := range vals {
		if !slices.Contains(keep, i) && !s.Remove(refs[i], &vals[i]) {
			t.Fatalf("Remove of value %d failed", i)
		}
	}
	// 1000 slots make 21 segments (2+4+...+32 = 62, then 16 of 61); all
	// go but the first (the walk's), the one holding 3, the one holding
	// 500 and 501, and the newest.
	if got := s.Compact(); got != 17 {
		t.Fatalf("Compact unlinked %d segments, want 17", got)
	}
	if got := s.Compact(); got != 0 {
		t.Fatalf("a second Compact unlinked %d segments", got)
	}
	if got := ids(peepAll(s, 6)); !slices.Equal(got, keep) {
		t.Fatalf("Peep after Compact = %v, want %v", got, keep)
	}
	// Adds after compaction land after the gap and are walked too.
	late := kv{key: 5, id: n}
	s.Add(5, &late)
	want := append(slices.Clone(keep), n)
	if got := ids(walkAll(s, 6)); !slices.Equal(got, want) {
		t.Fatalf("Walk after Compact = %v, want %v", got, want)
	}
}

// TestCompactKeepsMemoryFlat: adding and removing a million values at keys
// ahead of the walk, compacting as it goes, holds a bounded heap; without
// Compact every removed value would keep its slot until the walk passes.
func TestCompactKeepsMemoryFlat(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("a million adds")
	}
	heapAfter := func(compact bool) uint64 {
		s := mustNew[kv](t, Config{Levels: DefaultLevels()}, 0)
		v := &kv{}
		for i := range 1 << 20 {
			r := s.Add(1<<40+uint64(i%4096)<<20, v) // 4096 buckets ahead
			s.Remove(r, v)
			if compact && i%(1<<16) == 0 {
				s.Compact()
			}
		}
		if compact {
			s.Compact()
		}
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		runtime.KeepAlive(s)
		return m.HeapAlloc
	}
	base := heapAfter(true)
	without := heapAfter(false)
	if without < base+(4<<20) {
		t.Fatalf("heap %d B with Compact, %d B without: want at least 4 MiB saved", base, without)
	}
}

// TestConcurrentCompact: producers add values and take most of them back
// with Remove while the consumer walks, cleans and compacts. Every value
// not removed is walked exactly once, and no removed value is walked.
func TestConcurrentCompact(t *testing.T) {
	const P = 4
	perP := 1 << 16
	if raceEnabled || testing.Short() {
		perP = 1 << 12
	}
	cfg := Config{Levels: []Level{{Div: 1 << 12, Mod: 16, Chunk: 4}, {Div: 1 << 6, Mod: 64, Chunk: 8}, {Div: 1, Mod: 64, Chunk: 8}}, LeafChunk: 2}
	s := mustNew[item](t, cfg, 0)
	var clock atomic.Uint64
	seen := make([]uint8, P*perP)
	removed := make([]bool, P*perP)
	var wg sync.WaitGroup
	for p := range P {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(p), 3))
			items := make([]item, perP)
			for i := range items {
				k := clock.Load() + r.Uint64N(2048)
				items[i] = item{key: k, id: uint32(p*perP + i)}
				ref := s.Add(k, &items[i])
				if r.IntN(10) != 0 && s.Remove(ref, &items[i]) {
					removed[items[i].id] = true
				}
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	consume := func(end uint64) {
		for _, v := range s.Walk(end) {
			seen[v.id]++
		}
		s.Clean()
		s.Compact()
	}
	for finished := false; !finished; {
		select {
		case <-done:
			finished = true
		default:
		}
		consume(clock.Add(4))
	}
	end := clock.Load() + 1<<14
	consume(end)
	consume(end)
	bad := 0
	for id, n := range seen {
		if (removed[id] && n != 0) || (!removed[id] && n != 1) {
			bad++
		}
	}
	if bad != 0 {
		t.Fatalf("%d of %d values walked the wrong number of times", bad, len(seen))
	}
}
