package stashtime

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stashgo/stash/poller"
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
	if h := w.Stats().Helped; h != 0 {
		t.Fatalf("%d helping passes before anything was due", h)
	}
	clk.Set(now + n*int64(time.Microsecond) + w.slack(n*int64(time.Microsecond)))
	w.AfterFunc(time.Hour, func() {}) // finds the wake-up instant passed
	waitGroup(t, &wg, "the due AfterFuncs")
	if st := w.Stats(); st.Helped == 0 || st.HelpedFired != n {
		t.Fatalf("%d helping passes fired %d timers, want %d", st.Helped, st.HelpedFired, n)
	}
	// The callbacks run in goroutines of their own, started in deadline
	// order but run in any: check that each ran once.
	seen := make(map[int]bool)
	for _, v := range order {
		if seen[v] {
			t.Fatalf("AfterFunc %d ran twice", v)
		}
		seen[v] = true
	}
	if st := w.Stats(); st.Fired != n {
		t.Fatalf("%d fired, want %d", st.Fired, n)
	}
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
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	defer hp.unhold()
	const chains, rounds = 16, 200
	var (
		early, fired atomic.Int64
		wg           sync.WaitGroup
	)
	wg.Add(chains)
	for c := range chains {
		var left = rounds
		var when int64
		var f func()
		f = func() {
			if w.now() < when {
				early.Add(1)
			}
			fired.Add(1)
			if left--; left == 0 {
				wg.Done()
				return
			}
			d := time.Duration(c%4+1) * 50 * time.Microsecond
			when = w.now() + int64(d)
			w.AfterFunc(d, f)
		}
		when = w.now() + int64(time.Millisecond)
		w.AfterFunc(time.Millisecond, f)
	}
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
	waitGroup(t, &wg, "the chains")
	if e := early.Load(); e != 0 {
		t.Fatalf("%d timers fired early", e)
	}
	if got := fired.Load(); got != chains*rounds {
		t.Fatalf("%d fired, want %d", got, chains*rounds)
	}
	if w.Stats().Helped == 0 {
		t.Fatal("no helping pass ran while the driver was held")
	}
}

// TestHelpDefersDriver runs AfterFunc chains on a wheel whose poller can
// put the driver's wake-up off (epoll, on Linux), with a goroutine that
// keeps starting and stopping a timer: its helping passes fire the chains
// and defer the driver. Every timer still fires exactly once, never early,
// and late by no more than a loaded machine's scheduling delays.
func TestHelpDefersDriver(t *testing.T) {
	w, err := NewWheel(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, ok := w.poller.(poller.Deferrer); !ok {
		t.Skipf("the %s poller cannot defer its waiter", w.Poller())
	}
	const chains, rounds = 32, 100
	var (
		early, fired, worst atomic.Int64
		wg                  sync.WaitGroup
	)
	wg.Add(chains)
	for c := range chains {
		var left = rounds
		var when int64
		var f func()
		f = func() {
			now := w.now()
			if now < when {
				early.Add(1)
			}
			for late := now - when; ; {
				if v := worst.Load(); late <= v || worst.CompareAndSwap(v, late) {
					break
				}
			}
			fired.Add(1)
			if left--; left == 0 {
				wg.Done()
				return
			}
			d := time.Duration(c%8+1) * 100 * time.Microsecond
			when = now + int64(d)
			w.AfterFunc(d, f)
		}
		when = w.now() + int64(time.Millisecond)
		w.AfterFunc(time.Millisecond, f)
	}
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
	waitGroup(t, &wg, "the chains")
	if e := early.Load(); e != 0 {
		t.Fatalf("%d timers fired early", e)
	}
	if got := fired.Load(); got != chains*rounds {
		t.Fatalf("%d fired, want %d", got, chains*rounds)
	}
	if l := time.Duration(worst.Load()); l > time.Second {
		t.Fatalf("a timer fired %v late", l)
	}
	st := w.Stats()
	t.Logf("passes %d, of which helping %d; driver wake-ups %d; worst lateness %v", st.Walks, st.Helped, st.Wakes, time.Duration(worst.Load()))
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
