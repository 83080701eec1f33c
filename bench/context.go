package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stashgo/stash/stashcontext"
)

// withTimeout is context.WithTimeout or stashcontext.WithTimeout, by impl:
// the time column of the context rows is package context.
func withTimeout(im *impl) func(context.Context, time.Duration) (context.Context, context.CancelFunc) {
	if im == implTime {
		return context.WithTimeout
	}
	return stashcontext.WithTimeout
}

func contextSteps(c *config) int { return len(c.liveSizes) * 2 * c.rounds }

// contextRows: WithTimeout then cancel, a request that finishes before its
// timeout, with other contexts pending (made with timeouts over [liveMin,
// liveMin+liveSpan), not canceled); ns/op and B/op at each live count.
func contextRows(r *runner) {
	for i, n := range r.cfg.liveSizes {
		var ns, bytes [2][]float64
		for round := range r.cfg.rounds {
			for _, im := range pair(round) {
				r.prog.running(im.name, "live="+count(n))
				wt := withTimeout(im)
				cancels := startLiveContexts(wt, n, uint64(round))
				res := testing.Benchmark(func(b *testing.B) {
					bg := context.Background()
					for range b.N {
						_, cancel := wt(bg, time.Second)
						cancel()
					}
				})
				for _, c := range cancels {
					c()
				}
				runtime.GC()
				k := implIndex(im)
				if res.N == 0 {
					ns[k], bytes[k] = append(ns[k], nan), append(bytes[k], nan)
				} else {
					ns[k] = append(ns[k], float64(res.T.Nanoseconds())/float64(res.N))
					bytes[k] = append(bytes[k], float64(res.MemBytes)/float64(res.N))
				}
				r.prog.step()
			}
		}
		wl := fmt.Sprintf("withtimeout-cancel live=%s", count(n))
		rw := row{workload: wl, metric: "ns/op", unit: unitNs, time: median(ns[0]), stash: median(ns[1])}
		if i == 0 {
			rw.note = "context rows: the time column is package context, stash is stashcontext"
		}
		r.res.add(rw)
		r.res.add(row{workload: wl, metric: "B/op", unit: unitBytes, time: median(bytes[0]), stash: median(bytes[1])})
	}
}

// startLiveContexts makes n pending contexts with wt, from GOMAXPROCS
// goroutines, as startLive starts timers, and returns their cancels.
func startLiveContexts(wt func(context.Context, time.Duration) (context.Context, context.CancelFunc), n int, seed uint64) []context.CancelFunc {
	cancels := make([]context.CancelFunc, n)
	procs := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for p := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, uint64(p)))
			for i := p * n / procs; i < (p+1)*n/procs; i++ {
				_, cancels[i] = wt(context.Background(), liveMin+time.Duration(rng.Int64N(int64(liveSpan))))
			}
		}()
	}
	wg.Wait()
	return cancels
}
