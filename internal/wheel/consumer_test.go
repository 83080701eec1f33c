package wheel

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stashgo/stash/poller"
	"github.com/stretchr/testify/require"
)

// TestHelpFiresWhileDriverHeld holds the driver at its sleep, as a busy
// process's run queue would, and checks that producers fire what is due:
// once the clock passes the deadlines of 100 AfterFuncs, starting one more
// timer runs a pass that fires them, in deadline order, each once and none
// early. Nothing fires on the helper's account before its wake-up instant.
func TestHelpFiresWhileDriverHeld(t *testing.T) {
	w, hp, clk := newHeldWheel(t)
	hp.hold(t, w)
	now := clk.Now()
	var (
		mu    sync.Mutex
		order []int
		wg    sync.WaitGroup
	)
	const n = 100
	wg.Add(n)
	for i := range n {
		w.AfterFunc(time.Duration(i+1)*time.Microsecond, func() {
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
			wg.Done()
		})
	}
	w.AfterFunc(time.Hour, func() {}) // not due: stays
	require.Zero(t, w.Stats().Helped, "helping passes before anything was due")
	clk.Set(now + n*int64(time.Microsecond) + w.slack(n*int64(time.Microsecond)))
	w.AfterFunc(time.Hour, func() {}) // finds the wake-up instant passed
	waitGroup(t, &wg, "the due AfterFuncs")
	st := w.Stats()
	require.NotZero(t, st.Helped, "helping passes")
	require.Equal(t, int64(n), st.HelpedFired, "timers the helping passes fired")
	// The callbacks run in goroutines of their own, started in deadline
	// order but run in any: check that each ran once.
	seen := make(map[int]bool)
	for _, v := range order {
		require.False(t, seen[v], "AfterFunc %d ran twice", v)
		seen[v] = true
	}
	require.Equal(t, int64(n), w.Stats().Fired, "fired")
}

// TestHelpStress arms AfterFuncs from many goroutines on the system clock,
// each re-arming from its callback, with the driver held for a while in the
// middle: every timer fires exactly once and never before its deadline,
// whoever fires it.
func TestHelpStress(t *testing.T) {
	var hp *heldPoller
	testPoller = func(c Clock) poller.Poller {
		hp = &heldPoller{Poller: poller.New(c), release: make(chan struct{})}
		return hp
	}
	w, err := NewWheel(Options{})
	testPoller = nil
	require.NoError(t, err)
	defer w.Close()
	defer hp.unhold()
	cs := startChains(w, 16, 200, func(c int) time.Duration { return time.Duration(c%4+1) * 50 * time.Microsecond })
	time.Sleep(10 * time.Millisecond)
	hp.hold(t, w)
	// Held, the driver fires nothing: the chains go on by helping alone,
	// run by a goroutine that keeps starting and stopping a far timer, as
	// a server's requests would, and by the callbacks' own AfterFuncs.
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
				w.AfterFunc(time.Hour, func() {}).Stop()
				runtime.Gosched()
			}
		}
	}()
	time.Sleep(20 * time.Millisecond)
	close(stop)
	hp.unhold()
	cs.check(t)
	require.NotZero(t, w.Stats().Helped, "helping passes while the driver was held")
}

// TestHelpDefersDriver runs AfterFunc chains on a wheel whose poller can
// put the driver's wake-up off (epoll, on Linux), with a goroutine that
// keeps starting and stopping a timer: its helping passes fire the chains
// and defer the driver. Every timer still fires exactly once, never early,
// and late by no more than a loaded machine's scheduling delays.
func TestHelpDefersDriver(t *testing.T) {
	w, err := NewWheel(Options{})
	require.NoError(t, err)
	defer w.Close()
	if _, ok := w.poller.(poller.Deferrer); !ok {
		t.Skipf("the %s poller cannot defer its waiter", w.PollerKind())
	}
	cs := startChains(w, 32, 100, func(c int) time.Duration { return time.Duration(c%8+1) * 100 * time.Microsecond })
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
				w.AfterFunc(time.Hour, func() {}).Stop()
				time.Sleep(20 * time.Microsecond)
			}
		}
	}()
	cs.check(t)
	require.LessOrEqual(t, time.Duration(cs.worst.Load()), time.Second, "the worst lateness")
	st := w.Stats()
	t.Logf("passes %d, of which helping %d; driver wake-ups %d; worst lateness %v", st.Walks, st.Helped, st.Wakes, time.Duration(cs.worst.Load()))
}

// chainStats records what chains of AfterFuncs saw: how many fired, how
// many early, and the worst lateness.
type chainStats struct {
	early, fired, worst atomic.Int64
	want                int64
	wg                  sync.WaitGroup
}

// startChains starts n chains of AfterFuncs on w, chain c re-arming from
// its callback with period(c) until it has fired rounds times.
func startChains(w *Wheel, n, rounds int, period func(c int) time.Duration) *chainStats {
	cs := &chainStats{want: int64(n * rounds)}
	cs.wg.Add(n)
	for c := range n {
		left := rounds
		var when int64
		var f func()
		f = func() {
			now := w.Now()
			if now < when {
				cs.early.Add(1)
			}
			for late := now - when; ; {
				if v := cs.worst.Load(); late <= v || cs.worst.CompareAndSwap(v, late) {
					break
				}
			}
			cs.fired.Add(1)
			if left--; left == 0 {
				cs.wg.Done()
				return
			}
			when = now + int64(period(c))
			w.AfterFunc(period(c), f)
		}
		when = w.Now() + int64(time.Millisecond)
		w.AfterFunc(time.Millisecond, f)
	}
	return cs
}

// check waits for the chains to end and checks that every timer fired
// once, none early.
func (cs *chainStats) check(t *testing.T) {
	t.Helper()
	waitGroup(t, &cs.wg, "the chains")
	require.Zero(t, cs.early.Load(), "timers fired early")
	require.Equal(t, cs.want, cs.fired.Load(), "fired")
}

// waitGroup waits for wg, for at most 10 s.
func waitGroup(t *testing.T, wg *sync.WaitGroup, what string) {
	t.Helper()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s did not finish within 10 s", what)
	}
}
