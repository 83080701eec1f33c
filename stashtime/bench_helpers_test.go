package stashtime_test

// Helpers for bench_test.go: the two implementations under one interface,
// the live-timer populations, and scaling for -short and -race.

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stashgo/stash/stashtime"
)

// benchTimer and benchTicker are what the benchmarks need of *time.Timer /
// *stashtime.Timer and *time.Ticker / *stashtime.Ticker. Both impls pay the
// same indirection (one closure call to create, one itab call per method),
// a few ns, so it narrows ratios slightly rather than favouring either side.
type benchTimer interface {
	Stop() bool
	Reset(time.Duration) bool
}

type benchTicker interface {
	Stop()
	Reset(time.Duration)
}

// A benchImpl is one implementation of the timer API: package time, or the
// package-level functions of stashtime (the process-wide Default wheel).
type benchImpl struct {
	name      string
	afterFunc func(time.Duration, func()) benchTimer
	newTimer  func(time.Duration) (benchTimer, <-chan time.Time)
	newTicker func(time.Duration) benchTicker
}

var benchImpls = []*benchImpl{
	{
		name:      "time",
		afterFunc: func(d time.Duration, f func()) benchTimer { return time.AfterFunc(d, f) },
		newTimer: func(d time.Duration) (benchTimer, <-chan time.Time) {
			t := time.NewTimer(d)
			return t, t.C
		},
		newTicker: func(d time.Duration) benchTicker { return time.NewTicker(d) },
	},
	{
		name:      "stash",
		afterFunc: func(d time.Duration, f func()) benchTimer { return stashtime.AfterFunc(d, f) },
		newTimer: func(d time.Duration) (benchTimer, <-chan time.Time) {
			t := stashtime.NewTimer(d)
			return t, t.C
		},
		newTicker: func(d time.Duration) benchTicker { return stashtime.NewTicker(d) },
	},
}

// benchEachImpl runs f as sub-benchmarks impl=time and impl=stash, so that
// benchstat -col /impl compares them.
func benchEachImpl(b *testing.B, f func(b *testing.B, im *benchImpl)) {
	for _, im := range benchImpls {
		b.Run("impl="+im.name, func(b *testing.B) { f(b, im) })
	}
}

// benchMake starts a timer of the given kind: "func" (AfterFunc with a
// no-op callback) or "chan" (NewTimer).
func benchMake(im *benchImpl, kind string, d time.Duration) benchTimer {
	if kind == "chan" {
		t, _ := im.newTimer(d)
		return t
	}
	return im.afterFunc(d, benchNoop)
}

var benchKinds = []string{"func", "chan"}

func benchNoop() {}

// benchDurs is a fixed pseudo-random table of durations in [1s, 2s) for the
// per-op timers: cheap to index, identical for both impls.
const benchDurN = 1 << 16

var benchDurs = func() *[benchDurN]time.Duration {
	var t [benchDurN]time.Duration
	r := rand.New(rand.NewPCG(1, 2))
	for i := range t {
		t[i] = time.Second + time.Duration(r.Int64N(int64(time.Second)))
	}
	return &t
}()

// benchSkipHuge skips cases whose setup is too heavy for -short or -race
// (1M live timers).
func benchSkipHuge(b *testing.B, n int) {
	if n >= 1_000_000 && (testing.Short() || stashtime.RaceEnabled) {
		b.Skip("1M-timer setup skipped with -short or -race")
	}
}

// benchDur formats a duration for a benchmark name in ASCII (us, not µs).
func benchDur(d time.Duration) string {
	switch {
	case d == 0:
		return "0"
	case d%time.Second == 0:
		return fmt.Sprintf("%ds", d/time.Second)
	case d%time.Millisecond == 0:
		return fmt.Sprintf("%dms", d/time.Millisecond)
	case d%time.Microsecond == 0:
		return fmt.Sprintf("%dus", d/time.Microsecond)
	}
	return fmt.Sprintf("%dns", d)
}

// The live population: n AfterFunc timers with deadlines random in
// [1h, 2h), started through one impl, so that the measured operations run
// against a loaded runtime timer heap or a loaded Default wheel.
//
// A leaf benchmark function is called several times (run1 with b.N = 1,
// then the b.N ramp, then again for each -count), and building 1M timers
// takes a good fraction of a second, so the population is cached: at most
// one exists at a time, it is reused while the same (impl, n) is asked for,
// and it is stopped as soon as another is asked for and at the end of each
// top-level benchmark that uses one (benchReleaseLive, deferred). Only one
// impl's population is ever live, so one impl's timers never weigh on the
// other impl's measurements (through the GC, for instance).
//
// Note that stopping does not make a stash population's memory free at
// once: the wheel drops a stopped timer's holder, and with it the entry,
// only when its walk reaches the bucket, 1-2 h later.
type benchPopulation struct {
	im *benchImpl
	n  int
	ts []benchTimer
}

var benchLive struct {
	mu  sync.Mutex
	pop *benchPopulation
}

// benchEnsureLive makes the live population exactly n timers of im. Call it
// before b.ResetTimer.
func benchEnsureLive(b *testing.B, im *benchImpl, n int) {
	benchLive.mu.Lock()
	defer benchLive.mu.Unlock()
	if p := benchLive.pop; p != nil && p.im == im && p.n == n {
		return
	}
	benchReleaseLiveLocked()
	if n == 0 {
		return
	}
	start := time.Now()
	r := rand.New(rand.NewPCG(uint64(n), 7))
	ts := make([]benchTimer, n)
	for i := range ts {
		ts[i] = im.afterFunc(time.Hour+time.Duration(r.Int64N(int64(time.Hour))), benchNoop)
	}
	benchLive.pop = &benchPopulation{im: im, n: n, ts: ts}
	runtime.GC() // start the measurement from a collected heap
	b.Logf("built %d live %s timers in %v", n, im.name, time.Since(start).Round(time.Millisecond))
}

// benchReleaseLive stops the live population, if any.
func benchReleaseLive() {
	benchLive.mu.Lock()
	defer benchLive.mu.Unlock()
	benchReleaseLiveLocked()
}

func benchReleaseLiveLocked() {
	p := benchLive.pop
	if p == nil {
		return
	}
	for _, t := range p.ts {
		t.Stop()
	}
	benchLive.pop = nil
	runtime.GC()
}
