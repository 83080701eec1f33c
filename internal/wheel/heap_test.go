package wheel

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

// TestNearHeapModel checks the near heap against a sorted slice under
// random pushes and pops: every pop returns the least key, and wake
// returns what a scan of every item gives.
func TestNearHeapModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var h nearHeap
		var model []int64 // sorted keys
		for range rapid.IntRange(1, 200).Draw(t, "ops") {
			if len(model) > 0 && rapid.Bool().Draw(t, "pop") {
				it := h.pop()
				require.Equal(t, model[0], it.key, "pop: the least key")
				model = model[1:]
				continue
			}
			key := rapid.Int64Range(0, 1000).Draw(t, "key")
			it := nearItem{key: key, latest: key + rapid.Int64Range(0, 300).Draw(t, "slack")}
			h.push(it)
			i, _ := slices.BinarySearch(model, key)
			model = slices.Insert(model, i, key)
			require.Equal(t, wakeScan(h), first(h.wake(nil)), "wake of %v", h)
		}
		require.Len(t, h, len(model))
	})
}

// wakeScan is nearHeap.wake by a scan of every item.
func wakeScan(h nearHeap) int64 {
	best := int64(math.MaxInt64)
	for _, it := range h {
		best = min(best, it.latest)
	}
	if best == math.MaxInt64 {
		return best
	}
	n := 0
	for _, it := range h {
		if it.key <= best {
			n++
		}
	}
	if n == 1 {
		return h[0].key // alone in its window: its deadline
	}
	return best
}

func first[A, B any](a A, _ B) A { return a }

// BenchmarkNearHeap measures a push and a pop on a heap of 1000 timers, as
// the driver's near heap holds for 1000 timers of 10 ms.
func BenchmarkNearHeap(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	var h nearHeap
	for range 1000 {
		k := rng.Int64N(1e7)
		h.push(nearItem{key: k, latest: k + 1<<19})
	}
	b.ResetTimer()
	for range b.N {
		it := h.pop()
		it.key += 1e7 // re-armed a period later
		it.latest = it.key + 1<<19
		h.push(it)
	}
}
