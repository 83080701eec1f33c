package stashnet

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/stashgo/stash/stashtime"
)

// The coarse clock stamps connection activity for the idle timeouts without
// a clock read per Read or Write: a shared ticker advances an epoch number
// every coarseTick while some idle timeout is in use, and records the
// instant each epoch began. Activity stamped with epoch e happened before
// epoch e+1 began, which is what makes an idle timeout never fire early.
const coarseTick = 10 * time.Millisecond

// coarseRing is how many epoch starts the clock remembers; an older stamp
// is bounded by the oldest start it remembers.
const coarseRing = 64

var coarse struct {
	epoch atomic.Int64 // the current epoch

	mu     sync.Mutex
	users  int                                   // idle timeouts in use
	ticker *stashtime.Timer                      // advances the epoch; nil when users is 0
	starts [coarseRing]atomic.Pointer[time.Time] // starts[e%coarseRing]: when epoch e began
}

// coarseEpoch returns the current epoch: one atomic load.
func coarseEpoch() int64 { return coarse.epoch.Load() }

// coarseUse registers an idle timeout as a user of the clock, starting it if
// it is the first.
func coarseUse() {
	coarse.mu.Lock()
	defer coarse.mu.Unlock()
	if coarse.users++; coarse.users == 1 {
		coarseAdvance() // the epoch in use begins now
		coarse.ticker = stashtime.AfterFunc(coarseTick, coarseTickFunc)
	}
}

// coarseDone unregisters an idle timeout, stopping the clock with the last.
func coarseDone() {
	coarse.mu.Lock()
	defer coarse.mu.Unlock()
	if coarse.users--; coarse.users == 0 {
		coarse.ticker.Stop()
		coarse.ticker = nil
	}
}

func coarseTickFunc() {
	coarse.mu.Lock()
	defer coarse.mu.Unlock()
	if coarse.ticker == nil {
		return
	}
	coarseAdvance()
	coarse.ticker.Reset(coarseTick)
}

// coarseAdvance begins a new epoch: its start is recorded before the epoch
// is published, so a stamp of it always finds the start of the one after
// recorded once that one is published. coarse.mu is held.
func coarseAdvance() {
	e := coarse.epoch.Load() + 1
	now := stashtime.Now()
	coarse.starts[e%coarseRing].Store(&now)
	coarse.epoch.Store(e)
}

// activeBefore returns an instant no earlier than any activity stamped with
// epoch e: when epoch e+1 began, or now while e is still current.
func activeBefore(e int64, now time.Time) time.Time {
	cur := coarse.epoch.Load()
	if e >= cur {
		return now
	}
	next := e + 1
	if cur-next >= coarseRing-1 { // forgotten: bound it by the oldest start remembered
		next = cur - (coarseRing - 2)
	}
	if t := coarse.starts[next%coarseRing].Load(); t != nil {
		return *t
	}
	return now
}
