package wheel

import (
	"math/rand/v2"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stashgo/stash/poller"
	"github.com/stretchr/testify/require"
)

// A settlePoller is a poller for a ManualClock whose state a test can read:
// whether the driver is asleep toward a deadline the clock has not reached,
// with no wake-up pending. The driver is then settled: it will not move
// until the clock does or a producer wakes it, so whatever it has not fired
// by then it would not fire on time.
type settlePoller struct {
	clk *ManualClock

	mu       sync.Mutex
	changed  chan struct{} // closed and replaced when token, closed or the deadline changes
	token    bool          // a Wake is pending
	closed   bool
	waiting  bool
	deadline int64
	waits    int // Waits entered
}

func newSettlePoller(clk *ManualClock) *settlePoller {
	return &settlePoller{clk: clk, changed: make(chan struct{})}
}

func (p *settlePoller) signal() { // p.mu held
	close(p.changed)
	p.changed = make(chan struct{})
}

func (p *settlePoller) Kind() string { return poller.KindPortable }

func (p *settlePoller) Wake() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return poller.ErrClosed
	}
	if !p.token {
		p.token = true
		p.signal()
	}
	return nil
}

func (p *settlePoller) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.closed {
		p.closed = true
		p.signal()
	}
	return nil
}

func (p *settlePoller) Wait(deadline int64) error {
	p.mu.Lock()
	p.waits++
	p.deadline = deadline
	p.waiting = true
	defer func() {
		p.waiting = false
		p.token = false
		p.mu.Unlock()
	}()
	for {
		if p.closed {
			return poller.ErrClosed
		}
		if p.token || p.clk.Now() >= p.deadline {
			return nil
		}
		changed := p.changed
		var reached <-chan struct{}
		cancel := func() {}
		if p.deadline != poller.NoDeadline {
			reached, cancel = p.clk.Until(p.deadline)
		}
		p.mu.Unlock()
		select {
		case <-changed:
		case <-reached:
		}
		cancel()
		p.mu.Lock()
	}
}

// settled reports whether the driver sleeps toward a deadline beyond the
// clock with no wake-up pending.
func (p *settlePoller) settled() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.waiting && !p.token && p.deadline > p.clk.Now()
}

// settle waits until the driver is settled.
func (p *settlePoller) settle(t testing.TB) {
	t.Helper()
	require.Eventually(t, p.settled, 10*time.Second, 50*time.Microsecond, "the driver did not settle")
}

// newSettleWheel starts a wheel on a manual clock at the Unix epoch with a
// settlePoller, and closes it when the test ends.
func newSettleWheel(t testing.TB, opts Options) (*Wheel, *settlePoller, *ManualClock) {
	t.Helper()
	var sp *settlePoller
	testPoller = func(c Clock) poller.Poller {
		sp = newSettlePoller(c.(*ManualClock))
		return sp
	}
	defer func() { testPoller = nil }()
	w, clk := newManualWheelOpts(t, opts)
	return w, sp, clk
}

// TestWakeForEarlierTimer is the shape robfig/cron's tests met: a timer due
// before a later pending one, armed while the driver sleeps toward the
// later one, must fire at its own deadline, not with the later one. Here
// on the real clock, with a generous bound.
func TestWakeForEarlierTimer(t *testing.T) {
	if testing.Short() {
		t.Skip("takes 2.1 s of real time")
	}
	t.Parallel()
	w, err := NewWheel(Options{})
	require.NoError(t, err)
	defer w.Close()
	t1 := w.NewTimer(time.Second)
	a := w.NewTimer(2100 * time.Millisecond) // a later timer is pending
	defer a.Stop()
	<-t1.C
	start := time.Now()
	t2 := w.NewTimer(time.Second) // due before a
	<-t2.C
	late := time.Since(start) - time.Second
	t.Logf("t2 fired %v after its deadline", late)
	require.GreaterOrEqual(t, late, time.Duration(0), "t2 fired early")
	require.Less(t, late, 50*time.Millisecond, "t2 fired late, as if with the later timer")
}

// TestWakeForEarlierTimerManual is TestWakeForEarlierTimer's twin on a
// manual clock: stepped a millisecond at a time, with the driver left to
// wake by itself at each step (no Sync, which would wake it), t2 fires
// within its slack.
func TestWakeForEarlierTimerManual(t *testing.T) {
	w, sp, clk := newSettleWheel(t, Options{})
	t1 := w.NewTimer(time.Second)
	a := w.NewTimer(2100 * time.Millisecond)
	defer a.Stop()
	clk.Advance(time.Second)
	w.Sync()
	<-t1.C
	t2 := w.NewTimer(time.Second)
	due := clk.Now() + int64(time.Second)
	w.Sync()
	for clk.Now() < due+int64(DefaultSlack) {
		clk.Advance(time.Millisecond)
		sp.settle(t)
		select {
		case v := <-t2.C:
			require.GreaterOrEqual(t, clk.Now(), due, "t2 fired early")
			require.Equal(t, clk.Time(due), v)
			return
		default:
		}
	}
	t.Fatalf("t2, due at %v, has not fired at %v", time.Duration(due), time.Duration(clk.Now()))
}

// skipIfChecked skips a test of what the wheel retains, or of a lock-free
// path, when the wake-up checker is built in (see wakecheck.go): the
// checker keeps its own record of every timer and takes entries' locks.
func skipIfChecked(t *testing.T) {
	t.Helper()
	if WakeCheck {
		t.Skip("the wake-up checker (stashcheck) records every timer and takes entries' locks")
	}
}

// TestRandomMixLateness is the random mix on the real clock: 300
// AfterFunc timers of 5 ms to 1.5 s, armed over 1.5 s, a tenth of them
// moved once (earlier or later). None fires early, and the worst is late
// by at most package time's worst plus a generous margin for a loaded
// 2-core machine (the precision rule allows 0.5 ms; scheduling adds the
// rest). It logs the worst and
// the median lateness, and package time's beside them.
func TestRandomMixLateness(t *testing.T) {
	if testing.Short() {
		t.Skip("takes 3 s of real time")
	}
	if raceEnabled {
		t.Skip("the race detector slows the wheel's code, not the runtime's timers")
	}
	w, err := NewWheel(Options{})
	require.NoError(t, err)
	defer w.Close()
	stash := randomMix(t, func(d time.Duration, f func()) func(time.Duration) bool {
		return w.AfterFunc(d, f).Reset
	})
	std := randomMix(t, func(d time.Duration, f func()) func(time.Duration) bool {
		return time.AfterFunc(d, f).Reset
	})
	t.Logf("lateness: stash worst %v, median %v; time worst %v, median %v", stash[len(stash)-1], stash[len(stash)/2], std[len(std)-1], std[len(std)/2])
	require.GreaterOrEqual(t, stash[0], time.Duration(0), "a timer fired early")
	// On a stalled machine both are late: the bound is package time's
	// worst, measured just before, plus a margin.
	require.Less(t, stash[len(stash)-1], std[len(std)-1]+50*time.Millisecond, "the worst lateness")
}

// randomMix arms the mix with afterFunc and returns the lateness of every
// firing, sorted.
func randomMix(t *testing.T, afterFunc func(time.Duration, func()) func(time.Duration) bool) []time.Duration {
	rng := rand.New(rand.NewPCG(25, 1))
	const n = 300
	var mu sync.Mutex
	late := make([]time.Duration, 0, n)
	var wg sync.WaitGroup
	wg.Add(n)
	for i := range n {
		time.Sleep(1500 * time.Millisecond / n)
		d := 5*time.Millisecond + time.Duration(rng.Int64N(int64(1495*time.Millisecond)))
		var due atomic.Int64
		due.Store(time.Now().Add(d).UnixNano())
		reset := afterFunc(d, func() {
			l := time.Duration(time.Now().UnixNano() - due.Load())
			mu.Lock()
			late = append(late, l)
			mu.Unlock()
			wg.Done()
		})
		if i%10 == 0 {
			d2 := time.Duration(rng.Int64N(int64(d)))*2 + time.Millisecond
			due.Store(time.Now().Add(d2).UnixNano())
			if !reset(d2) {
				t.Fatalf("timer %d had fired before its Reset", i)
			}
		}
	}
	wg.Wait()
	slices.Sort(late)
	return late
}
