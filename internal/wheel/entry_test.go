package wheel

import (
	"testing"
	"time"
	"unsafe"
	"weak"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// entry.ref holds a weak.Pointer and a func value as one pointer word.
func TestEntryRefLayout(t *testing.T) {
	ptr := unsafe.Sizeof(unsafe.Pointer(nil))
	require.Equal(t, ptr, unsafe.Sizeof(weak.Pointer[hchan]{}), "weak.Pointer is not one pointer: entry.ref cannot hold it")
	require.Equal(t, ptr, unsafe.Sizeof(func() {}), "a func value is not one pointer")
	// An AfterFunc timer is a Timer (two words) and an Entry in one
	// allocation.
	assert.LessOrEqual(t, 2*ptr+unsafe.Sizeof(Entry{}), uintptr(64), "an AfterFunc timer's bytes; keep it within the 64-byte size class")
}

func TestEntryRefRoundTrip(t *testing.T) {
	var e Entry
	called := false
	e.setFn(func() { called = true })
	e.fn()()
	require.True(t, called, "func did not survive ref")
	c := make(chan Time, 1)
	e.setCh(c)
	require.Equal(t, c, e.ch(), "channel did not survive ref")
}

// A Reset opens a pending AfterFunc timer, and a channel timer armed
// beyond weakBeyond, and a later Reset then moves the deadline by the CAS
// alone, without the timer's lock: here it succeeds while the test holds
// that lock. The driver is held, so that nothing else takes it.
func TestResetLaterTakesNoLock(t *testing.T) {
	skipIfChecked(t)
	w, hp, _ := newHeldWheel(t)
	hp.hold(t, w)
	for _, tm := range []*Timer{w.AfterFunc(time.Second, func() {}), w.NewTimer(weakBeyond + time.Second)} {
		d := time.Duration(tm.e.when()) // later than now: the clock reads 0
		require.True(t, tm.Reset(d), "Reset of a pending timer")
		if !assert.Negative(t, tm.e.dl.Load(), "kind %v: closed after a Reset, so the next one takes the lock", tm.e.kind) {
			continue
		}
		tm.e.mu.Lock()
		done := make(chan bool)
		go func() { done <- tm.Reset(d + time.Second) }()
		select {
		case ok := <-done:
			assert.True(t, ok, "kind %v: Reset to a later deadline", tm.e.kind)
		case <-time.After(10 * time.Second):
			t.Fatalf("kind %v: Reset to a later deadline waited 10 s for the timer's lock", tm.e.kind)
		}
		tm.e.mu.Unlock()
		tm.e.lock()
		got, want := tm.e.when(), int64(d+time.Second)
		tm.e.unlock()
		assert.Equal(t, want, got, "kind %v: deadline after the Reset", tm.e.kind)
	}
}
