package poller

import (
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/stashgo/stash/internal/clock"
)

// A sleeper is one way of sleeping for d, measured by BenchmarkLateness.
type sleeper struct {
	name string
	// locked: run on a goroutine locked to its thread, as the wheel's
	// driver does.
	locked bool
	// start prepares a run on the benchmark's goroutine and returns the
	// sleep (which reports its lateness in ns) and a cleanup.
	start func(b *testing.B) (sleep func(d time.Duration) int64, stop func())
}

// pollerSleeper measures Poller.Wait on an absolute deadline.
func pollerSleeper(name string, newP func() (Poller, error), prepare func(b *testing.B) func()) sleeper {
	return sleeper{name: name, locked: true, start: func(b *testing.B) (func(time.Duration) int64, func()) {
		undo := func() {}
		if prepare != nil {
			undo = prepare(b)
		}
		p, err := newP()
		if err != nil {
			b.Fatal(err)
		}
		return func(d time.Duration) int64 {
				deadline := clock.Mono() + int64(d)
				if err := p.Wait(deadline); err != nil {
					b.Fatal(err)
				}
				return clock.Mono() - deadline
			}, func() {
				p.Close()
				undo()
			}
	}}
}

func sleepers() []sleeper {
	list := []sleeper{
		pollerSleeper("portable", func() (Poller, error) { return NewPortable(clock.System), nil }, nil),
		{name: "time.Sleep", start: func(*testing.B) (func(time.Duration) int64, func()) {
			return func(d time.Duration) int64 {
				start := clock.Mono()
				time.Sleep(d)
				return clock.Mono() - start - int64(d)
			}, func() {}
		}},
		{name: "time.NewTimer", start: func(*testing.B) (func(time.Duration) int64, func()) {
			return func(d time.Duration) int64 {
				start := clock.Mono()
				<-time.NewTimer(d).C
				return clock.Mono() - start - int64(d)
			}, func() {}
		}},
	}
	return append(osSleepers(), list...)
}

// BenchmarkLateness measures how late each way of sleeping wakes up past
// its deadline, and reports the median and 99th percentile (p50-ns,
// p99-ns). Run it with a fixed count, for example -benchtime 200x, on an
// idle machine.
func BenchmarkLateness(b *testing.B) {
	for _, d := range []time.Duration{50 * time.Microsecond, 200 * time.Microsecond, time.Millisecond, 10 * time.Millisecond} {
		b.Run("d="+d.String(), func(b *testing.B) {
			for _, s := range sleepers() {
				b.Run("impl="+s.name, func(b *testing.B) {
					if s.locked {
						runtime.LockOSThread()
						defer runtime.UnlockOSThread()
					}
					sleep, stop := s.start(b)
					defer stop()
					sleep(d) // warm up
					lat := make([]int64, b.N)
					b.ResetTimer()
					for i := range lat {
						lat[i] = sleep(d)
					}
					b.StopTimer()
					slices.Sort(lat)
					b.ReportMetric(float64(lat[len(lat)/2]), "p50-ns")
					b.ReportMetric(float64(lat[len(lat)*99/100]), "p99-ns")
				})
			}
		})
	}
}

// BenchmarkLatenessInterleaved takes its samples of the poller ("epoll" on
// Linux, "portable" elsewhere) and of package time in one loop, one of each
// in turn, so that all of them meet the same moments of machine noise. Their
// p99s are then comparable, which those of BenchmarkLateness's separate
// sub-benchmarks, taken seconds apart, are not: on a shared virtual machine
// a tail is mostly the host's scheduling. It reports IMPL-p50-ns and
// IMPL-p99-ns for each.
//
//	go test -run '^$' -bench LatenessInterleaved -benchtime 400x ./poller/
func BenchmarkLatenessInterleaved(b *testing.B) {
	poller := "portable"
	if runtime.GOOS == "linux" {
		poller = "epoll"
	}
	for _, d := range []time.Duration{50 * time.Microsecond, 200 * time.Microsecond, time.Millisecond, 10 * time.Millisecond} {
		b.Run("d="+d.String(), func(b *testing.B) {
			runtime.LockOSThread() // as the wheel's driver is; time does not mind
			defer runtime.UnlockOSThread()
			var names []string
			var sleeps []func(time.Duration) int64
			for _, s := range sleepers() {
				if s.name != poller && s.name != "time.Sleep" && s.name != "time.NewTimer" {
					continue
				}
				sleep, stop := s.start(b)
				defer stop()
				sleep(d) // warm up
				names = append(names, s.name)
				sleeps = append(sleeps, sleep)
			}
			lat := make([][]int64, len(sleeps))
			for i := range lat {
				lat[i] = make([]int64, b.N)
			}
			b.ResetTimer()
			for n := range b.N {
				for i, sleep := range sleeps {
					lat[i][n] = sleep(d)
				}
			}
			b.StopTimer()
			for i, name := range names {
				slices.Sort(lat[i])
				b.ReportMetric(float64(lat[i][b.N/2]), name+"-p50-ns")
				b.ReportMetric(float64(lat[i][b.N*99/100]), name+"-p99-ns")
			}
		})
	}
}
