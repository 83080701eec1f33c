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
	if g := gripOf(pending.e); g != gripNursed {
		t.Fatalf("a new hour timer's grip is %d, want gripNursed", g)
	}
	if g := gripOf(near.e); g != gripStrong {
		t.Fatalf("a new 1 ms timer's grip is %d, want gripStrong (unlisted)", g)
	}
	if g := gripOf(tick.e); g != gripNursed {
		t.Fatalf("a new ticker's grip is %d, want gripNursed", g)
	}
	stopped.Stop()
	collectUntil(t, "swept", func() bool { return gripOf(pending.e) != gripNursed })
	if g := gripOf(pending.e); g != gripWeak {
		t.Errorf("pending hour timer after a sweep: grip %d, want gripWeak", g)
	}
	if g := gripOf(tick.e); g != gripWeak {
		t.Errorf("pending ticker after a sweep: grip %d, want gripWeak", g)
	}
	if g := gripOf(stopped.e); g != gripStrong {
		t.Errorf("stopped hour timer after a sweep: grip %d, want gripStrong (unlisted)", g)
	}
	if g := gripOf(near.e); g != gripStrong {
		t.Errorf("1 ms timer after a sweep: grip %d, want gripStrong", g)
	}
	// Re-arming an unlisted strong timer far lists it again.
	stopped.Reset(time.Hour)
	near.Reset(time.Hour)
	for _, tm := range []*Timer{stopped, near} {
		if g := gripOf(tm.e); g != gripNursed {
			t.Errorf("far Reset of an unlisted strong timer: grip %d, want gripNursed", g)
		}
	}
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
