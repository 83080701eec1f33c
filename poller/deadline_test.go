package poller

// No testify here: it links net/http, whose presence keeps the runtime
// from reporting the deadlock TestDeadlockDetected expects.

import (
	"math"
	"runtime"
	"testing"
	"time"

	"github.com/stashgo/stash/internal/clock"
)

func TestLater(t *testing.T) {
	for _, c := range []struct {
		now  int64
		d    time.Duration
		want int64
	}{
		{5, 10, 15},
		{5, -10, -5}, // a deadline in the past
		{5, math.MinInt64, math.MinInt64 + 5},
		{5, math.MaxInt64, NoDeadline}, // beyond the clock's range
		{math.MaxInt64 - 10, 11, NoDeadline},
		{math.MaxInt64 - 10, 9, math.MaxInt64 - 1},
	} {
		if got := later(c.now, c.d); got != c.want {
			t.Errorf("later(%d, %d) = %d, want %d", c.now, c.d, got, c.want)
		}
	}
}

// TestDeadline: Deadline places an instant on the system clock, never
// early and late by little, and saturates.
func TestDeadline(t *testing.T) {
	before := Now()
	d := Deadline(time.Now().Add(time.Second))
	after := Now()
	if d < before+int64(time.Second) {
		t.Errorf("Deadline(now+1s) = %d, early: the clock read %d before", d, before)
	}
	if d > after+int64(time.Second) {
		t.Errorf("Deadline(now+1s) = %d, beyond %d, 1s after the clock read after", d, after+int64(time.Second))
	}
	if got := Deadline(time.Now().Add(math.MaxInt64)); got != NoDeadline {
		t.Errorf("Deadline(far future) = %d, want NoDeadline", got)
	}
	if got, now := Deadline(time.Time{}), Now(); got >= now {
		t.Errorf("Deadline(zero Time) = %d, not before now %d", got, now)
	}
	// Without a monotonic reading, by the wall clock.
	want := Now() + int64(time.Hour)
	if got := Deadline(time.Now().Add(time.Hour).Round(0)); got < want-int64(time.Second) || got > want+int64(time.Second) {
		t.Errorf("Deadline(wall time an hour ahead) = %d, want %d within 1s", got, want)
	}
}

// TestWaitForUntilSystem: WaitFor and WaitUntil on the system clock, for
// both pollers and for a Poller made elsewhere (a wrapper), never return
// early, and return at once for the past.
func TestWaitForUntilSystem(t *testing.T) {
	forEach(t, func(t *testing.T, p Poller) {
		wrapped := struct{ Poller }{p}
		for _, q := range []Poller{p, wrapped} {
			start := time.Now()
			if err := WaitFor(q, 2*time.Millisecond); err != nil {
				t.Fatal(err)
			}
			if el := time.Since(start); el < 2*time.Millisecond {
				t.Errorf("WaitFor(2ms) returned after %v", el)
			}
			at := time.Now().Add(2 * time.Millisecond)
			if err := WaitUntil(q, at); err != nil {
				t.Fatal(err)
			}
			if now := time.Now(); now.Before(at) {
				t.Errorf("WaitUntil returned %v early", at.Sub(now))
			}
			if err := WaitFor(q, -time.Second); err != nil {
				t.Fatal(err)
			}
			if err := WaitUntil(q, time.Time{}); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// TestWaitForUntilManual: on a manual clock the deadlines are the clock's:
// WaitFor and WaitUntil return when it is advanced there, not before.
func TestWaitForUntilManual(t *testing.T) {
	m := clock.NewManual(1000)
	p := NewPortable(m)
	defer p.Close()
	waitManual := func(wait func() error, short, rest time.Duration) {
		t.Helper()
		done := make(chan error, 1)
		go func() { done <- wait() }()
		for m.Waiters() == 0 {
			runtime.Gosched()
		}
		m.Advance(short)
		if n := m.Waiters(); n != 1 {
			t.Fatalf("%d waiters after advancing short of the deadline, want 1", n)
		}
		select {
		case err := <-done:
			t.Fatalf("returned %v short of the deadline", err)
		default:
		}
		m.Advance(rest)
		expectReturn(t, done, nil)
	}
	waitManual(func() error { return WaitFor(p, time.Hour) }, 59*time.Minute, time.Minute)
	at := m.Time(m.Now()).Add(2 * time.Hour)
	waitManual(func() error { return WaitUntil(p, at) }, 2*time.Hour-1, 1)
	if err := WaitUntil(p, at.Add(-time.Nanosecond)); err != nil { // passed: at once
		t.Fatal(err)
	}
}

// nowOnly is a clock with Now alone, no Time: WaitUntil places an instant
// on it by the wall clock.
type nowOnly struct{}

func (nowOnly) Now() int64 { return 1 << 40 }

func TestWaitUntilNowOnly(t *testing.T) {
	p := NewPortable(nowOnly{})
	defer p.Close()
	if err := WaitUntil(p, time.Now().Add(-time.Second)); err != nil { // past: at once
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- WaitUntil(p, time.Now().Add(time.Hour)) }()
	select {
	case err := <-done: // the clock stands still: only a Wake ends it
		t.Fatalf("returned %v with the clock standing still", err)
	case <-time.After(20 * time.Millisecond):
	}
	p.Wake()
	expectReturn(t, done, nil)
}
