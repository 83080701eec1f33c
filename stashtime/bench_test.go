package stashtime_test

// Benchmarks of stashtime against package time, side by side in one run.
// Every case has sub-benchmarks impl=time and impl=stash; compare with
//
//	go test -run '^$' -bench . -benchmem -count 6 ./stashtime/ > bench.txt
//	benchstat -col /impl bench.txt
//
// impl=stash uses the package-level functions (the process-wide Default
// wheel), except BenchmarkBytesPerTimer, which uses a fresh wheel of the
// same configuration (see there). Cases whose setup builds 1M timers are
// skipped with -short and -race; the rest are sized to run in well under a
// few seconds each at -benchtime=1x.

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stashgo/stash/internal/measure"
	"github.com/stashgo/stash/stashtime"
)

var benchLiveCounts = []int{0, 10_000, 1_000_000}

// benchStartStop is one op of the start+Stop cases: start a timer with a
// duration from benchDurs ([1s, 2s)) and stop it at once.
func benchStartStop(b *testing.B, kind string) {
	for _, n := range benchLiveCounts {
		b.Run("live="+measure.Count(n), func(b *testing.B) {
			benchSkipHuge(b, n)
			benchEachImpl(b, func(b *testing.B, im *benchImpl) {
				benchEnsureLive(b, im, n)
				b.ResetTimer()
				if kind == "chan" {
					for i := 0; i < b.N; i++ {
						t, _ := im.newTimer(benchDurs[i&(benchDurN-1)])
						t.Stop()
					}
				} else {
					for i := 0; i < b.N; i++ {
						im.afterFunc(benchDurs[i&(benchDurN-1)], benchNoop).Stop()
					}
				}
				b.StopTimer()
			})
		})
	}
}

// BenchmarkAfterFuncStop: AfterFunc(d in [1s, 2s)) then Stop, with 0, 10k
// or 1M other timers live (deadlines in [1h, 2h), started by the same impl).
func BenchmarkAfterFuncStop(b *testing.B) {
	defer benchReleaseLive()
	benchStartStop(b, "func")
}

// BenchmarkNewTimerStop: NewTimer(d in [1s, 2s)) then Stop, with 0, 10k or
// 1M other timers live.
func BenchmarkNewTimerStop(b *testing.B) {
	defer benchReleaseLive()
	benchStartStop(b, "chan")
}

// BenchmarkAfterFuncStopParallel: AfterFunc+Stop from GOMAXPROCS goroutines
// at once, with 0 or 1M other timers live.
func BenchmarkAfterFuncStopParallel(b *testing.B) {
	defer benchReleaseLive()
	for _, n := range []int{0, 1_000_000} {
		b.Run("live="+measure.Count(n), func(b *testing.B) {
			benchSkipHuge(b, n)
			benchEachImpl(b, func(b *testing.B, im *benchImpl) {
				benchEnsureLive(b, im, n)
				var seq atomic.Int64
				b.ResetTimer()
				b.RunParallel(func(pb *testing.PB) {
					i := int(seq.Add(1)) * 7919 // each goroutine walks the table from its own place
					for pb.Next() {
						im.afterFunc(benchDurs[i&(benchDurN-1)], benchNoop).Stop()
						i++
					}
				})
				b.StopTimer()
			})
		})
	}
}

// benchResetD is the duration the Reset cases reset to. Each op resets to
// now+benchResetD, so the deadline moves later by the time an op takes: the
// idle-deadline pattern (extend a connection's or a session's deadline on
// every request).
const benchResetD = time.Minute

// BenchmarkResetLater: one pending timer, Reset(1 min) per op, so its
// deadline moves later every time.
func BenchmarkResetLater(b *testing.B) {
	benchReleaseLive()
	for _, kind := range benchKinds {
		b.Run("timer="+kind, func(b *testing.B) {
			benchEachImpl(b, func(b *testing.B, im *benchImpl) {
				t := benchMake(im, kind, benchResetD)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					t.Reset(benchResetD)
				}
				b.StopTimer()
				t.Stop()
			})
		})
	}
}

// BenchmarkResetLaterParallel: one pending timer per goroutine, each
// goroutine Resets its own to 1 min per op.
func BenchmarkResetLaterParallel(b *testing.B) {
	benchReleaseLive()
	for _, kind := range benchKinds {
		b.Run("timer="+kind, func(b *testing.B) {
			benchEachImpl(b, func(b *testing.B, im *benchImpl) {
				b.ResetTimer()
				b.RunParallel(func(pb *testing.PB) {
					t := benchMake(im, kind, benchResetD)
					for pb.Next() {
						t.Reset(benchResetD)
					}
					t.Stop()
				})
				b.StopTimer()
			})
		})
	}
}

// BenchmarkResetEarlier: one pending timer started at 1h, and op i resets
// it to 1h - i µs. An op takes well under 1 µs, so each reset's deadline is
// earlier than the one before (by about 1 µs less the op's duration); i
// wraps every 2^25 ops (about 33 s of deadline), far more than a run does.
func BenchmarkResetEarlier(b *testing.B) {
	benchReleaseLive()
	for _, kind := range benchKinds {
		b.Run("timer="+kind, func(b *testing.B) {
			benchEachImpl(b, func(b *testing.B, im *benchImpl) {
				t := benchMake(im, kind, time.Hour)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					t.Reset(time.Hour - time.Duration(i&(1<<25-1))*time.Microsecond)
				}
				b.StopTimer()
				t.Stop()
			})
		})
	}
}

// BenchmarkStopReset: t.Stop(); t.Reset(1 min) per op on one timer.
func BenchmarkStopReset(b *testing.B) {
	benchReleaseLive()
	for _, kind := range benchKinds {
		b.Run("timer="+kind, func(b *testing.B) {
			benchEachImpl(b, func(b *testing.B, im *benchImpl) {
				t := benchMake(im, kind, benchResetD)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					t.Stop()
					t.Reset(benchResetD)
				}
				b.StopTimer()
				t.Stop()
			})
		})
	}
}

// BenchmarkTickerReset: tk.Reset(1 min) per op on one ticker.
func BenchmarkTickerReset(b *testing.B) {
	benchReleaseLive()
	benchEachImpl(b, func(b *testing.B, im *benchImpl) {
		tk := im.newTicker(benchResetD)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			tk.Reset(benchResetD)
		}
		b.StopTimer()
		tk.Stop()
	})
}

// BenchmarkAfterFuncDueNow: AfterFunc(0, f) then wait for f to run, and
// the same with Reset(0) of one AfterFunc timer; an op is the round trip
// from the call to f. The pattern of a deadline computed to be already
// past, and of time's TestZeroTimer.
func BenchmarkAfterFuncDueNow(b *testing.B) {
	benchReleaseLive()
	for _, how := range []string{"AfterFunc", "Reset"} {
		b.Run("call="+how, func(b *testing.B) {
			benchEachImpl(b, func(b *testing.B, im *benchImpl) {
				ran := make(chan struct{}, 1)
				f := func() { ran <- struct{}{} }
				t := im.afterFunc(time.Hour, f)
				t.Stop()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if how == "Reset" {
						t.Reset(0)
					} else {
						im.afterFunc(0, f)
					}
					<-ran
				}
			})
		})
	}
}

// BenchmarkBytesPerTimer measures the heap each live timer costs: the
// HeapAlloc growth, across runtime.GC(), of starting 100k timers with
// deadlines random in [1s, 60s) or [1h, 2h), divided by 100k (metric
// B/timer). Each op is one such measurement; ns/op is suppressed, as it
// would only time the setup and the collections.
//
// impl=stash measures a fresh Wheel of the Default configuration
// (NewWheel(Options{})), closed after each measurement, not the Default
// wheel itself: the Default wheel keeps stopped timers until its walk
// reaches their deadlines (up to 2 h here), so repeated measurements there
// would pile up stale timers and would land in store nodes and leaves that
// earlier cases already allocated, undercounting what a timer costs a
// process in steady state. The store's fixed cost is allocated with the
// wheel, before the baseline, and is not counted.
//
// impl=time counts the timer objects; the 16-byte slot each timer takes in
// its P's timer heap is counted only when the heap's slice grows, which it
// rarely does here, as earlier cases (the 1M populations) left the slices
// with capacity. That leaves time's figure a little low, not stash's.
func BenchmarkBytesPerTimer(b *testing.B) {
	benchReleaseLive()
	const n = 100_000
	dists := []struct {
		name     string
		lo, span time.Duration
	}{
		{"1s-60s", time.Second, 59 * time.Second},
		{"1h-2h", time.Hour, time.Hour},
	}
	for _, kind := range benchKinds {
		for _, dist := range dists {
			b.Run("timer="+kind+"/dist="+dist.name, func(b *testing.B) {
				ds := make([]time.Duration, n)
				for i := range ds {
					// A spread-out sequence: golden-ratio steps mod span.
					ds[i] = dist.lo + time.Duration(uint64(i)*11400714819323198485%uint64(dist.span))
				}
				benchEachImpl(b, func(b *testing.B, im *benchImpl) {
					var total float64
					for i := 0; i < b.N; i++ {
						total += benchBytesOnce(b, im, kind, ds)
					}
					b.ReportMetric(total/float64(b.N), "B/timer")
					b.ReportMetric(0, "ns/op")
				})
			})
		}
	}
}

// benchBytesOnce starts len(ds) timers and returns the heap growth per timer.
func benchBytesOnce(b *testing.B, im *benchImpl, kind string, ds []time.Duration) float64 {
	start := func(d time.Duration) benchTimer { return benchMake(im, kind, d) }
	var w *stashtime.Wheel
	if im.name == "stash" {
		var err error
		if w, err = stashtime.NewWheel(stashtime.Options{}); err != nil {
			b.Fatal(err)
		}
		start = func(d time.Duration) benchTimer {
			if kind == "chan" {
				return w.NewTimer(d)
			}
			return w.AfterFunc(d, benchNoop)
		}
	}
	ts := make([]benchTimer, len(ds)) // allocated before the baseline
	var m0, m1, m2 runtime.MemStats
	benchSettle()
	runtime.ReadMemStats(&m0)
	for i, d := range ds {
		ts[i] = start(d)
	}
	runtime.GC()
	runtime.ReadMemStats(&m1)
	per := float64(int64(m1.HeapAlloc)-int64(m0.HeapAlloc)) / float64(len(ds))
	for _, t := range ts {
		t.Stop()
	}
	runtime.KeepAlive(ts)
	if w != nil {
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
	// Check that the heap went back to the baseline, that is that nothing
	// freed or retained on the side skewed the delta.
	clear(ts)
	w = nil
	benchSettle()
	runtime.ReadMemStats(&m2)
	runtime.KeepAlive(ts) // part of the baseline
	if left := float64(int64(m2.HeapAlloc)-int64(m0.HeapAlloc)) / float64(len(ds)); left > per/10 || left < -per/10 {
		b.Logf("heap after stopping is %+.1f B/timer off the baseline (measured %.1f B/timer)", left, per)
	}
	return per
}

// benchSettle collects the heap after letting the runtime drop stopped
// timers: package time keeps a stopped timer in its P's heap as a zombie
// until the P next checks its timers, and a zombie freed in the middle of a
// measurement would be subtracted from it.
func benchSettle() {
	runtime.GC()
	time.Sleep(20 * time.Millisecond)
	runtime.GC()
}

// BenchmarkDrain schedules N AfterFuncs whose callbacks count down, all due
// at one instant (spread=0) or evenly over 100 ms (spread=100ms), and
// measures from the latest deadline until the last callback has run
// (drain-ns, and drain-ns/N as ns/timer). N is 1M, 100k with -short, 2000
// with -race (whose detector allows at most 8128 live goroutines, and each
// firing starts one). Each op is one such round; ns/op is suppressed, as it
// would time mostly the scheduling and the wait for the deadline.
// sched-ns/timer is the wall time to schedule one timer.
//
// The deadlines lie a lead time after the scheduling starts, so that all are
// scheduled before the first is due; the lead adapts to the scheduling time
// measured, and a round whose scheduling ran past its first deadline is
// discarded and redone with a longer lead.
func BenchmarkDrain(b *testing.B) {
	benchReleaseLive()
	n := 1_000_000
	switch {
	case stashtime.RaceEnabled:
		n = 2000
	case testing.Short():
		n = 100_000
	}
	for _, spread := range []time.Duration{0, 100 * time.Millisecond} {
		b.Run(fmt.Sprintf("n=%s/spread=%s", measure.Count(n), benchDur(spread)), func(b *testing.B) {
			benchEachImpl(b, func(b *testing.B, im *benchImpl) {
				var drain, sched time.Duration
				for i := 0; i < b.N; i++ {
					d, s := benchDrainOnce(b, im, n, spread)
					drain += d
					sched += s
				}
				b.ReportMetric(float64(drain)/float64(b.N), "drain-ns")
				b.ReportMetric(float64(drain)/float64(b.N)/float64(n), "ns/timer")
				b.ReportMetric(float64(sched)/float64(b.N)/float64(n), "sched-ns/timer")
				b.ReportMetric(0, "ns/op")
			})
		})
	}
}

// benchDrainLead remembers, per benchmark, the lead that worked last.
var benchDrainLead sync.Map // b.Name() -> time.Duration

func benchDrainOnce(b *testing.B, im *benchImpl, n int, spread time.Duration) (drain, sched time.Duration) {
	lead := 200*time.Millisecond + 3*time.Duration(n)*time.Microsecond
	if v, ok := benchDrainLead.Load(b.Name()); ok {
		lead = v.(time.Duration)
	}
	for attempt := 0; ; attempt++ {
		runtime.GC() // start from a collected heap
		var left atomic.Int64
		left.Store(int64(n))
		done := make(chan struct{})
		cb := func() {
			if left.Add(-1) == 0 {
				close(done)
			}
		}
		t0 := time.Now()
		first := t0.Add(lead)
		last := first
		for i := 0; i < n; i++ {
			at := first
			if spread > 0 {
				at = first.Add(time.Duration(int64(spread) * int64(i) / int64(n)))
			}
			last = at
			im.afterFunc(time.Until(at), cb)
		}
		scheduled := time.Now()
		sched = scheduled.Sub(t0)
		<-done
		drain = time.Since(last)
		// Next time: twice the scheduling time plus a margin.
		benchDrainLead.Store(b.Name(), 2*sched+50*time.Millisecond)
		if !scheduled.After(first) {
			return drain, sched
		}
		if attempt >= 3 {
			b.Fatalf("scheduling %d timers took %v, past the lead %v", n, sched, lead)
		}
		b.Logf("scheduling %d timers took %v, past the lead %v: again", n, sched, lead)
		lead = 2*sched + 50*time.Millisecond
	}
}

// BenchmarkLateness measures how late a timer's value arrives: NewTimer(d),
// receive, time.Since(start) - d, sequentially, for d of 100 µs, 1 ms and
// 10 ms. It reports the median and 99th percentile (p50-late-ns,
// p99-late-ns) and the mean (mean-late-ns) over max(b.N, 200) samples.
//
// ns/op is kept and meaningful: the wall time of one sample, that is d plus
// the mean lateness plus the cost of creating and receiving. Only the first
// b.N samples are timed; the extra ones taken when b.N < 200 run with the
// benchmark timer stopped, so that ns/op and the b.N ramp stay per sample.
func BenchmarkLateness(b *testing.B) {
	benchReleaseLive()
	for _, d := range []time.Duration{100 * time.Microsecond, time.Millisecond, 10 * time.Millisecond} {
		b.Run("d="+benchDur(d), func(b *testing.B) {
			benchEachImpl(b, func(b *testing.B, im *benchImpl) {
				n := max(b.N, 200)
				late := make([]int64, n)
				var sum int64
				b.ResetTimer()
				for i := range late {
					if i == b.N {
						b.StopTimer()
					}
					start := time.Now()
					_, c := im.newTimer(d)
					<-c
					late[i] = int64(time.Since(start) - d)
					sum += late[i]
				}
				b.StopTimer()
				slices.Sort(late)
				b.ReportMetric(float64(late[n/2]), "p50-late-ns")
				b.ReportMetric(float64(late[n*99/100]), "p99-late-ns")
				b.ReportMetric(float64(sum)/float64(n), "mean-late-ns")
			})
		})
	}
}
