package wheel

import (
	"math"
	"runtime/debug"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/stashgo/stash/internal/stash"
	"github.com/stretchr/testify/require"
)

// newLoneIntake returns an intake of one shard, no wheel's, with its floor
// at 100, and a func timer's entry due then.
func newLoneIntake(t *testing.T) (*intake, *Entry) {
	w, _ := newManualWheel(t, 0)
	in := newIntake(1)
	in.floor.Store(100)
	e := &Entry{w: w, kind: kindFunc}
	e.setWhen(100)
	return &in, e
}

// A producer lists a timer to be filed only at or beyond the floor, and
// only while its list has room; the list that reaches intakeWake asks for
// the driver.
func TestIntakeListFloorAndCap(t *testing.T) {
	in, e := newLoneIntake(t)
	in.floor.Store(101)
	if got := in.listUnfiled(e, 0, false); got != tooSoon {
		t.Fatalf("deadline below the floor: listUnfiled = %d, want tooSoon", got)
	}
	in.floor.Store(100)
	for i := 1; i <= intakeCap; i++ {
		want := listed
		if i == intakeWake {
			want = wake
		}
		if got := in.listUnfiled(e, 0, false); got != want {
			t.Fatalf("listing %d: listUnfiled = %d, want %d", i, got, want)
		}
	}
	if got := in.listUnfiled(e, 0, false); got != full {
		t.Fatalf("listing beyond the cap: listUnfiled = %d, want full", got)
	}
	if !in.waiting() {
		t.Fatal("waiting = false with timers listed")
	}
}

// drain files the listed timers still listed and pending, moves a channel
// timer listed to be weakened too to its shard's toWeaken, forgets the
// stopped ones, leaves alone those filed elsewhere since, and raises the
// floor.
func TestIntakeDrain(t *testing.T) {
	w, clk := newManualWheel(t, 0)
	in := newIntake(1)
	now := clk.Now()
	mk := func(pending bool, h holder) *Entry {
		e := &Entry{w: w, kind: kindFunc}
		e.setFn(func() {})
		e.setWhen(now + int64(time.Hour))
		e.pending, e.holder = pending, h
		if got := in.listUnfiled(e, 0, false); got != listed {
			t.Fatalf("listUnfiled = %d", got)
		}
		return e
	}
	pending := mk(true, intakeHolder)
	stopped := mk(false, intakeHolder)
	moved := mk(true, heapHolder)
	far := &Entry{w: w, kind: kindChan}
	far.holdCh(make(chan Time, 1))
	far.setWhen(now + int64(time.Hour))
	far.pending, far.holder, far.chanRef = true, intakeHolder, refUnfiled
	if got := in.listUnfiled(far, 0, false); got != listed {
		t.Fatalf("listUnfiled = %d", got)
	}
	through := w.drv.walkEnd(now)
	floor := in.drain(now, func(e *Entry) { w.drv.take(e, now, through) })
	if floor != now+intakeAhead || in.floor.Load() != floor {
		t.Errorf("floor %d (stored %d), want %d", floor, in.floor.Load(), now+intakeAhead)
	}
	if in.waiting() {
		t.Error("waiting = true after the drain")
	}
	pending.lock()
	if pending.holder != storeHolder || pending.slot == (stash.Ref{}) {
		t.Errorf("pending timer after the drain: holder %v, slot %v", pending.holder, pending.slot)
	}
	pending.disarm()
	pending.dropHolder()
	pending.unlock()
	if stopped.holder != noHolder || stopped.loc != 0 {
		t.Errorf("stopped timer after the drain: holder %v, loc %d, want none and 0 (no listing to restart)",
			stopped.holder, stopped.loc)
	}
	if moved.holder != heapHolder {
		t.Errorf("timer filed elsewhere: holder %v, want heap", moved.holder)
	}
	if far.holder != storeHolder || far.chanRef != refToWeaken {
		t.Errorf("channel timer listed to be weakened too, after the drain: holder %v, chanRef %v; want store, toWeaken",
			far.holder, far.chanRef)
	}
	if s := &in.shards[0]; len(s.toWeaken) != 1 || s.toWeaken[0] != far || !in.armed.Load() {
		t.Errorf("toWeaken after the drain: %d listings, armed %v; want the channel timer, and a canary armed",
			len(s.toWeaken), in.armed.Load())
	}
	far.lock()
	far.disarm()
	far.dropHolder()
	far.unlock()
}

// A timer due far enough ahead is listed when it starts, and reaches the
// store by the next pass; stopped first, it never does. The driver is held
// until the checks of the listings are done.
func TestIntakeStartAndStop(t *testing.T) {
	w, hp, _ := newHeldWheel(t)
	hp.hold(t, w)
	tm := w.AfterFunc(time.Hour, func() {})
	early := w.AfterFunc(time.Hour, func() {})
	if h := holderOf(tm.e); h != intakeHolder {
		t.Errorf("holder of a new hour timer: %v, want intake", h)
	}
	if !early.Stop() {
		t.Error("Stop of a listed timer returned false")
	}
	hp.unhold()
	w.Sync()
	if h := holderOf(tm.e); h != storeHolder {
		t.Errorf("holder after a pass: %v, want store", h)
	}
	if h := holderOf(early.e); h != noHolder {
		t.Errorf("holder of the timer stopped before the pass: %v, want none", h)
	}
	if n := w.holes.Load(); n != 0 {
		t.Errorf("the timer stopped while listed emptied %d store slots, want 0", n)
	}
	if !tm.Stop() {
		t.Error("Stop of a pending timer returned false")
	}
	near := w.AfterFunc(intakeAhead-1, func() {})
	if h := holderOf(near.e); h != storeHolder {
		t.Errorf("a timer due within intakeAhead: holder %v, want store", h)
	}
	near.Stop()
}

// The intake's floor, which the driver writes every pass, is kept off the
// cache lines of the fields that producers only read, and shares
// sleepUntil's pair of lines with the armed flag, which producers read.
func TestIntakeFloorLine(t *testing.T) {
	var w Wheel
	f := unsafe.Offsetof(w.intake) + unsafe.Offsetof(w.intake.floor)
	a := unsafe.Offsetof(w.intake) + unsafe.Offsetof(w.intake.armed)
	if su := unsafe.Offsetof(w.sleepUntil); f/128 != su/128 || a/128 != su/128 {
		t.Errorf("intake.floor (offset %d) or intake.armed (offset %d) is off sleepUntil's pair of lines (offset %d)", f, a, su)
	}
	for name, off := range map[string]uintptr{
		"store": unsafe.Offsetof(w.store), "bucket": unsafe.Offsetof(w.bucket),
		"reach": unsafe.Offsetof(w.reach), "stopped": unsafe.Offsetof(w.stopped),
	} {
		if f/128 == off/128 {
			t.Errorf("intake.floor (offset %d) shares a 128-byte pair of lines with %s (offset %d)", f, name, off)
		}
	}
}

// listings returns how many listings the intake's unfiled lists hold.
func (in *intake) listings() int {
	n := 0
	for i := range in.shards {
		s := &in.shards[i]
		s.mu.Lock()
		n += len(s.unfiled)
		s.mu.Unlock()
	}
	return n
}

// A timer stopped while listed and armed again far revives its listing
// instead of appending another, at a later deadline or an earlier one (at
// or beyond the floor), and fires once, at its last deadline. Once the
// drain has met the listing, an arming appends a new one.
func TestIntakeRelist(t *testing.T) {
	w, hp, clk := newHeldWheel(t)
	hp.hold(t, w) // the driver drains nothing until unhold
	start := clk.Now()
	tm := w.NewTimer(time.Hour)
	if n := w.intake.listings(); n != 1 {
		t.Fatalf("%d listings after NewTimer, want 1", n)
	}
	for _, d := range []time.Duration{2 * time.Hour, 30 * time.Minute, 45 * time.Minute} {
		if !tm.Stop() {
			t.Fatal("Stop of a pending timer returned false")
		}
		if tm.Reset(d) {
			t.Fatal("Reset of a stopped timer returned true")
		}
		if n := w.intake.listings(); n != 1 {
			t.Fatalf("%d listings after Stop and Reset(%v), want 1", n, d)
		}
	}
	hp.unhold()
	w.Sync() // the drain files the timer, once
	if n := w.intake.listings(); n != 0 {
		t.Fatalf("%d listings after the drain, want 0", n)
	}
	clk.Set(start + int64(45*time.Minute) - 1)
	w.Sync()
	if len(tm.C) != 0 {
		t.Fatal("fired before its deadline")
	}
	clk.Set(start + int64(45*time.Minute))
	w.Sync()
	if len(tm.C) != 1 {
		t.Fatal("did not fire at its deadline")
	}
	<-tm.C
	clk.Set(start + int64(3*time.Hour))
	w.Sync()
	if len(tm.C) != 0 {
		t.Fatal("fired twice")
	}
}

// A timer stopped while listed, whose stale listing the drain then meets,
// is listed anew by a later Reset, and fires at its deadline.
func TestIntakeRelistAfterDrain(t *testing.T) {
	w, clk := newManualWheel(t, 0)
	start := clk.Now()
	tm := w.NewTimer(time.Hour)
	tm.Stop()
	w.Sync() // the drain meets the stale listing
	tm.Reset(time.Hour)
	clk.Set(start + int64(time.Hour))
	w.Sync()
	if len(tm.C) != 1 {
		t.Fatal("a timer reset after its stale listing was drained did not fire")
	}
}

// Two listings of one timer, in turn stale: the timer is filed once, at its
// last deadline, and fires once.
func TestIntakeTwoListings(t *testing.T) {
	w, hp, clk := newHeldWheel(t)
	hp.hold(t, w)
	start := clk.Now()
	var fired atomic.Int32
	tm := w.AfterFunc(time.Hour, func() { fired.Add(1) })
	tm.Stop()
	tm.Reset(storeNear)     // filed in the store: the listing stays
	tm.Stop()               // its slot emptied: nothing left to restart
	tm.Reset(2 * time.Hour) // listed again
	if n := w.intake.listings(); n != 2 {
		t.Fatalf("%d listings, want 2", n)
	}
	tm.Stop()
	tm.Reset(90 * time.Minute) // revives the second
	if n := w.intake.listings(); n != 2 {
		t.Fatalf("%d listings after a revival, want 2", n)
	}
	hp.unhold()
	w.Sync()
	if holder := holderOf(tm.e); holder != storeHolder {
		t.Fatalf("holder %v after the drain, want store", holder)
	}
	clk.Set(start + int64(90*time.Minute) - 1)
	w.Sync()
	if fired.Load() != 0 {
		t.Fatal("fired early")
	}
	clk.Set(start + int64(3*time.Hour))
	w.Sync()
	waitUntil(t, "fired", func() bool { return fired.Load() == 1 })
	if tm.Stop() {
		t.Fatal("Stop after the firing returned true")
	}
	if fired.Load() != 1 {
		t.Fatalf("fired %d times, want 1", fired.Load())
	}
}

// relist lists again only what listUnfiled would list: at or beyond the
// floor, and not on a closed wheel's intake.
func TestIntakeRelistFloorAndClosed(t *testing.T) {
	in, e := newLoneIntake(t)
	if got := in.listUnfiled(e, 0, false); got != listed || e.loc != 1 {
		t.Fatalf("listUnfiled = %d, loc %d; want listed, loc 1", got, e.loc)
	}
	if got := in.relist(e, 0, false); got != listed {
		t.Fatalf("relist at the floor = %d, want listed", got)
	}
	in.floor.Store(101)
	if got := in.relist(e, 0, false); got != tooSoon {
		t.Fatalf("relist below the floor = %d, want tooSoon", got)
	}
	in.floor.Store(100)
	in.close()
	if got := in.relist(e, 0, false); got != tooSoon {
		t.Fatalf("relist on a closed intake = %d, want tooSoon", got)
	}
}

// A new timer started (listed without its lock by listNew, from
// intakeAhead on) ends in the state the locked path (place, weakenLater)
// gives a timer: listed to be filed from intakeAhead on, in the store
// before, and a channel from weakBeyond on weakened once filed
// (refUnfiled). Func and channel timers on both sides of intakeAhead and
// weakBeyond. The states are written out, not computed by a copy of the
// locked path.
func TestListNewAsLocked(t *testing.T) {
	skipIfChecked(t)                                 // the checker takes the entry's lock after start, which opens it
	defer debug.SetGCPercent(debug.SetGCPercent(-1)) // a sweep would weaken one of a pair
	w, hp, clk := newHeldWheel(t)
	mark := sweepMark(t, &w.intake)
	hp.hold(t, w) // nothing drains the listings meanwhile
	type state struct {
		pending        bool
		holder         holder
		chanRef        chanRef
		loc            uint32
		dl             int64
		slotZero, open bool
	}
	stateOf := func(e *Entry) state {
		e.mu.Lock()
		defer e.mu.Unlock()
		loc := e.loc
		if e.holder == intakeHolder && loc != 0 {
			loc = 1 // a listing recorded; its shard depends on the P
		}
		return state{e.pending, e.holder, e.chanRef, loc, e.dl.Load(), e.slot == (stash.Ref{}), e.dl.Load() < 0}
	}
	for _, kind := range []timerKind{kindFunc, kindChan} {
		for _, d := range []time.Duration{intakeAhead - 1, intakeAhead, weakBeyond - 1, weakBeyond, time.Hour} {
			now := clk.Now()
			when := deadline(now, d)
			e := &Entry{w: w, kind: kind}
			want := state{pending: true, dl: when}
			if kind == kindChan {
				e.holdCh(make(chan Time, 1))
				want.chanRef = refStrong
				if d >= weakBeyond {
					want.chanRef = refUnfiled
				}
			} else {
				e.setFn(func() {})
			}
			if d >= intakeAhead {
				want.holder, want.loc, want.slotZero = intakeHolder, 1, true
			} else {
				want.holder, want.loc = storeHolder, w.bucketNum(w.bucketOf(when))
			}
			w.start(e, now, when)
			if got := stateOf(e); got != want {
				if sweptSince(&w.intake, mark) {
					t.Skip("a sweep the test did not ask for ran, after a collection from before it")
				}
				t.Errorf("kind %v, d %v: started %+v, want %+v", kind, d, got, want)
			}
		}
	}
}

// holderOf reads e.holder under e.mu.
func holderOf(e *Entry) holder {
	e.lock()
	defer e.unlock()
	return e.holder
}

// storeNear is a distance at which a new timer is filed in the store: past
// the lookahead, within which it is listed for the near heap, and short of
// intakeAhead, beyond which it is listed to be filed.
const storeNear = 30 * time.Millisecond

// A func or channel timer armed within the lookahead is listed for the near
// heap, not filed in the store: the drain takes it into the heap, and it
// fires at its deadline. One at or below the clock reading of the last
// drain (nearFloor) is too soon to list: a pass fires only what is due by
// its reading, so every timer listed after its drain is due after them.
func TestIntakeNear(t *testing.T) {
	w, hp, clk := newHeldWheel(t)
	hp.hold(t, w)
	fired := make(chan struct{}, 1)
	const d = time.Millisecond
	tm := w.AfterFunc(d, func() { fired <- struct{}{} })
	c := w.NewTimer(2 * d)
	for _, e := range []*Entry{tm.e, c.e} {
		e.mu.Lock()
		h := e.holder
		e.mu.Unlock()
		require.Equal(t, intakeHolder, h, "a timer within the lookahead is listed")
	}
	require.Equal(t, 2, w.intake.listings())
	_, filed := w.store.NextBucket(math.MaxUint64)
	require.False(t, filed, "nothing filed in the store")
	hp.unhold()
	w.Sync()
	require.Zero(t, w.intake.listings(), "drained")
	tm.e.mu.Lock()
	h := tm.e.holder
	tm.e.mu.Unlock()
	require.Equal(t, heapHolder, h, "the drain takes a near timer into the near heap")
	select {
	case <-fired:
		t.Fatal("fired before its deadline")
	default:
	}
	clk.Advance(2 * d)
	<-fired
	<-c.C

	in, e := newLoneIntake(t)
	in.nearFloor.Store(100)
	require.Equal(t, tooSoon, in.listUnfiled(e, 0, true), "a near deadline at nearFloor")
	in.nearFloor.Store(99)
	require.Equal(t, listed, in.listUnfiled(e, 0, true), "a near deadline beyond nearFloor")
}
