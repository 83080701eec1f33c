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
const coarseTick = 10 * time.Millisecond

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
		epoch.Advance(clock.Mono())
		coarse.ticker = stashtime.AfterFunc(coarseTick, coarseTickFunc)
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
	epoch.Advance(clock.Mono())
	coarse.ticker.Reset(coarseTick)
}
