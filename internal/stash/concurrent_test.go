package stash

import (
	"flag"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
)

var fullConcurrent = flag.Bool("stash.full", false, "run TestConcurrentAccounting with 8 x 1Mi values")

// item is a value of the concurrent test: its key and its index in the
// seen table.
type item struct {
	key uint64
	id  uint32
}

// TestConcurrentAccounting runs 8 producers adding 256Ki values each (1Mi
// with -stash.full, 8Ki under -race or -short) against one consumer that advances a clock, walks
// up to it and cleans, concurrently. Every value comes out exactly once,
// never before its key. Keys are mostly within a few thousand keys of the
// clock, some at or just behind it (late), some beyond the span.
func TestConcurrentAccounting(t *testing.T) {
	const P = 8
	perP := 1 << 18 // 8 x 256Ki values: about 10 s on 2 cores
	switch {
	case *fullConcurrent:
		perP = 1 << 20
	case raceEnabled || testing.Short():
		perP = 1 << 13
	}
	cfg := Config{Levels: []Level{{Div: 1 << 12, Mod: 16, Chunk: 4}, {Div: 1 << 6, Mod: 64, Chunk: 8}, {Div: 1, Mod: 64, Chunk: 8}}}
	s := mustNew[item](t, cfg, 0)
	var clock atomic.Uint64
	seen := make([]uint8, P*perP)
	var wg sync.WaitGroup
	for p := range P {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(p), 1))
			items := make([]item, perP)
			for i := range items {
				now := clock.Load()
				var k uint64
				switch x := r.IntN(100); {
				case x < 2: // beyond the span of 2^16
					k = now + 1<<16 + r.Uint64N(1<<17)
				case x < 5: // at the clock: due at once
					k = now
				default:
					k = now + r.Uint64N(4096)
				}
				items[i] = item{key: k, id: uint32(p*perP + i)}
				s.Add(k, &items[i])
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()

	walked, early := 0, 0
	consume := func(end uint64) {
		for b, v := range s.Walk(end) {
			if b >= end || v.key < b || v.key >= b+s.Bucket() {
				early++
			}
			seen[v.id]++
			walked++
		}
		s.Clean()
	}
	for finished := false; !finished; {
		select {
		case <-done:
			finished = true
		default:
		}
		consume(clock.Add(16))
	}
	// Everything left is due by the clock plus the farthest key.
	end := clock.Load() + 1<<18
	clock.Store(end)
	consume(end)
	consume(end)
	if early != 0 {
		t.Errorf("%d values walked before their key", early)
	}
	missing, twice := 0, 0
	for _, n := range seen {
		switch {
		case n == 0:
			missing++
		case n > 1:
			twice++
		}
	}
	if missing != 0 || twice != 0 || walked != P*perP {
		t.Fatalf("walked %d of %d: %d missing, %d more than once (overflow %d, FirstValid %d)",
			walked, P*perP, missing, twice, s.Overflow(), s.FirstValid())
	}
}
