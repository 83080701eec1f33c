package stashnet

import (
	"testing"
	"time"

	"github.com/stashgo/stash/stashtime"
)

// TestCoarseBound checks what the idle timeouts rely on: activity stamped
// with an epoch happened no later than activeBefore says, and activeBefore
// is not much later than the activity (about a tick).
func TestCoarseBound(t *testing.T) {
	coarseUse()
	defer coarseDone()
	type stamp struct {
		at    time.Time
		epoch int64
	}
	var stamps []stamp
	for range 20 {
		at := stashtime.Now()
		stamps = append(stamps, stamp{at, coarseEpoch()})
		time.Sleep(coarseTick / 3)
	}
	time.Sleep(2 * coarseTick)
	now := stashtime.Now()
	for i, s := range stamps {
		b := activeBefore(s.epoch, now)
		if b.Before(s.at) {
			t.Fatalf("stamp %d: bound %v before the activity", i, s.at.Sub(b))
		}
		if late := b.Sub(s.at); late > coarseTick+time.Second { // a loaded machine delays ticks
			t.Errorf("stamp %d: bound %v after the activity, want about a tick", i, late)
		}
	}
	if b := activeBefore(coarseEpoch(), now); !b.Equal(now) {
		t.Errorf("the current epoch's bound is %v, want now", b)
	}
}
