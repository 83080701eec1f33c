package stashtime

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"slices"
	"sync/atomic"
	"testing"
	"time"
)

// gripOf reads e.grip under e.mu.
func gripOf(e *entry) grip {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.grip
}

// gripWrong says what is wrong unless e's grip is want, and is "" if
// nothing is.
func gripWrong(what string, e *entry, want grip) string {
	if g := gripOf(e); g != want {
		return fmt.Sprintf("%s: grip %v, want %v", what, g, want)
	}
	return ""
}

// collectUntil runs collections until cond holds (the nursery sweeps on the
// runtime's cleanup goroutine, after the cycle), for at most 5 s.
func collectUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after 5 s of collections: not %s", what)
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
}

// sweepMark waits until no sweep of the nursery is running and returns
// the number begun; sweptSince tells whether one has begun since. With
// automatic collections off, a sweep runs only after the test's own
// collections, or after one that ran before they were turned off and whose
// cleanup has yet to start the sweep: a test that cannot ask for that
// sweep tries again.
func sweepMark(t *testing.T) uint64 {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		b := theNursery.begun.Load()
		if theNursery.done.Load() == b {
			return b
		}
		if time.Now().After(deadline) {
			t.Fatal("a sweep of the nursery ran for 5 s")
		}
	}
}

func sweptSince(mark uint64) bool { return theNursery.begun.Load() != mark }

// A pending long timer is weakened after a collection, whether the intake
// or the nursery lists it; one stopped before is let go still strong,
// having cost no weak reference; a near one is never listed. The driver is
// held while the intake lists, so that it drains nothing the test has not
// asked it to, and the collector runs only when the test asks.
func TestNurseryWeakensOnlyPendingTimers(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	const tries = 5
	for try := 1; ; try++ {
		errs, quiet := nurseryScenario(t)
		if quiet || try == tries {
			for _, e := range errs {
				t.Error(e)
			}
			if !quiet {
				t.Errorf("a sweep the test did not ask for ran in each of %d tries", tries)
			}
			return
		}
		t.Logf("try %d: a sweep the test did not ask for ran; trying again", try)
	}
}

// nurseryScenario runs TestNurseryWeakensOnlyPendingTimers once. It returns
// what went wrong, and quiet: no sweep ran where the test asked for none.
func nurseryScenario(t *testing.T) (errs []string, quiet bool) {
	want := func(what string, e *entry, g grip) {
		if msg := gripWrong(what, e, g); msg != "" {
			errs = append(errs, msg)
		}
	}
	mark := sweepMark(t)
	defer theNursery.eager.Store(theNursery.eager.Swap(false)) // lazy: see TestNurseryEager
	w, hp, _ := newHeldWheel(t)
	nursed := w.NewTimer(2 * time.Hour)
	hp.hold(t, w) // its pass files nursed in the store and lists it here
	listed := w.NewTimer(time.Hour)
	stopped := w.NewTimer(time.Hour)
	near := w.NewTimer(time.Millisecond)
	tick := w.NewTicker(time.Millisecond)
	defer tick.Stop()
	want("a new hour timer", listed.e, gripListed)
	want("a drained hour timer", nursed.e, gripNursed)
	want("a new 1 ms timer", near.e, gripStrong)
	want("a new ticker", tick.e, gripNursed)
	stopped.Stop()
	want("a stopped hour timer", stopped.e, gripStrong)
	if sweptSince(mark) {
		return nil, false
	}
	collectUntil(t, "swept", func() bool { return gripOf(nursed.e) != gripNursed })
	want("the listed hour timer after a sweep", listed.e, gripWeak)
	want("the drained hour timer after a sweep", nursed.e, gripWeak)
	want("the pending ticker after a sweep", tick.e, gripWeak)
	want("the stopped hour timer after a sweep", stopped.e, gripStrong)
	want("the 1 ms timer after a sweep", near.e, gripStrong)
	// Re-arming an unlisted strong timer far lists it again: in the
	// intake, or, if it stays where it is in the store, here.
	mark = sweepMark(t)
	stopped.Reset(time.Hour)
	near.Reset(time.Hour)
	want("a stopped timer Reset far", stopped.e, gripListed)
	want("a 1 ms timer Reset far", near.e, gripNursed)
	hp.unhold()
	w.Sync() // the drain files the listed one and lists it here
	want("a stopped timer Reset far, drained", stopped.e, gripNursed)
	if sweptSince(mark) {
		return nil, false
	}
	// The weakened ones still deliver.
	for _, tm := range []*Timer{listed, nursed} {
		if !tm.Reset(time.Millisecond) {
			errs = append(errs, "Reset of a weakened pending timer returned false")
		}
	}
	return errs, true
}

// Abandoned channel timers are collected whatever their history: listed at
// start, re-listed by a far Reset after being dropped stopped, or listed by
// a far Reset of a near timer.
func TestNurseryAbandonedAfterResetCollected(t *testing.T) {
	w, _ := newManualWheel(t, 0)
	const n = 100
	var headers atomic.Int64
	func() {
		var dropped []*Timer
		for range n {
			tm := w.NewTimer(time.Hour)
			tm.Stop()
			dropped = append(dropped, tm)
		}
		// Let a sweep drop the stopped ones from the list.
		collectUntil(t, "swept", func() bool { return gripOf(dropped[0].e) == gripStrong })
		for _, tm := range dropped {
			tm.Reset(time.Hour)
			runtime.AddCleanup(headerOf(tm.C), countCleanup, &headers)
		}
		for range n {
			tm := w.NewTimer(time.Millisecond)
			tm.Reset(2 * time.Hour)
			runtime.AddCleanup(headerOf(tm.C), countCleanup, &headers)
		}
	}()
	collectUntil(t, "collected", func() bool { return headers.Load() == 2*n })
}

// A closed wheel's intake is forgotten: the sweep no longer goes through
// it, its lists let their timers go, and it lists no more (a timer started
// later is nursed as if filed in the store).
func TestNurseryForgetsClosedWheels(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	mark := sweepMark(t)
	want := func(what string, e *entry, g grip) {
		t.Helper()
		if msg := gripWrong(what, e, g); msg != "" {
			if sweptSince(mark) {
				t.Skip("a sweep the test did not ask for ran, after a collection from before it")
			}
			t.Error(msg)
		}
	}
	w, hp, _ := newHeldWheel(t)
	hp.hold(t, w)
	registered := func() bool {
		theNursery.mu.Lock()
		defer theNursery.mu.Unlock()
		return slices.Contains(theNursery.intakes, &w.intake)
	}
	listed := w.NewTimer(time.Hour)
	if !registered() || !w.intake.waiting() {
		t.Fatal("an open wheel's intake is not registered, or lists nothing")
	}
	want("a timer listed by an open wheel", listed.e, gripListed)
	hp.unhold()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if registered() || w.intake.waiting() {
		t.Fatal("a closed wheel's intake is still registered, or still lists a timer")
	}
	// NewTimer panics on a closed wheel; one that races Close gets here.
	late := w.newTimer(w.now(), time.Hour)
	want("a timer started on a closed wheel", late.e, gripNursed)
}

// A sweep that finds sweepSample or more listed timers makes the nursery
// eager if half or more were pending, and lazy otherwise; while eager, the
// drain weakens the pending timers it files at once, but for a sample
// that it lists.
func TestNurseryEager(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	defer theNursery.eager.Store(theNursery.eager.Load())
	w, _ := newManualWheel(t, 0)
	const n = 4 * sweepSample
	listed := func(stop bool) {
		var ts []*Timer
		for range n {
			tm := w.NewTimer(time.Millisecond)
			tm.Reset(time.Hour) // in place in the store: listed here
			ts = append(ts, tm)
		}
		for _, tm := range ts {
			if msg := gripWrong("a near timer reset far", tm.e, gripNursed); msg != "" {
				t.Fatal(msg)
			}
			if stop {
				tm.Stop()
			}
		}
		mark := sweepMark(t)
		collectUntil(t, "swept", func() bool { return sweptSince(mark) && theNursery.done.Load() == theNursery.begun.Load() })
		for _, tm := range ts {
			tm.Stop()
		}
	}
	theNursery.eager.Store(true)
	listed(true)
	if theNursery.eager.Load() {
		t.Error("eager after a sweep found every listed timer stopped")
	}
	listed(false)
	if !theNursery.eager.Load() {
		t.Fatal("lazy after a sweep found every listed timer pending")
	}

	// Eager: the drain weakens what it files, but for a sample.
	var ts []*Timer
	for range n {
		ts = append(ts, w.NewTimer(time.Hour))
	}
	w.Sync()
	weak, nursed := 0, 0
	for _, tm := range ts {
		switch gripOf(tm.e) {
		case gripWeak:
			weak++
		case gripNursed:
			nursed++
		}
	}
	if weak+nursed != n || weak < n/2 {
		t.Errorf("an eager drain weakened %d and listed %d of the %d timers it filed, want at least %d weakened and the rest listed", weak, nursed, n, n/2)
	}
	for _, tm := range ts {
		tm.Stop()
	}
}
