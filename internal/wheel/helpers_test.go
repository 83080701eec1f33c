package wheel

// Helpers shared by the engine's tests; api_test.go has the API they
// drive it through.

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/stashgo/stash/poller"
	"github.com/stretchr/testify/require"
)

// newManualWheel starts a wheel on a manual clock set to the Unix epoch,
// with the given MaxBatch (0 for the default), and closes it when the test
// ends.
func newManualWheel(t testing.TB, maxBatch int) (*Wheel, *ManualClock) {
	t.Helper()
	return newManualWheelOpts(t, Options{MaxBatch: maxBatch})
}

// newManualWheelOpts is newManualWheel with other options.
func newManualWheelOpts(t testing.TB, opts Options) (*Wheel, *ManualClock) {
	t.Helper()
	clk := NewManualClock(time.Unix(0, 0))
	opts.Clock = clk
	w, err := NewWheel(opts)
	require.NoError(t, err)
	t.Cleanup(func() { w.Close() })
	return w, clk
}

// A heldPoller parks the driver, while held, at its next Wait: it then
// runs no pass, so nothing it would do (drain the intake, fire, re-file)
// happens until release, whatever the test starts meanwhile.
type heldPoller struct {
	poller.Poller
	held    atomic.Bool
	parked  atomic.Bool
	release chan struct{}
}

func (p *heldPoller) Wait(deadline int64) error {
	if p.held.Load() {
		p.parked.Store(true)
		<-p.release
		p.parked.Store(false)
	}
	return p.Poller.Wait(deadline)
}

// newHeldWheel is newManualWheel with a heldPoller.
func newHeldWheel(t testing.TB) (*Wheel, *heldPoller, *ManualClock) {
	t.Helper()
	var hp *heldPoller
	testPoller = func(c Clock) poller.Poller {
		hp = &heldPoller{Poller: poller.NewPortable(c), release: make(chan struct{})}
		return hp
	}
	w, clk := newManualWheel(t, 0)
	testPoller = nil
	t.Cleanup(func() { hp.unhold() }) // before Close, which runs after (LIFO)
	return w, hp, clk
}

// hold makes w run a pass (Sync), then parks the driver at its next Wait
// and waits until it is parked. It may be called once.
func (p *heldPoller) hold(t testing.TB, w *Wheel) {
	t.Helper()
	w.Sync()
	p.held.Store(true)
	p.Poller.Wake() // out of a Wait begun before held, into one that parks
	require.Eventually(t, p.parked.Load, 10*time.Second, 100*time.Microsecond, "the driver did not park within 10 s")
}

// unhold lets the driver go on, for good: a heldPoller holds once.
func (p *heldPoller) unhold() {
	if p.held.CompareAndSwap(true, false) {
		close(p.release)
	}
}

// waitUntil waits, for at most 10 s, until cond holds: for what the
// driver or a callback's goroutine does on its own. what names the state
// awaited in the failure.
func waitUntil(t testing.TB, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("not %s after 10 s", what)
		}
	}
}
