package stashcontext_test

// Benchmarks of stashcontext against package context, side by side in one
// run. Every case has sub-benchmarks impl=context and impl=stash; compare
// with
//
//	go test -run '^$' -bench . -count 6 ./stashcontext/ > bench.txt
//	benchstat -col /impl bench.txt
//
// Cases whose setup builds 1M contexts are skipped with -short.

import (
	stdcontext "context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stashgo/stash/internal/measure"
	context "github.com/stashgo/stash/stashcontext"
)

// impl is one implementation of WithTimeout.
type impl struct {
	name        string
	withTimeout func(stdcontext.Context, time.Duration) (stdcontext.Context, stdcontext.CancelFunc)
}

var impls = []impl{
	{"context", stdcontext.WithTimeout},
	{"stash", context.WithTimeout},
}

var benchLiveCounts = []int{0, 10_000, 1_000_000}

// startLive makes n pending contexts with timeouts spread over [1h, 2h),
// from GOMAXPROCS goroutines (so that package context's timers are spread
// over the per-P heaps, as in a server), and returns their cancel functions.
// Each has its Done channel asked for, as a request waiting on it does, so
// that the deadline is on the wheel (see ensureArmed).
func startLive(im impl, n int) []stdcontext.CancelFunc {
	cancels := make([]stdcontext.CancelFunc, n)
	procs := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for p := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := p * n / procs; i < (p+1)*n/procs; i++ {
				d := time.Hour + time.Duration(i)*(time.Hour/time.Duration(n))
				var ctx stdcontext.Context
				ctx, cancels[i] = im.withTimeout(stdcontext.Background(), d)
				_ = ctx.Done()
			}
		}()
	}
	wg.Wait()
	return cancels
}

func cancelAll(cancels []stdcontext.CancelFunc) {
	for _, c := range cancels {
		c()
	}
	runtime.GC()
}

// benchLive runs op with each implementation, at each count of pending
// contexts.
func benchLive(b *testing.B, op func(b *testing.B, im impl)) {
	for _, live := range benchLiveCounts {
		for _, im := range impls {
			name := fmt.Sprintf("live=%s/impl=%s", measure.Count(live), im.name)
			if live >= 1_000_000 && testing.Short() {
				b.Run(name, func(b *testing.B) { b.Skip("1M contexts: skipped with -short") })
				continue
			}
			cancels := startLive(im, live)
			b.Run(name, func(b *testing.B) {
				b.ReportAllocs()
				op(b, im)
			})
			cancelAll(cancels)
		}
	}
}

// BenchmarkWithTimeoutCancel is a request that finishes before its
// timeout without looking at its context: WithTimeout, then cancel. This
// package puts no timer on the wheel for it (see ensureArmed).
func BenchmarkWithTimeoutCancel(b *testing.B) {
	benchLive(b, func(b *testing.B, im impl) {
		bg := stdcontext.Background()
		for range b.N {
			_, cancel := im.withTimeout(bg, time.Second)
			cancel()
		}
	})
}

// BenchmarkWithTimeoutDoneCancel is the same with the Done channel asked
// for, as a select on it does: a timer on the wheel watches the deadline,
// here the pooled one the last context left armed (see slot.go).
func BenchmarkWithTimeoutDoneCancel(b *testing.B) {
	benchLive(b, func(b *testing.B, im impl) {
		bg := stdcontext.Background()
		for range b.N {
			ctx, cancel := im.withTimeout(bg, time.Second)
			select {
			case <-ctx.Done():
				b.Fatal("done before its timeout")
			default:
			}
			cancel()
		}
	})
}

// floorCtx is what any context with a deadline and a Done channel holds at
// the least: the deadline and the channel (with its parent, 64 bytes with
// this package's other fields, as timerCtx is).
type floorCtx struct {
	parent   stdcontext.Context
	deadline time.Time
	done     chan struct{}
	_        [2]uintptr
}

var (
	floorSink  *floorCtx
	cancelSink func()
)

// BenchmarkDoneFloor is the work every WithTimeout+Done+cancel does,
// whichever package makes it: one time.Now, a 64-byte context, its cancel
// func, and the Done channel made and closed. Beside
// BenchmarkWithTimeoutDoneCancel's impl=context it bounds the ratio any
// implementation can reach at live=0.
func BenchmarkDoneFloor(b *testing.B) {
	bg := stdcontext.Background()
	for range b.N {
		c := &floorCtx{parent: bg, deadline: time.Now().Add(time.Second), done: make(chan struct{})}
		cancel := func() { close(c.done) }
		floorSink, cancelSink = c, cancel // both escape, as WithTimeout's do
		cancel()
	}
}

// BenchmarkStdParent is WithTimeout then cancel under a parent that
// package context made and cancels, as an http handler's r.Context(),
// without and with the Done channel asked for: this package links its
// context to the parent (see link.go).
func BenchmarkStdParent(b *testing.B) {
	for _, done := range []bool{false, true} {
		for _, im := range impls {
			b.Run(fmt.Sprintf("done=%v/impl=%s", done, im.name), func(b *testing.B) {
				parent, cancelParent := stdcontext.WithCancel(stdcontext.Background())
				defer cancelParent()
				b.ReportAllocs()
				for range b.N {
					ctx, cancel := im.withTimeout(parent, time.Second)
					if done {
						_ = ctx.Done()
					}
					cancel()
				}
			})
		}
	}
}

// BenchmarkStdParentAttach is the two ways of putting something in the
// children of a parent of package context, and taking it out: a child of
// context.WithCancelCause, which this package's linked contexts hold
// (see link.go), and context.AfterFunc, whose function runs in a
// goroutine of its own after the parent's cancel returns.
func BenchmarkStdParentAttach(b *testing.B) {
	parent, cancelParent := stdcontext.WithCancel(stdcontext.Background())
	defer cancelParent()
	b.Run("how=WithCancelCause", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			_, cancel := stdcontext.WithCancelCause(parent)
			cancel(nil)
		}
	})
	b.Run("how=AfterFunc", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			stop := stdcontext.AfterFunc(parent, func() {})
			stop()
		}
	})
}

// BenchmarkStdGrandchildWindow measures, for a context c with a deadline
// of 20 µs and package context's child g of it, how often g is found not
// yet done: woken by c's Done as c expires (nil-at-done), right after c's
// cancel function returns once c has expired (nil-after-cancel), and, with
// c under a parent of package context and a deadline of an hour, right
// after that parent's cancel returns (nil-after-parent-cancel). Each is
// reported per million. Package context closes c's Done before it cancels
// g; so does this package, whose expiry or cancel runs g's cancel right
// after (see link.go). A cancel that finds c expiring waits for the expiry
// to be done with g, in both (see waitCanceled).
//
//	go test -run '^$' -bench StdGrandchildWindow -benchtime 20000x ./stashcontext/
func BenchmarkStdGrandchildWindow(b *testing.B) {
	for _, linked := range []bool{false, true} {
		for _, im := range impls {
			b.Run(fmt.Sprintf("parent=%s/impl=%s", map[bool]string{false: "Background", true: "WithCancel"}[linked], im.name), func(b *testing.B) {
				var atDone, afterCancel, afterParent int
				for range b.N {
					parent, cancelParent := stdcontext.Background(), stdcontext.CancelFunc(func() {})
					if linked {
						parent, cancelParent = stdcontext.WithCancel(parent)
					}
					c, cancel := im.withTimeout(parent, 20*time.Microsecond)
					g, cancelG := stdcontext.WithCancel(c)
					<-c.Done()
					if g.Err() == nil {
						atDone++
					}
					cancel()
					if g.Err() == nil {
						afterCancel++
					}
					cancelG()
					if linked {
						c, cancel = im.withTimeout(parent, time.Hour)
						g, cancelG = stdcontext.WithCancel(c)
						cancelParent()
						if g.Err() == nil {
							afterParent++
						}
						cancelG()
						cancel()
					}
					cancelParent()
				}
				ppm := func(n int) float64 { return float64(n) * 1e6 / float64(b.N) }
				b.ReportMetric(ppm(atDone), "nil-at-done/1M")
				b.ReportMetric(ppm(afterCancel), "nil-after-cancel/1M")
				if linked {
					b.ReportMetric(ppm(afterParent), "nil-after-parent-cancel/1M")
				}
			})
		}
	}
}
