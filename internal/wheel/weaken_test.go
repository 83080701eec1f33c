package wheel

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"testing"
	"time"
)

// chanRefOf reads e.chanRef under e.mu.
func chanRefOf(e *Entry) chanRef {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.chanRef
}

// chanRefWrong says what is wrong unless e's chanRef is want, and is "" if
// nothing is.
func chanRefWrong(what string, e *Entry, want chanRef) string {
	if g := chanRefOf(e); g != want {
		return fmt.Sprintf("%s: chanRef %v, want %v", what, g, want)
	}
	return ""
}

// collectUntil runs collections until cond holds (a wheel's sweep runs on
// a goroutine of its own, after the cycle), for at most 5 s.
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

// sweepIdle reports whether no sweep of in is running.
func sweepIdle(in *intake) bool { return in.done.Load() == in.begun.Load() }

// sweepMark waits until no sweep of in is running and returns the number
// begun; sweptSince tells whether one has begun since. With automatic
// collections off, a sweep runs only after the test's own collections, or
// after one that ran before they were turned off and whose cleanup has yet
// to start the sweep: a test that cannot ask for that sweep tries again.
func sweepMark(t *testing.T, in *intake) uint64 {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
		b := in.begun.Load()
		if in.done.Load() == b {
			return b
		}
		if time.Now().After(deadline) {
			t.Fatal("a sweep of the intake ran for 5 s")
		}
	}
}

func sweptSince(in *intake, mark uint64) bool { return in.begun.Load() != mark }

// toWeakenListings returns how many listings in's toWeaken lists hold.
func (in *intake) toWeakenListings() int {
	n := 0
	for i := range in.shards {
		s := &in.shards[i]
		s.mu.Lock()
		n += len(s.toWeaken)
		s.mu.Unlock()
	}
	return n
}

// A pending long timer is weakened after a collection, whether it is
// listed to be filed or, filed, in toWeaken; one stopped before is let go
// still strong, having cost no weak reference; a near one is never listed.
// The driver is held while timers are listed to be filed, so that it
// drains nothing the test has not asked it to, and the collector runs only
// when the test asks.
func TestWeakensOnlyPendingTimers(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	const tries = 5
	for try := 1; ; try++ {
		errs, quiet := weakenScenario(t)
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

// weakenScenario runs TestWeakensOnlyPendingTimers once. It returns what
// went wrong, and quiet: no sweep ran where the test asked for none.
func weakenScenario(t *testing.T) (errs []string, quiet bool) {
	want := func(what string, e *Entry, g chanRef) {
		if msg := chanRefWrong(what, e, g); msg != "" {
			errs = append(errs, msg)
		}
	}
	w, hp, _ := newHeldWheel(t)
	in := &w.intake // lazy: see TestWeakenEager
	mark := sweepMark(t, in)
	drained := w.NewTimer(2 * time.Hour)
	hp.hold(t, w) // its pass files drained in the store and moves it to toWeaken
	listed := w.NewTimer(time.Hour)
	stopped := w.NewTimer(time.Hour)
	near := w.NewTimer(storeNear) // filed in the store
	tick := w.NewTicker(time.Millisecond)
	defer tick.Stop()
	want("a new hour timer", listed.e, refUnfiled)
	want("a drained hour timer", drained.e, refToWeaken)
	want("a new near timer", near.e, refStrong)
	want("a new ticker", tick.e, refToWeaken)
	stopped.Stop()
	want("a stopped hour timer", stopped.e, refStrong)
	if n := in.toWeakenListings(); n != 2 {
		errs = append(errs, fmt.Sprintf("%d listings in toWeaken, want 2 (the drained timer and the ticker)", n))
	}
	if sweptSince(in, mark) {
		return nil, false
	}
	collectUntil(t, "swept", func() bool { return chanRefOf(drained.e) != refToWeaken })
	want("the listed hour timer after a sweep", listed.e, refWeak)
	want("the drained hour timer after a sweep", drained.e, refWeak)
	want("the pending ticker after a sweep", tick.e, refWeak)
	want("the stopped hour timer after a sweep", stopped.e, refStrong)
	want("the near timer after a sweep", near.e, refStrong)
	if n := in.toWeakenListings(); n != 0 {
		errs = append(errs, fmt.Sprintf("%d listings in toWeaken after a sweep, want 0", n))
	}
	// Re-arming an unlisted strong timer far lists it again: to be filed,
	// or, if it stays where it is in the store, in toWeaken.
	mark = sweepMark(t, in)
	stopped.Reset(time.Hour)
	near.Reset(time.Hour)
	want("a stopped timer Reset far", stopped.e, refUnfiled)
	want("a near timer Reset far", near.e, refToWeaken)
	hp.unhold()
	w.Sync() // the drain files the listed one and moves it to toWeaken
	want("a stopped timer Reset far, drained", stopped.e, refToWeaken)
	if n := in.toWeakenListings(); n != 2 {
		errs = append(errs, fmt.Sprintf("%d listings in toWeaken after the drain, want 2", n))
	}
	if sweptSince(in, mark) {
		return nil, false
	}
	// The weakened ones still deliver.
	for _, tm := range []*Timer{listed, drained} {
		if !tm.Reset(time.Millisecond) {
			errs = append(errs, "Reset of a weakened pending timer returned false")
		}
	}
	return errs, true
}

// Abandoned channel timers are collected whatever their history: listed at
// start, re-listed by a far Reset after being dropped stopped, or listed by
// a far Reset of a near timer.
func TestWeakenAbandonedAfterResetCollected(t *testing.T) {
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
		collectUntil(t, "swept", func() bool { return chanRefOf(dropped[0].e) == refStrong })
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

// A closed wheel's intake lets its timers go and lists no more: a timer
// started later is filed in the store and keeps its channel strongly; no
// canary is armed for it. Its last canary's sweep finds nothing.
func TestWeakenClosedWheel(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	w, hp, _ := newHeldWheel(t)
	in := &w.intake
	mark := sweepMark(t, in)
	want := func(what string, e *Entry, g chanRef) {
		t.Helper()
		if msg := chanRefWrong(what, e, g); msg != "" {
			if sweptSince(in, mark) {
				t.Skip("a sweep the test did not ask for ran, after a collection from before it")
			}
			t.Error(msg)
		}
	}
	hp.hold(t, w)
	listed := w.NewTimer(time.Hour)
	filed := w.NewTimer(storeNear)
	filed.Reset(time.Hour) // in place in the store: in toWeaken
	if !w.intake.waiting() || in.toWeakenListings() != 1 || !in.armed.Load() {
		t.Fatal("an open wheel's intake lists nothing in one stage or the other, or armed no canary")
	}
	want("a timer listed by an open wheel", listed.e, refUnfiled)
	want("a timer filed by an open wheel", filed.e, refToWeaken)
	hp.unhold()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if w.intake.waiting() || in.listings() != 0 || in.toWeakenListings() != 0 {
		t.Fatal("a closed wheel's intake still lists a timer")
	}
	collectUntil(t, "swept", func() bool { return !in.armed.Load() && sweepIdle(in) })
	// NewTimer panics on a closed wheel; one that races Close gets here.
	late := w.NewTimer(time.Hour)
	want("a timer started on a closed wheel", late.e, refStrong)
	if h := holderOf(late.e); h != storeHolder {
		t.Errorf("a timer started on a closed wheel: holder %v, want store", h)
	}
	if in.armed.Load() || in.toWeakenListings() != 0 {
		t.Error("a timer started on a closed wheel armed a canary or was listed")
	}
}

// A sweep that finds sweepSample or more timers in toWeaken makes the
// wheel's intake eager if half or more were pending, and lazy otherwise;
// while eager, the drain weakens the pending timers it files at once, but
// for a sample that it moves to toWeaken. Another wheel's intake is left
// as it was.
func TestWeakenEager(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	w, _ := newManualWheel(t, 0)
	other, _ := newManualWheel(t, 0)
	in := &w.intake
	const n = 4 * sweepSample
	listed := func(stop bool) {
		var ts []*Timer
		for range n {
			// Beyond the lookahead, so that no pass takes it into the
			// near heap before the Reset, which re-arms it in place.
			tm := w.NewTimer(40 * time.Millisecond)
			tm.Reset(time.Hour) // in place in the store: in toWeaken
			ts = append(ts, tm)
		}
		for _, tm := range ts {
			if msg := chanRefWrong("a near timer reset far", tm.e, refToWeaken); msg != "" {
				t.Fatal(msg)
			}
			if stop {
				tm.Stop()
			}
		}
		mark := sweepMark(t, in)
		collectUntil(t, "swept", func() bool { return sweptSince(in, mark) && sweepIdle(in) })
		for _, tm := range ts {
			tm.Stop()
		}
	}
	in.eager.Store(true)
	listed(true)
	if in.eager.Load() {
		t.Error("eager after a sweep found every listed timer stopped")
	}
	listed(false)
	if !in.eager.Load() {
		t.Fatal("lazy after a sweep found every listed timer pending")
	}
	if other.intake.eager.Load() {
		t.Error("another wheel's intake turned eager")
	}

	// Eager: the drain weakens what it files, but for a sample.
	var ts []*Timer
	for range n {
		ts = append(ts, w.NewTimer(time.Hour))
	}
	w.Sync()
	weak, toWeaken := 0, 0
	for _, tm := range ts {
		switch chanRefOf(tm.e) {
		case refWeak:
			weak++
		case refToWeaken:
			toWeaken++
		}
	}
	if weak+toWeaken != n || weak < n/2 {
		t.Errorf("an eager drain weakened %d and moved %d to toWeaken of the %d timers it filed, want at least %d weakened and the rest moved", weak, toWeaken, n, n/2)
	}
	if got := in.toWeakenListings(); got != toWeaken {
		t.Errorf("%d listings in toWeaken, want %d", got, toWeaken)
	}
	for _, tm := range ts {
		tm.Stop()
	}
}

// A sweep that runs while a drain goes through an unfiled list weakens the
// timers the drain has yet to meet and the ones it has filed and holds for
// toWeaken, whose toWeaken listing then goes stale: the next sweep neither
// weakens it again nor counts it for eagerness.
func TestSweepDuringDrain(t *testing.T) {
	w, clk := newManualWheel(t, 0)
	in := newIntake(1)
	mk := func(g chanRef, h holder) *Entry {
		e := &Entry{w: w, kind: kindChan}
		e.holdCh(make(chan Time, 1))
		e.setWhen(clk.Now() + int64(100*time.Millisecond)) // within watchBeyond: no cleanup
		e.pending, e.holder, e.chanRef = true, h, g
		return e
	}
	unmet := mk(refUnfiled, intakeHolder)
	held := mk(refToWeaken, storeHolder)
	s := &in.shards[0]
	s.drained = []*Entry{held, unmet} // as the drain holds them
	in.sweep()
	for _, c := range []struct {
		what string
		e    *Entry
	}{{"a timer the drain has yet to meet", unmet}, {"a timer the drain holds for toWeaken", held}} {
		if msg := chanRefWrong(c.what+", after a sweep", c.e, refWeak); msg != "" {
			t.Error(msg)
		}
	}
	s.drained = nil
	s.toWeaken = make([]*Entry, 0, 2*sweepSample)
	for range 2 * sweepSample {
		s.toWeaken = append(s.toWeaken, held) // stale listings
	}
	in.eager.Store(true)
	in.sweep()
	if !in.eager.Load() {
		t.Error("a sweep counted stale toWeaken listings for eagerness")
	}
	if msg := chanRefWrong("a timer with a stale toWeaken listing, after a sweep", held, refWeak); msg != "" {
		t.Error(msg)
	}
}
