package stashtime

import (
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"
)

// gripOf reads e.grip under e.mu.
func gripOf(e *entry) uint8 {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.grip
}

// wantGrip fails the test unless e's grip is want.
func wantGrip(t *testing.T, what string, e *entry, want uint8) {
	t.Helper()
	if g := gripOf(e); g != want {
		t.Errorf("%s: grip %d, want %d (gripWeak %d, gripStrong %d, gripNursed %d, gripListed %d)",
			what, g, want, gripWeak, gripStrong, gripNursed, gripListed)
	}
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

// A pending long timer is weakened after a collection, whether the intake
// or the nursery lists it; one stopped before is let go still strong,
// having cost no weak reference; a near one is never listed. The driver is
// held while the intake lists, so that it drains nothing the test has not
// asked it to.
func TestNurseryWeakensOnlyPendingTimers(t *testing.T) {
	w, hp, _ := newHeldWheel(t)
	nursed := w.NewTimer(2 * time.Hour)
	hp.hold(t, w) // its pass files nursed in the store and lists it here
	listed := w.NewTimer(time.Hour)
	stopped := w.NewTimer(time.Hour)
	near := w.NewTimer(time.Millisecond)
	tick := w.NewTicker(time.Millisecond)
	wantGrip(t, "a new hour timer", listed.e, gripListed)
	wantGrip(t, "a drained hour timer", nursed.e, gripNursed)
	wantGrip(t, "a new 1 ms timer", near.e, gripStrong)
	wantGrip(t, "a new ticker", tick.e, gripNursed)
	stopped.Stop()
	wantGrip(t, "a stopped hour timer", stopped.e, gripStrong)
	collectUntil(t, "swept", func() bool { return gripOf(nursed.e) != gripNursed })
	wantGrip(t, "the listed hour timer after a sweep", listed.e, gripWeak)
	wantGrip(t, "the drained hour timer after a sweep", nursed.e, gripWeak)
	wantGrip(t, "the pending ticker after a sweep", tick.e, gripWeak)
	wantGrip(t, "the stopped hour timer after a sweep", stopped.e, gripStrong)
	wantGrip(t, "the 1 ms timer after a sweep", near.e, gripStrong)
	// Re-arming an unlisted strong timer far lists it again: in the
	// intake, or, if it stays where it is in the store, here.
	stopped.Reset(time.Hour)
	near.Reset(time.Hour)
	wantGrip(t, "a stopped timer Reset far", stopped.e, gripListed)
	wantGrip(t, "a 1 ms timer Reset far", near.e, gripNursed)
	hp.unhold()
	w.Sync() // the drain files the listed one and lists it here
	wantGrip(t, "a stopped timer Reset far, drained", stopped.e, gripNursed)
	// The weakened ones still deliver.
	for _, tm := range []*Timer{listed, nursed} {
		if !tm.Reset(time.Millisecond) {
			t.Error("Reset of a weakened pending timer returned false")
		}
	}
	tick.Stop()
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
	wantGrip(t, "a timer listed by an open wheel", listed.e, gripListed)
	hp.unhold()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if registered() || w.intake.waiting() {
		t.Fatal("a closed wheel's intake is still registered, or still lists a timer")
	}
	late := w.NewTimer(time.Hour)
	wantGrip(t, "a timer started on a closed wheel", late.e, gripNursed)
}
