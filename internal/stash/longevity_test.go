package stash

import (
	"math/rand/v2"
	"runtime"
	"testing"
)

// heapAfterGC returns the live heap after a full collection.
func heapAfterGC() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// runSteady drives a store under a steady load for revs revolutions of
// 1024 ticks: every tick adds perTick values at random keys up to half of
// 1024 ahead, walks up to the clock and, with clean, cleans. It returns the
// live heap at the end of each revolution.
func runSteady(t *testing.T, cfg Config, revs int, clean bool) []uint64 {
	const rev = 1024
	perTick := 16
	if raceEnabled || testing.Short() {
		perTick = 2
	}
	s := mustNew[item](t, cfg, 0)
	r := rand.New(rand.NewPCG(1, 2))
	var heaps []uint64
	added, walked := 0, 0
	for now := uint64(1); now <= uint64(revs*rev); now++ {
		for range perTick {
			s.Add(now+r.Uint64N(rev/2), &item{key: now})
			added++
		}
		for range s.Walk(now) {
			walked++
		}
		if clean {
			s.Clean()
		}
		if now%rev == 0 {
			heaps = append(heaps, heapAfterGC())
		}
	}
	if live := added - walked; live > rev/2*perTick {
		t.Fatalf("%d values live, want at most %d", live, rev/2*perTick)
	}
	runtime.KeepAlive(s)
	return heaps
}

// TestLongevity checks that, under a steady load, Clean keeps the heap flat
// over 128 revolutions of a wheel with a span of 1024 keys. Without Clean,
// on a wheel whose span the run stays inside (so no revolution wraps onto
// a path the walk has passed, which makes the walk clean by itself), the
// structure the walk has passed stays reachable and the heap grows.
func TestLongevity(t *testing.T) {
	revs := 128
	if raceEnabled || testing.Short() {
		revs = 100
	}
	small := Config{Levels: []Level{{Div: 64, Mod: 16, Chunk: 4}, {Div: 1, Mod: 64, Chunk: 8}}, LeafChunk: 4}
	with := runSteady(t, small, revs, true)
	base, last := with[3], with[len(with)-1]
	t.Logf("span 1024, with Clean: heap %d KiB after 4 revolutions, %d KiB after %d", base>>10, last>>10, revs)
	if last > base+base/8+64<<10 {
		t.Errorf("heap grew from %d to %d bytes over %d revolutions with Clean", base, last, revs)
	}

	wide := Config{Levels: []Level{{Div: 1 << 14, Mod: 64, Chunk: 4}, {Div: 1 << 6, Mod: 256, Chunk: 8}, {Div: 1, Mod: 64, Chunk: 8}}, LeafChunk: 4}
	with = runSteady(t, wide, 16, true)
	without := runSteady(t, wide, 16, false)
	t.Logf("span 2^20, 16 x 1024 ticks: with Clean %d -> %d KiB, without %d -> %d KiB",
		with[1]>>10, with[15]>>10, without[1]>>10, without[15]>>10)
	if with[15] > with[1]+with[1]/8+64<<10 {
		t.Errorf("heap grew from %d to %d bytes with Clean", with[1], with[15])
	}
	if without[15] < 2*without[1] || without[15] < with[15]+1<<20 {
		t.Errorf("heap without Clean: %d -> %d bytes; want growth", without[1], without[15])
	}
}
