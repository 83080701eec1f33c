package stashtime_test

// Rules 10 and 11 of docs/semantics.md: AfterFunc runs f in its own
// goroutine, Stop and Reset never wait for it, and they work from inside f;
// AfterFunc(d, nil) is accepted.

import (
	"math"
	"sync/atomic"
	"testing"
	stdtime "time"

	"github.com/stashgo/stash/stashtime"
)

// A blocked f delays nothing: timers due after it still fire (channel and
// func), Stop and Reset of its own timer return at once, and a Reset that
// returned false runs f again while the first run is still blocked.
func TestConformanceAfterFuncOwnGoroutine(t *testing.T) {
	m := newTestWheel(t, stashtime.Options{})
	release := make(chan struct{})
	entered := make(chan int, 4)
	var n atomic.Int32
	blocker := m.AfterFunc(stdtime.Millisecond, func() {
		entered <- int(n.Add(1))
		<-release
	})
	later := m.NewTimer(2 * stdtime.Millisecond)
	otherRan := make(chan struct{})
	m.AfterFunc(3*stdtime.Millisecond, func() { close(otherRan) })
	defer close(release) // before the leak check: let every run of f return

	m.advance(stdtime.Millisecond)
	if k := waitChan(t, entered, "first run of f"); k != 1 {
		t.Fatalf("first run numbered %d", k)
	}
	// f is blocked now. Everything else goes on.
	m.advance(2 * stdtime.Millisecond)
	mustRecv(t, later.C, at(2*stdtime.Millisecond), "channel timer due while f blocks")
	waitChan(t, otherRan, "another AfterFunc due while f blocks")

	stopDone := make(chan bool)
	go func() { stopDone <- blocker.Stop() }()
	select {
	case ok := <-stopDone:
		if ok {
			t.Fatal("Stop while f runs = true")
		}
	case <-stdtime.After(5 * stdtime.Second):
		t.Fatal("Stop waited for f")
	}
	resetDone := make(chan bool)
	go func() { resetDone <- blocker.Reset(stdtime.Millisecond) }()
	select {
	case ok := <-resetDone:
		if ok {
			t.Fatal("Reset while f runs = true")
		}
	case <-stdtime.After(5 * stdtime.Second):
		t.Fatal("Reset waited for f")
	}
	// Reset returned false: f runs again, concurrently with the blocked run.
	m.advance(stdtime.Millisecond)
	if k := waitChan(t, entered, "second run of f"); k != 2 {
		t.Fatalf("second run numbered %d", k)
	}
}

// f does not run on the wheel's driver, nor one at a time: a hundred due
// callbacks that all block until released all get started.
func TestConformanceAfterFuncManyBlocked(t *testing.T) {
	m := newTestWheel(t, stashtime.Options{})
	const n = 100
	release := make(chan struct{})
	started := make(chan struct{}, n)
	for i := range n {
		m.AfterFunc(stdtime.Duration(1+i)*stdtime.Microsecond, func() {
			started <- struct{}{}
			<-release
		})
	}
	defer close(release)
	m.advance(stdtime.Millisecond)
	for range n {
		waitChan(t, started, "run of f while the others block")
	}
}

// Stop and Reset from inside f, on f's own timer: they return false (the
// timer has fired) and do not deadlock; the Reset arms it again.
func TestConformanceAfterFuncStopResetInsideF(t *testing.T) {
	m := newTestWheel(t, stashtime.Options{})
	type result struct{ stop, reset, stop2, reset2 bool }
	results := make(chan result, 4)
	var tm *stashtime.Timer
	var runs atomic.Int32
	armed := make(chan struct{})
	tm = m.AfterFunc(stdtime.Millisecond, func() {
		<-armed
		if runs.Add(1) > 1 {
			results <- result{}
			return
		}
		var r result
		r.stop = tm.Stop()
		r.reset = tm.Reset(5 * stdtime.Millisecond)
		r.stop2 = tm.Stop()                          // stops the arming Reset made
		r.reset2 = tm.Reset(5 * stdtime.Millisecond) // arms again
		results <- r
	})
	close(armed)
	m.advance(stdtime.Millisecond)
	r := waitChan(t, results, "f")
	if r.stop {
		t.Error("Stop inside f = true")
	}
	if r.reset {
		t.Error("Reset inside f = true")
	}
	if r.reset2 {
		t.Error("Reset inside f of a stopped timer = true")
	}
	if !r.stop2 {
		t.Error("Stop inside f of the arming f's Reset made = false")
	}
	// The last Reset inside f re-armed it 5ms after the first firing.
	m.advance(4 * stdtime.Millisecond)
	select {
	case <-results:
		t.Fatal("f re-armed inside f ran early")
	default:
	}
	m.advance(stdtime.Millisecond)
	waitChan(t, results, "f re-armed from inside f")
}

// Reset from inside f, making a self-rearming timer: it runs once per
// deadline, on time, and stops when f stops re-arming.
func TestConformanceAfterFuncSelfRearm(t *testing.T) {
	m := newTestWheel(t, stashtime.Options{})
	const period = 3 * stdtime.Millisecond
	seen := make(chan stdtime.Duration, 16)
	var tm *stashtime.Timer
	var ready = make(chan struct{})
	var count int
	tm = m.AfterFunc(period, func() {
		<-ready
		seen <- m.elapsed()
		if count++; count < 5 {
			if tm.Reset(period) {
				panic("Reset inside f = true")
			}
		}
	})
	close(ready)
	for i := 1; i <= 5; i++ {
		m.advance(period - 1)
		select {
		case v := <-seen:
			t.Fatalf("run %d early, at %v", i, v)
		default:
		}
		m.advance(1)
		if v := waitChan(t, seen, "self-rearmed f"); v != stdtime.Duration(i)*period {
			t.Fatalf("run %d at %v, want %v", i, v, stdtime.Duration(i)*period)
		}
		// f may still be about to call Reset; wait for it to be pending
		// again before advancing (Stop + Reset would race it).
		if i < 5 {
			for deadline := stdtime.Now().Add(5 * stdtime.Second); ; {
				if m.Stats().Live == 1 {
					break
				}
				if stdtime.Now().After(deadline) {
					t.Fatal("f did not re-arm")
				}
				stdtime.Sleep(100 * stdtime.Microsecond)
			}
		}
	}
	m.advance(stdtime.Hour)
	if len(seen) != 0 {
		t.Fatalf("%d runs after f stopped re-arming", len(seen))
	}
}

// AfterFunc(d, nil) is accepted: it can be made, reset and stopped; it
// would panic only if it fired (on its own goroutine), which is not tested
// in-process.
func TestConformanceAfterFuncNil(t *testing.T) {
	m := newTestWheel(t, stashtime.Options{})
	tm := m.AfterFunc(stdtime.Millisecond, nil)
	if tm.C != nil {
		t.Fatal("AfterFunc timer has a non-nil C")
	}
	if !tm.Reset(stdtime.Hour) {
		t.Fatal("Reset of a pending AfterFunc(d, nil) = false")
	}
	m.advance(stdtime.Minute)
	if !tm.Stop() {
		t.Fatal("Stop of a pending AfterFunc(d, nil) = false")
	}
	m.advance(2 * stdtime.Hour)
	// Left pending when the wheel closes: it never fires.
	m.AfterFunc(stdtime.Second, nil)
	m.AfterFunc(math.MaxInt64, nil)

	// The process-wide wheel too (a benchmark's pattern).
	for range 100 {
		stashtime.AfterFunc(stdtime.Hour, nil).Stop()
	}
}
