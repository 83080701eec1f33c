package stashtime

import (
	"runtime"
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
		t.Errorf("%s: grip %d, want %d (gripWeak %d, gripStrong %d, gripNursed %d)",
			what, g, want, gripWeak, gripStrong, gripNursed)
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

// A pending long timer is weakened after a collection; one stopped before
// it is dropped from the list still strong, having cost no weak reference;
// a near one is never listed.
func TestNurseryWeakensOnlyPendingTimers(t *testing.T) {
	w, _ := newManualWheel(t, 0)
	pending := w.NewTimer(time.Hour)
	stopped := w.NewTimer(time.Hour)
	near := w.NewTimer(time.Millisecond)
	tick := w.NewTicker(time.Millisecond)
	wantGrip(t, "a new hour timer", pending.e, gripNursed)
	wantGrip(t, "a new 1 ms timer", near.e, gripStrong)
	wantGrip(t, "a new ticker", tick.e, gripNursed)
	stopped.Stop()
	collectUntil(t, "swept", func() bool { return gripOf(pending.e) != gripNursed })
	wantGrip(t, "the pending hour timer after a sweep", pending.e, gripWeak)
	wantGrip(t, "the pending ticker after a sweep", tick.e, gripWeak)
	wantGrip(t, "the stopped hour timer after a sweep", stopped.e, gripStrong)
	wantGrip(t, "the 1 ms timer after a sweep", near.e, gripStrong)
	// Re-arming an unlisted strong timer far lists it again.
	stopped.Reset(time.Hour)
	near.Reset(time.Hour)
	wantGrip(t, "a stopped timer Reset far", stopped.e, gripNursed)
	wantGrip(t, "a 1 ms timer Reset far", near.e, gripNursed)
	// The weakened ones still deliver.
	if !pending.Reset(time.Millisecond) {
		t.Error("Reset of the weakened pending timer returned false")
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
