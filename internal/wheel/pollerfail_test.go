package wheel

import (
	"errors"
	"testing"
	"time"

	"github.com/stashgo/stash/poller"
	"github.com/stretchr/testify/require"
)

// brokenPoller's Wait fails at once, as no real poller is known to.
type brokenPoller struct{ poller.Poller }

var errBroken = errors.New("broken")

func (p brokenPoller) Wait(int64) error {
	if err := p.Poller.Wake(); errors.Is(err, poller.ErrClosed) {
		return err
	}
	return errBroken
}

// TestPollerFailureStillFires: with a poller whose Wait fails, timers
// still fire (the driver polls the clock), Sync returns, the failures are
// counted, and Close stops the driver.
func TestPollerFailureStillFires(t *testing.T) {
	testPoller = func(c Clock) poller.Poller { return brokenPoller{poller.NewPortable(c)} }
	defer func() { testPoller = nil }()
	clk := NewManualClock(time.Unix(0, 0))
	w, err := NewWheel(Options{Clock: clk})
	require.NoError(t, err)
	w.Sync()
	time.Sleep(20 * time.Millisecond) // the driver has met the failure by now
	fired := make(chan struct{})
	w.AfterFunc(10*time.Millisecond, func() { close(fired) })
	clk.Advance(10 * time.Millisecond)
	select {
	case <-fired:
	case <-time.After(10 * time.Second):
		t.Fatal("a due AfterFunc did not fire with a failing poller")
	}
	w.Sync()
	require.NotZero(t, w.Stats().PollerErrors, "PollerErrors")
	require.NoError(t, w.Close())
}
