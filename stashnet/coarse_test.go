package stashnet

import (
	"testing"
	"time"

	"github.com/stashgo/stash/internal/clock"
	"github.com/stashgo/stash/internal/epoch"
)

// TestCoarseTicks checks that while an idle timeout is in use the epoch
// advances by itself, so that a stamp's bound comes about a tick after the
// stamped activity even with no timer firing on the wheel.
func TestCoarseTicks(t *testing.T) {
	coarseUse()
	defer coarseDone()
	at, e := clock.Mono(), epoch.Now()
	time.Sleep(3 * coarseTick)
	b, _ := epoch.Before(e, clock.Mono())
	if b < at {
		t.Fatalf("bound %v before the stamped instant", time.Duration(at-b))
	}
	if late := time.Duration(b - at); late > coarseTick+time.Second { // a loaded machine delays ticks
		t.Errorf("bound %v after the stamped instant, want about a tick", late)
	}
}

func TestGridDown(t *testing.T) {
	const tick = int64(coarseTick)
	for _, tc := range []struct{ t, off, want int64 }{
		{0, 0, 0},
		{1, 0, 0},
		{tick - 1, 0, 0},
		{tick, 0, tick},
		{5 * tick, 3, 4*tick + 3},
		{5*tick + 3, 3, 5*tick + 3},
		{5*tick + 4, 3, 5*tick + 3},
		{2, 3, 3 - tick},
		{-1, 0, -tick},
		{-tick, 0, -tick},
	} {
		if got := gridDown(tc.t, tc.off); got != tc.want {
			t.Errorf("gridDown(%d, %d) = %d, want %d", tc.t, tc.off, got, tc.want)
		}
	}
}
