package main

import (
	"time"

	"github.com/stashgo/stash/stashtime"
)

// timer is what the workloads need of a *time.Timer or a *stashtime.Timer.
type timer interface {
	Stop() bool
	Reset(d time.Duration) bool
}

// impl is one timer implementation under test. Both go through the same
// indirection, so its (small, constant) cost is the same on both sides.
type impl struct {
	name      string
	afterFunc func(d time.Duration, f func()) timer
	newTimer  func(d time.Duration) (timer, <-chan time.Time)
	newTicker func(d time.Duration) (ticker, <-chan time.Time)
	sleep     func(d time.Duration)
	// settle returns once the implementation has done the work that
	// starting timers left it (stash: the drain that files listed timers
	// in its store), so that a measurement after a setup counts none of
	// the setup.
	settle func()
}

var (
	implTime = &impl{
		name:      "time",
		afterFunc: func(d time.Duration, f func()) timer { return time.AfterFunc(d, f) },
		newTimer: func(d time.Duration) (timer, <-chan time.Time) {
			t := time.NewTimer(d)
			return t, t.C
		},
		newTicker: func(d time.Duration) (ticker, <-chan time.Time) {
			t := time.NewTicker(d)
			return t, t.C
		},
		sleep:  time.Sleep,
		settle: func() {},
	}
	implStash = &impl{
		name:      "stash",
		afterFunc: func(d time.Duration, f func()) timer { return stashtime.AfterFunc(d, f) },
		newTimer: func(d time.Duration) (timer, <-chan time.Time) {
			t := stashtime.NewTimer(d)
			return t, t.C
		},
		newTicker: func(d time.Duration) (ticker, <-chan time.Time) {
			t := stashtime.NewTicker(d)
			return t, t.C
		},
		sleep:  stashtime.Sleep,
		settle: func() { stashtime.Default().Sync() },
	}
)

// pair returns both implementations, time first on even rounds and stash
// first on odd ones, so that neither always runs in the other's wake.
func pair(round int) [2]*impl {
	if round%2 == 0 {
		return [2]*impl{implTime, implStash}
	}
	return [2]*impl{implStash, implTime}
}
