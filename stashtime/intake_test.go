package stashtime

import (
	"testing"
	"time"
	"unsafe"

	"github.com/stashgo/stash/internal/stash"
)

// A producer lists a timer only at or beyond the floor, and only while its
// list has room; the list that reaches intakeWake asks for the driver.
func TestIntakeListFloorAndCap(t *testing.T) {
	w, _ := newManualWheel(t, 0)
	in := newIntake(1)
	e := &entry{w: w, kind: kindFunc}
	e.setWhen(100)
	in.floor.Store(101)
	if got := in.list(e, 0); got != tooSoon {
		t.Fatalf("deadline below the floor: list = %d, want tooSoon", got)
	}
	in.floor.Store(100)
	for i := 1; i <= intakeCap; i++ {
		want := listed
		if i == intakeWake {
			want = wake
		}
		if got := in.list(e, 0); got != want {
			t.Fatalf("listing %d: list = %d, want %d", i, got, want)
		}
	}
	if got := in.list(e, 0); got != full {
		t.Fatalf("listing beyond the cap: list = %d, want full", got)
	}
	if !in.waiting() {
		t.Fatal("waiting = false with timers listed")
	}
}

// drain files the listed timers still listed and pending, forgets the
// stopped ones, leaves alone those filed elsewhere since, and raises the
// floor.
func TestIntakeDrain(t *testing.T) {
	w, clk := newManualWheel(t, 0)
	in := newIntake(1)
	now := clk.Now()
	mk := func(pending bool, holder uint8) *entry {
		e := &entry{w: w, kind: kindFunc}
		e.setFn(func() {})
		e.setWhen(now + int64(time.Hour))
		e.pending, e.holder = pending, holder
		if got := in.list(e, 0); got != listed {
			t.Fatalf("list = %d", got)
		}
		return e
	}
	pending := mk(true, intakeHolder)
	stopped := mk(false, intakeHolder)
	moved := mk(true, heapHolder)
	floor := in.drain(w, now)
	if floor != now+intakeAhead || in.floor.Load() != floor {
		t.Errorf("floor %d (stored %d), want %d", floor, in.floor.Load(), now+intakeAhead)
	}
	if in.waiting() {
		t.Error("waiting = true after the drain")
	}
	pending.lock()
	if pending.holder != storeHolder || pending.slot == (stash.Ref{}) {
		t.Errorf("pending timer after the drain: holder %d, slot %v", pending.holder, pending.slot)
	}
	pending.disarm()
	pending.unqueue()
	pending.unlock()
	if stopped.holder != noHolder {
		t.Errorf("stopped timer after the drain: holder %d, want noHolder", stopped.holder)
	}
	if moved.holder != heapHolder {
		t.Errorf("timer filed elsewhere: holder %d, want heapHolder", moved.holder)
	}
}

// A timer due far enough ahead is listed when it starts, and reaches the
// store by the next pass; stopped first, it never does.
func TestIntakeStartAndStop(t *testing.T) {
	w, _ := newManualWheel(t, 0)
	tm := w.AfterFunc(time.Hour, func() {})
	w.Sync()
	tm.e.lock()
	h := tm.e.holder
	tm.e.unlock()
	if h != storeHolder {
		t.Errorf("holder after a pass: %d, want storeHolder", h)
	}
	if !tm.Stop() {
		t.Error("Stop of a pending timer returned false")
	}
	near := w.AfterFunc(intakeAhead-1, func() {})
	near.e.lock()
	h = near.e.holder
	near.e.unlock()
	if h != storeHolder {
		t.Errorf("a timer due within intakeAhead: holder %d, want storeHolder", h)
	}
	near.Stop()
}

// The intake's floor, which the driver writes every pass, is kept off the
// cache lines of the fields that producers only read.
func TestIntakeFloorLine(t *testing.T) {
	var w Wheel
	f := unsafe.Offsetof(w.intake) + unsafe.Offsetof(w.intake.floor)
	for name, off := range map[string]uintptr{
		"store": unsafe.Offsetof(w.store), "bucket": unsafe.Offsetof(w.bucket),
		"reach": unsafe.Offsetof(w.reach), "stopped": unsafe.Offsetof(w.stopped),
	} {
		if f/128 == off/128 {
			t.Errorf("intake.floor (offset %d) shares a 128-byte pair of lines with %s (offset %d)", f, name, off)
		}
	}
}
