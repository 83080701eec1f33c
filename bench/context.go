package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	"runtime"
	"sync/atomic"
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

func contextStdSteps(c *config) int { return 2*2*c.rounds + 2*c.rounds }

// contextStdRows: deadlines under a parent that package context made, the
// per-request timeout of an http handler. First WithTimeout then cancel
// under one context.WithCancel parent that outlives them (ns/op and B/op,
// without and with a look at Done before the cancel); then an http.Server
// on loopback whose handler does WithTimeout(r.Context(), d), waits on
// the context's Done in a select that the reply wins, and cancels: wall
// and process CPU time per request, package context's against
// stashcontext's, on a plain listener both.
func contextStdRows(r *runner) {
	var ns, bytes [2][2][]float64 // [done][impl]
	for round := range r.cfg.rounds {
		for _, im := range pair(round) {
			r.prog.running(im.name, "under context.WithCancel")
			wt := withTimeout(im)
			parent, cancelParent := context.WithCancel(context.Background())
			k := implIndex(im)
			for done := range 2 {
				res := testing.Benchmark(func(b *testing.B) {
					for range b.N {
						ctx, cancel := wt(parent, time.Second)
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
				r.prog.step()
			}
			cancelParent()
			runtime.GC()
		}
	}
	wl := "withtimeout-cancel std parent"
	for done, suffix := range []string{"", ", Done"} {
		rw := row{workload: wl, metric: "ns/op" + suffix, unit: unitNs,
			time: measure.Median(ns[done][0]), stash: measure.Median(ns[done][1])}
		if done == 0 {
			rw.note = "the parent is context.WithCancel(context.Background()); " +
				"the time column is package context, stash is stashcontext"
		}
		r.res.add(rw)
		r.res.add(row{workload: wl, metric: "B/op" + suffix, unit: unitBytes,
			time: measure.Median(bytes[done][0]), stash: measure.Median(bytes[done][1])})
	}

	var wall, cpu [2][]float64
	for round := range r.cfg.rounds {
		for _, im := range pair(round) {
			r.prog.running(im.name, "http handler WithTimeout(r.Context())")
			w, c, err := httpContextLoad(withTimeout(im), r.cfg.httpTime)
			if err != nil {
				w, c = nan, nan
			}
			k := implIndex(im)
			wall[k], cpu[k] = append(wall[k], w), append(cpu[k], c)
			r.prog.step()
		}
	}
	wl = "http WithTimeout(r.Context())"
	r.res.add(row{workload: wl, metric: "ns wall/req", unit: unitNs,
		time: measure.Median(wall[0]), stash: measure.Median(wall[1]),
		note: "a handler's per-request timeout on a plain listener; the time column is package context"})
	r.res.add(row{workload: wl, metric: "ns CPU/req", unit: unitNs,
		time: measure.Median(cpu[0]), stash: measure.Median(cpu[1])})
}

// httpContextLoad serves an http.Server on a plain loopback listener whose
// handler takes a 10s timeout with wt under the request's context, loads
// it for d with httpConns keep-alive clients as httpLoad does, and returns
// the wall and process CPU nanoseconds per request.
func httpContextLoad(wt func(context.Context, time.Duration) (context.Context, context.CancelFunc), d time.Duration) (wall, cpu float64, err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, 0, err
	}
	var reqs atomic.Int64
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ctx, cancel := wt(r.Context(), 10*time.Second)
			defer cancel()
			select {
			case <-ctx.Done(): // never: the timeout is far, the client waits
				http.Error(w, ctx.Err().Error(), http.StatusServiceUnavailable)
				return
			default:
			}
			reqs.Add(1)
			io.WriteString(w, "ok")
		}),
		ReadHeaderTimeout: 2 * time.Second,
		IdleTimeout:       4 * time.Second,
		ErrorLog:          log.New(io.Discard, "", 0),
	}
	go srv.Serve(ln)
	defer srv.Close()
	return loadClients(ln.Addr().String(), &reqs, d)
}
