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
