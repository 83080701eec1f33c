package stashtime

import (
	"testing"
	"time"
	"unsafe"
	"weak"
)

// entry.ref holds a weak.Pointer and a func value as one pointer word.
func TestEntryRefLayout(t *testing.T) {
	if got := unsafe.Sizeof(weak.Pointer[hchan]{}); got != unsafe.Sizeof(unsafe.Pointer(nil)) {
		t.Fatalf("weak.Pointer is %d bytes, not one pointer: entry.ref cannot hold it", got)
	}
	if got := unsafe.Sizeof(func() {}); got != unsafe.Sizeof(unsafe.Pointer(nil)) {
		t.Fatalf("a func value is %d bytes, not one pointer", got)
	}
	if got := unsafe.Sizeof(funcTimer{}); got > 64 {
		t.Errorf("an AfterFunc timer takes %d bytes; keep it within the 64-byte size class", got)
	}
}

func TestEntryRefRoundTrip(t *testing.T) {
	var e entry
	called := false
	e.setFn(func() { called = true })
	e.fn()()
	if !called {
		t.Fatal("func did not survive ref")
	}
	c := make(chan Time, 1)
	e.setCh(c)
	if e.ch() != c {
		t.Fatal("channel did not survive ref")
	}
}

// A Reset opens a pending AfterFunc timer, and a channel timer armed
// beyond weakBeyond, and a later Reset then moves the deadline by the CAS
// alone, without the timer's lock: here it succeeds while the test holds
// that lock. The driver is held, so that nothing else takes it.
func TestResetLaterTakesNoLock(t *testing.T) {
	w, hp, _ := newHeldWheel(t)
	hp.hold(t, w)
	for _, tm := range []*Timer{w.AfterFunc(time.Second, func() {}), w.NewTimer(weakBeyond + time.Second)} {
		d := time.Duration(tm.e.when()) // later than now: the clock reads 0
		if !tm.Reset(d) {
			t.Fatal("Reset of a pending timer returned false")
		}
		if tm.e.dl.Load() >= 0 {
			t.Errorf("kind %d: closed after a Reset, so the next one takes the lock", tm.e.kind)
			continue
		}
		tm.e.mu.Lock()
		done := make(chan bool)
		go func() { done <- tm.Reset(d + time.Second) }()
		select {
		case ok := <-done:
			if !ok {
				t.Errorf("kind %d: Reset to a later deadline returned false", tm.e.kind)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("kind %d: Reset to a later deadline waited 10 s for the timer's lock", tm.e.kind)
		}
		tm.e.mu.Unlock()
		tm.e.lock()
		got, want := tm.e.when(), int64(d+time.Second)
		tm.e.unlock()
		if got != want {
			t.Errorf("kind %d: deadline %d after the Reset, want %d", tm.e.kind, got, want)
		}
	}
}
