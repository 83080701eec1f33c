package stashnet

import (
	"sync"
	"time"

	"github.com/stashgo/stash/internal/clock"
	"github.com/stashgo/stash/internal/epoch"
	"github.com/stashgo/stash/stashtime"
)

// The idle timeouts stamp activity with the coarse clock of package
// internal/epoch: its epoch advances at every pass of the wheel's consumer,
// so in a busy process many times a millisecond, and, while an idle timeout
// is in use, at least every coarseTick, on a timer of its own. Activity
// stamped with an epoch happened before the next epoch began.
//
// The ticker fires at the multiples of coarseTick on clock.Mono, the grid,
// and the idle timers of busy connections fire at points of the grid
// shifted by their timeout's remainder (see idler.fire): every wake-up of
// the wheel's driver costs the process a thread switch or more, and timers
// due at one instant share one wake-up, so that the idle timeouts of a busy
// server wake the driver a few times a tick, however many connections they
// watch, instead of once per connection and timeout.
const coarseTick = 10 * time.Millisecond

// gridDown returns the last point of the grid shifted by off at or before
// t.
func gridDown(t, off int64) int64 {
	const tick = int64(coarseTick)
	k := (t - off) / tick
	if (t-off)%tick < 0 {
		k--
	}
	return k*tick + off
}

var coarse struct {
	mu     sync.Mutex
	users  int              // idle timeouts in use
	ticker *stashtime.Timer // advances the epoch; nil when users is 0
}

// coarseUse registers an idle timeout as a user of the clock, starting its
// ticker if it is the first.
func coarseUse() {
	coarse.mu.Lock()
	defer coarse.mu.Unlock()
	if coarse.users++; coarse.users == 1 {
		now := clock.Mono()
		epoch.Advance(now)
		coarse.ticker = stashtime.AfterFunc(untilTick(now), coarseTickFunc)
	}
}

// coarseDone unregisters an idle timeout, stopping the ticker with the last.
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
	now := clock.Mono()
	epoch.Advance(now)
	coarse.ticker.Reset(untilTick(now))
}

// untilTick returns the time from now to the next point of the grid.
func untilTick(now int64) time.Duration {
	return time.Duration(gridDown(now, 0) + int64(coarseTick) - now)
}
