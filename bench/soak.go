package main

import (
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stashgo/stash/stashtime"
)

// The soak (go run ./bench -soak 3m) runs a server's mix of timers for the
// given time with package time, then for as long with stash, in one
// process, and prints the heap each held: idle deadlines reset constantly
// (AfterFunc), request timeouts started and stopped (NewTimer), and the
// hot-loop idiom select { case <-work: case <-After(time.Minute): } whose
// timers are abandoned. The work is paced, the same for both, so the heaps
// compare what each implementation keeps for it.
const (
	soakConns    = 10_000                 // idle deadlines, each reset again and again
	soakIdle     = 30 * time.Second       // an idle deadline
	soakRequest  = 5 * time.Second        // a request timeout
	soakAbandon  = time.Minute            // an abandoned After
	soakPace     = 10 * time.Millisecond  // each worker's batch interval
	soakBatch    = 250                    // operations per worker per batch
	soakWorkers  = 2                      // workers of each of the three kinds
	soakSample   = 500 * time.Millisecond // heap sampling interval
	soakWarmFrac = 6                      // the first 1/soakWarmFrac of a run is not sampled
)

// soakImpl is what the soak needs of an implementation.
type soakImpl struct {
	name      string
	afterFunc func(d time.Duration, f func()) timer
	newTimer  func(d time.Duration) timer
	after     func(d time.Duration) <-chan time.Time
}

var soakImpls = []soakImpl{
	{"time",
		func(d time.Duration, f func()) timer { return time.AfterFunc(d, f) },
		func(d time.Duration) timer { return time.NewTimer(d) },
		time.After},
	{"stash",
		func(d time.Duration, f func()) timer { return stashtime.AfterFunc(d, f) },
		func(d time.Duration) timer { return stashtime.NewTimer(d) },
		stashtime.After},
}

// soakResult is what one implementation's run held.
type soakResult struct {
	ops                int64  // timer operations done
	peakHeap, meanHeap uint64 // HeapAlloc, sampled every soakSample
	peakLive           uint64 // the live heap the collector last marked
	gcs                uint32 // collections during the run
	heapSys, heapInuse uint64 // at the end
}

func runSoak(d time.Duration, stdout, stderr io.Writer) error {
	fmt.Fprintf(stderr, "bench: soak of %v per implementation: %d idle deadlines reset, request timeouts, abandoned After(%v); %d ops per %v per worker, %d workers of each\n",
		d, soakConns, soakAbandon, soakBatch, soakPace, soakWorkers)
	var res []soakResult
	for _, im := range soakImpls {
		fmt.Fprintf(stderr, "bench: soak: %s...\n", im.name)
		res = append(res, soak(im, d))
		runtime.GC()
		runtime.GC()
	}
	fmt.Fprintf(stdout, "soak, %v each: %s %s/%s, GOMAXPROCS=%d\n", d, runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0))
	fmt.Fprintf(stdout, "%-6s %12s %12s %12s %12s %12s %6s %10s\n", "impl", "peak heap", "mean heap", "peak live", "HeapInuse", "HeapSys", "GCs", "ops")
	for i, r := range res {
		fmt.Fprintf(stdout, "%-6s %12s %12s %12s %12s %12s %6d %10d\n", soakImpls[i].name,
			mib(r.peakHeap), mib(r.meanHeap), mib(r.peakLive), mib(r.heapInuse), mib(r.heapSys), r.gcs, r.ops)
	}
	t, s := res[0], res[1]
	fmt.Fprintf(stdout, "stash/time: peak heap %.2fx, mean heap %.2fx, peak live %.2fx (goal: within 2x)\n",
		float64(s.peakHeap)/float64(t.peakHeap), float64(s.meanHeap)/float64(t.meanHeap), float64(s.peakLive)/float64(t.peakLive))
	return nil
}

func mib(b uint64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

// soak runs the mix with im for d and samples the heap.
func soak(im soakImpl, d time.Duration) soakResult {
	var (
		r    soakResult
		stop atomic.Bool
		wg   sync.WaitGroup
		ops  atomic.Int64
	)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	gcs := ms.NumGC
	conns := make([]timer, soakConns)
	for i := range conns {
		conns[i] = im.afterFunc(soakIdle, func() {})
	}
	// paced runs body soakBatch times every soakPace, until stop.
	paced := func(seed uint64, body func(rng *rand.Rand)) {
		defer wg.Done()
		rng := rand.New(rand.NewPCG(seed, seed))
		next := time.Now()
		for !stop.Load() {
			for range soakBatch {
				body(rng)
			}
			ops.Add(soakBatch)
			next = next.Add(soakPace)
			if w := time.Until(next); w > 0 {
				time.Sleep(w)
			} else {
				next = time.Now() // behind: do not burst to catch up
			}
		}
	}
	for i := range soakWorkers {
		wg.Add(3)
		// Idle deadlines: a connection saw traffic; push its deadline on.
		go paced(uint64(3*i), func(rng *rand.Rand) {
			conns[rng.IntN(len(conns))].Reset(soakIdle)
		})
		// Request timeouts: armed for a request, stopped when it is done.
		go paced(uint64(3*i+1), func(rng *rand.Rand) {
			t := im.newTimer(soakRequest)
			if rng.IntN(4) == 0 {
				runtime.Gosched() // a request that takes a moment
			}
			t.Stop()
		})
		// The hot-loop idiom: work always wins, the After is abandoned.
		work := make(chan int, 1)
		go paced(uint64(3*i+2), func(rng *rand.Rand) {
			work <- 1
			select {
			case <-work:
			case <-im.after(soakAbandon):
			}
		})
	}
	start := time.Now()
	warm := d / soakWarmFrac
	samples := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	var sum uint64
	var n int
	for time.Since(start) < d {
		time.Sleep(soakSample)
		if time.Since(start) < warm {
			continue
		}
		runtime.ReadMemStats(&ms)
		metrics.Read(samples)
		r.peakHeap = max(r.peakHeap, ms.HeapAlloc)
		if samples[0].Value.Kind() == metrics.KindUint64 {
			r.peakLive = max(r.peakLive, samples[0].Value.Uint64())
		}
		sum += ms.HeapAlloc
		n++
	}
	stop.Store(true)
	wg.Wait()
	runtime.ReadMemStats(&ms)
	r.heapSys, r.heapInuse = ms.HeapSys, ms.HeapInuse
	r.gcs = ms.NumGC - gcs
	if n > 0 {
		r.meanHeap = sum / uint64(n)
	}
	for _, c := range conns {
		c.Stop()
	}
	r.ops = ops.Load()
	return r
}
