package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/stashgo/stash/internal/measure"
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

func contextSteps(c *config) int { return len(c.contextLive) * 2 * c.contextRounds }

// contextRows: WithTimeout then cancel, a request that finishes before its
// timeout, with other contexts pending (made with timeouts over [liveMin,
// liveMin+liveSpan), their Done channels asked for, not canceled); ns/op
// and B/op at each live count, without and with a look at Done before the
// cancel (stashcontext has a timer watch a deadline only once something
// could see it pass).
func contextRows(r *runner) {
	for i, n := range r.cfg.contextLive {
		var ns, bytes [2][2][]float64 // [done][impl]
		for round := range r.cfg.contextRounds {
			for _, im := range pair(round) {
				r.prog.running(im.name, "live="+measure.Count(n))
				wt := withTimeout(im)
				cancels := startLiveContexts(wt, n, uint64(round))
				k := implIndex(im)
				for done := range 2 {
					res := testing.Benchmark(func(b *testing.B) {
						bg := context.Background()
						for range b.N {
							ctx, cancel := wt(bg, time.Second)
							if done == 1 {
								_ = ctx.Done()
							}
							cancel()
						}
					})
					x, y := nan, nan
					if res.N > 0 {
						x = float64(res.T.Nanoseconds()) / float64(res.N)
						y = float64(res.MemBytes) / float64(res.N)
					}
					ns[done][k] = append(ns[done][k], x)
					bytes[done][k] = append(bytes[done][k], y)
				}
				for _, c := range cancels {
					c()
				}
				runtime.GC()
				r.prog.step()
			}
		}
		wl := fmt.Sprintf("withtimeout-cancel live=%s", measure.Count(n))
		for done, suffix := range []string{"", ", Done"} {
			rw := newRow(wl, "ns/op"+suffix, unitNs, ns[done][0], ns[done][1])
			if i == 0 && done == 0 {
				rw.note = "the time column is package context, stash is stashcontext; " +
					"\"Done\": the Done channel asked for before cancel (a timer on stash's wheel then watches the deadline)"
			}
			r.res.add(rw)
			r.res.add(newRow(wl, "B/op"+suffix, unitBytes, bytes[done][0], bytes[done][1]))
		}
	}
}

// startLiveContexts makes n pending contexts with wt, spread over the Ps
// as startLive starts timers, and returns their cancels.
func startLiveContexts(wt func(context.Context, time.Duration) (context.Context, context.CancelFunc), n int, seed uint64) []context.CancelFunc {
	cancels := make([]context.CancelFunc, n)
	overPs(n, seed, func(i int, rng *rand.Rand) {
		var ctx context.Context
		ctx, cancels[i] = wt(context.Background(), liveMin+time.Duration(rng.Int64N(int64(liveSpan))))
		_ = ctx.Done() // pending: waited on, its deadline on the wheel
	})
	return cancels
}
