package wheel

// Bursts: many timers due at one instant. Package time starts every due
// AfterFunc goroutine before any runs, so with 100,000 due at once the
// first callback runs ~160 ms late. The driver fires in batches of at most
// Options.MaxBatch and, while they are on time, yields between batches.

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stashgo/stash/internal/clock"
)

// burstRound is one burst: n callbacks, each writing the monotonic clock
// into its own slot.
type burstRound struct {
	slots []int64
	left  atomic.Int64
	done  chan struct{}
	fns   []func()
}

func newBurstRound(n int) *burstRound {
	r := &burstRound{slots: make([]int64, n), fns: make([]func(), n)}
	for i := range r.fns {
		r.fns[i] = func() {
			r.slots[i] = clock.Mono()
			if r.left.Add(-1) == 0 {
				close(r.done)
			}
		}
	}
	return r
}

// run schedules the n callbacks at one deadline lead ahead with
// afterFunc, waits for all of them, and returns the lateness of the first
// and last to run and how long scheduling took.
func (r *burstRound) run(lead time.Duration, afterFunc func(Duration, func())) (first, last, sched time.Duration) {
	r.left.Store(int64(len(r.fns)))
	r.done = make(chan struct{})
	start := clock.Mono()
	deadline := start + int64(lead)
	for _, f := range r.fns {
		// Both packages take a duration: compute it per call from the one
		// deadline, on the same clock (the runtime's nanotime).
		afterFunc(Duration(deadline-clock.Mono()), f)
	}
	sched = time.Duration(clock.Mono() - start)
	<-r.done
	lo, hi := slices.Min(r.slots), slices.Max(r.slots)
	return time.Duration(lo - deadline), time.Duration(hi - deadline), sched
}

// BenchmarkBurst schedules n AfterFuncs due at one instant and reports how
// late the first and the last callback ran (medians over b.N rounds). The
// deadline is lead ahead of the first AfterFunc call: 75 ms per 100,000
// timers, or three times what scheduling took in the previous round
// (a warm-up round, not counted, measures it first) if that is more, so
// that scheduling is over before the deadline even on a loaded machine.
// sched-ns is the time scheduling took, lead-ns the lead used; overruns
// counts rounds whose scheduling still outlasted the lead (their lateness
// is not meaningful). The lateness figures are medians over the rounds,
// since one round that meets a garbage collection or a descheduled vCPU
// would dominate a mean; first-late-max-ns is the worst round's first.
//
//	go test -run '^$' -bench BenchmarkBurst -benchtime 5x ./stashtime/
func BenchmarkBurst(b *testing.B) {
	impls := []struct {
		name      string
		afterFunc func(Duration, func())
	}{
		{"time", func(d Duration, f func()) { time.AfterFunc(d, f) }},
		{"stash", func(d Duration, f func()) { AfterFunc(d, f) }},
	}
	for _, n := range []int{100_000, 1_000_000} {
		base := time.Duration(n/100_000) * 75 * time.Millisecond
		for _, impl := range impls {
			b.Run(fmt.Sprintf("n=%dk/impl=%s", n/1000, impl.name), func(b *testing.B) {
				r := newBurstRound(n)
				runtime.GC()
				_, _, s := r.run(base, impl.afterFunc) // warm-up
				var firsts, lasts []time.Duration
				var sched, leads time.Duration
				overruns := 0
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					lead := max(base, 3*s)
					runtime.GC()
					var f, l time.Duration
					f, l, s = r.run(lead, impl.afterFunc)
					firsts = append(firsts, f)
					lasts = append(lasts, l)
					sched += s
					leads += lead
					if s > lead {
						overruns++
					}
				}
				per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(b.N) }
				median := func(ds []time.Duration) float64 {
					slices.Sort(ds)
					return float64(ds[len(ds)/2].Nanoseconds())
				}
				b.ReportMetric(float64(slices.Max(firsts).Nanoseconds()), "first-late-max-ns")
				b.ReportMetric(median(firsts), "first-late-ns")
				b.ReportMetric(median(lasts), "last-late-ns")
				b.ReportMetric(per(sched), "sched-ns")
				b.ReportMetric(per(leads), "lead-ns")
				b.ReportMetric(float64(overruns), "overruns")
			})
		}
	}
}

// TestFidelityBurstBatches: on a manual clock with MaxBatch 16, 10,000
// AfterFuncs due at one instant, whose callbacks all block on a gate, are
// fired in batches (at least 10,000/16 driver passes), the driver never
// waits for a callback, and a channel timer due later, added from inside
// the burst, fires while every callback is still blocked.
func TestFidelityBurstBatches(t *testing.T) {
	const n, maxBatch = 10_000, 16
	w, clk := newManualWheel(t, maxBatch)
	gate := make(chan struct{})
	var started atomic.Int64
	var lateOnce sync.Once
	lateTimer := make(chan *Timer, 1)
	for range n {
		w.AfterFunc(time.Second, func() {
			started.Add(1)
			// The first callback to run adds a timer due after the burst.
			lateOnce.Do(func() { lateTimer <- w.NewTimer(time.Millisecond) })
			<-gate
		})
	}
	tm := w.NewTimer(time.Second)
	before := w.Stats()
	clk.Advance(time.Second)
	w.Sync()
	s := w.Stats()
	if fired := s.Fired - before.Fired; fired != n+1 {
		t.Fatalf("after Sync %d fired, want %d", fired, n+1)
	}
	if passes := s.Walks - before.Walks; passes < n/maxBatch {
		t.Errorf("%d timers fired in %d passes: batches larger than MaxBatch %d", n+1, passes, maxBatch)
	} else {
		t.Logf("%d timers fired in %d driver passes (MaxBatch %d)", n+1, passes, maxBatch)
	}
	select {
	case <-tm.C:
	default:
		t.Error("the channel timer due with the burst did not fire")
	}
	late := <-lateTimer
	clk.Advance(time.Millisecond)
	w.Sync()
	select {
	case <-late.C:
	default:
		t.Errorf("a timer added during the burst did not fire while the callbacks were blocked (%d started)", started.Load())
	}
	close(gate)
	for started.Load() < n {
		time.Sleep(time.Millisecond)
	}
}

// TestFidelityBurstEarlierTimerNotStarved: in one bucket, 10,000 AfterFuncs
// due at +900µs are filed first, then a channel timer due earlier, at
// +100µs. When all are due, the driver must come to the channel timer
// before it has fired the burst (time fires in deadline order: it first).
// No timer can be "added during a burst" with an earlier deadline than the
// burst's (whatever is added is due after now, and the burst is due by
// now), so the earlier timer here is filed before the clock moves, after
// the burst in the bucket's order.
//
// The test holds the channel timer's lock: the driver blocks on it when it
// first examines that timer, and the number fired by then is how many
// burst timers went before it.
func TestFidelityBurstEarlierTimerNotStarved(t *testing.T) {
	const n, maxBatch = 10_000, 16
	w, clk := newManualWheel(t, maxBatch)
	b := w.bucket
	base := 1000 * b // a bucket start; everything below lies in [base, base+b)
	clk.Set(base)
	w.Sync()
	gate := make(chan struct{})
	defer close(gate)
	for range n {
		w.AfterFunc(Duration(b*9/10), func() { <-gate })
	}
	tm := w.NewTimer(Duration(b / 10))
	before := w.Stats().Fired
	tm.e.mu.Lock()
	clk.Set(base + 2*b)
	// Wait until the driver is blocked on tm (Fired stops moving) or has
	// fired the whole burst.
	fired, still := int64(-1), 0
	for still < 20 {
		time.Sleep(5 * time.Millisecond)
		f := w.Stats().Fired - before
		if f == fired {
			still++
		} else {
			fired, still = f, 0
		}
		if f >= n {
			break
		}
	}
	tm.e.mu.Unlock()
	w.Sync()
	select {
	case <-tm.C:
	default:
		t.Fatal("the earlier channel timer did not fire")
	}
	t.Logf("the driver reached the earlier timer after firing %d of the %d later ones", fired, n)
	if fired > maxBatch {
		t.Errorf("the driver fired %d burst timers due later before it reached the earlier one (MaxBatch %d); time fires the earlier one first", fired, maxBatch)
	}
}
