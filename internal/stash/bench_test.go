package stash

import (
	"container/heap"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The benchmarks compare the store with a baseline in the same run: a
// container/heap of (key, value) behind a sync.Mutex. Sub-benchmark names
// put impl last so benchstat can compare impl=heap against impl=stash.
// Keys are nanoseconds over DefaultLevels, random within [now, now+10s).

const (
	benchNow    = uint64(1) << 40
	benchWindow = uint64(10 * time.Second)
)

type benchVal struct{ _ uint64 }

// queue is the common face of the two implementations.
type queue interface {
	add(key uint64, v *benchVal)
	walk(end uint64) int       // consume everything below end; return the count
	peepFirst(end uint64) bool // is anything due below end?
}

type hentry struct {
	key uint64
	v   *benchVal
}

type mheap []hentry

func (h mheap) Len() int           { return len(h) }
func (h mheap) Less(i, j int) bool { return h[i].key < h[j].key }
func (h mheap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *mheap) Push(x any)        { *h = append(*h, x.(hentry)) }
func (h *mheap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

type heapQueue struct {
	mu sync.Mutex
	h  mheap
}

func (q *heapQueue) add(key uint64, v *benchVal) {
	q.mu.Lock()
	heap.Push(&q.h, hentry{key, v})
	q.mu.Unlock()
}

func (q *heapQueue) walk(end uint64) int {
	n := 0
	q.mu.Lock()
	for len(q.h) > 0 && q.h[0].key < end {
		heap.Pop(&q.h)
		n++
	}
	q.mu.Unlock()
	return n
}

func (q *heapQueue) peepFirst(end uint64) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.h) > 0 && q.h[0].key < end
}

type stashQueue struct{ s *Store[benchVal] }

func (q stashQueue) add(key uint64, v *benchVal) { q.s.Add(key, v) }

func (q stashQueue) walk(end uint64) int {
	n := 0
	for range q.s.Walk(end) {
		n++
	}
	return n
}

func (q stashQueue) peepFirst(end uint64) bool {
	for range q.s.Peep(end) {
		return true
	}
	return false
}

func newQueue(b *testing.B, impl string) queue {
	if impl == "heap" {
		return &heapQueue{}
	}
	s, err := New[benchVal](Config{Levels: DefaultLevels()}, benchNow)
	if err != nil {
		b.Fatal(err)
	}
	return stashQueue{s}
}

var impls = []string{"heap", "stash"}

// fill adds n values at keys spread over the window.
func fill(q queue, n int) {
	r := rand.New(rand.NewPCG(7, 7))
	vals := make([]benchVal, n)
	for i := range vals {
		q.add(benchNow+r.Uint64N(benchWindow), &vals[i])
	}
}

var lives = []struct {
	name string
	n    int
}{{"0", 0}, {"10k", 10_000}, {"1M", 1_000_000}}

func BenchmarkAdd(b *testing.B) {
	for _, live := range lives {
		for _, impl := range impls {
			b.Run(fmt.Sprintf("live=%s/impl=%s", live.name, impl), func(b *testing.B) {
				q := newQueue(b, impl)
				fill(q, live.n)
				r := rand.New(rand.NewPCG(1, 1))
				v := &benchVal{}
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					q.add(benchNow+r.Uint64N(benchWindow), v)
				}
			})
		}
	}
}

func BenchmarkAddParallel(b *testing.B) {
	for _, live := range lives {
		for _, impl := range impls {
			b.Run(fmt.Sprintf("live=%s/impl=%s", live.name, impl), func(b *testing.B) {
				q := newQueue(b, impl)
				fill(q, live.n)
				var seed atomic.Uint64
				b.ReportAllocs()
				b.ResetTimer()
				b.RunParallel(func(pb *testing.PB) {
					r := rand.New(rand.NewPCG(seed.Add(1), 2))
					v := &benchVal{}
					for pb.Next() {
						q.add(benchNow+r.Uint64N(benchWindow), v)
					}
				})
			})
		}
	}
}

// BenchmarkWalk measures draining b.N values spread over the window, per
// value, in 1 ms ticks as a timer wheel would.
func BenchmarkWalk(b *testing.B) {
	for _, impl := range impls {
		b.Run("impl="+impl, func(b *testing.B) {
			q := newQueue(b, impl)
			fill(q, b.N)
			b.ReportAllocs()
			b.ResetTimer()
			n := 0
			for end := benchNow; end <= benchNow+benchWindow+uint64(time.Millisecond); end += uint64(time.Millisecond) {
				n += q.walk(end)
			}
			if n != b.N {
				b.Fatalf("walked %d of %d", n, b.N)
			}
		})
	}
}

// BenchmarkPeep measures asking for the soonest value with 10k live.
func BenchmarkPeep(b *testing.B) {
	for _, impl := range impls {
		b.Run("live=10k/impl="+impl, func(b *testing.B) {
			q := newQueue(b, impl)
			fill(q, 10_000)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if !q.peepFirst(benchNow + benchWindow) {
					b.Fatal("nothing to peep")
				}
			}
		})
	}
}

// BenchmarkBytesPerValue reports the store's heap per stored value, the
// value itself excluded (values are preallocated before the measure), for a
// dense distribution (keys within 10 ms: thousands per 1 ms bucket) and a
// sparse one (keys over an hour: about one per bucket).
func BenchmarkBytesPerValue(b *testing.B) {
	const n = 1 << 16
	for _, dist := range []struct {
		name   string
		window uint64
	}{{"dense", uint64(10 * time.Millisecond)}, {"sparse", uint64(time.Hour)}} {
		for _, impl := range impls {
			b.Run(fmt.Sprintf("dist=%s/impl=%s", dist.name, impl), func(b *testing.B) {
				vals := make([]benchVal, n)
				r := rand.New(rand.NewPCG(3, 3))
				keys := make([]uint64, n)
				for i := range keys {
					keys[i] = benchNow + r.Uint64N(dist.window)
				}
				var total uint64
				b.ReportAllocs()
				for range b.N {
					before := heapAfterGC()
					q := newQueue(b, impl)
					for i := range vals {
						q.add(keys[i], &vals[i])
					}
					after := heapAfterGC()
					runtime.KeepAlive(q)
					total += after - before
				}
				b.ReportMetric(float64(total)/float64(b.N)/n, "B/value")
			})
		}
	}
}
