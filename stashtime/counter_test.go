package stashtime

import (
	"sync"
	"testing"
	"time"
)

// TestCounterSumsEveryAdd: adds from many goroutines at once, which the
// scheduler spreads over the Ps (and moves between them), all count.
func TestCounterSumsEveryAdd(t *testing.T) {
	c := newCounter()
	if n := len(c.cells); n&(n-1) != 0 || n == 0 {
		t.Fatalf("%d cells, want a power of two", n)
	}
	const goroutines, adds = 16, 20_000
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range adds {
				c.add(int64(g + i%3 - 1)) // g-1, g, g+1 in turn
			}
		}()
	}
	wg.Wait()
	want := int64(0)
	for g := range goroutines {
		for i := range adds {
			want += int64(g + i%3 - 1)
		}
	}
	if got := c.load(); got != want {
		t.Fatalf("load() = %d after the adds, want %d", got, want)
	}
}

// TestCounterAddReturnsTheCell: add returns the value of the cell it added
// to, which a single goroutine's adds of one step through one by one while
// it stays on one P, and which never exceeds the sum.
func TestCounterAddReturnsTheCell(t *testing.T) {
	c := newCounter()
	for i := range 1000 {
		if v := c.add(1); v < 1 || v > int64(i+1) {
			t.Fatalf("add #%d returned %d", i+1, v)
		}
	}
	if got := c.load(); got != 1000 {
		t.Fatalf("load() = %d, want 1000", got)
	}
}

// TestLiveNeverMissesAnArmedTimer: while goroutines start timers and hand
// them to other goroutines to stop (so that a start and its Stop land in
// different cells), live never reads less than the one timer that stays
// armed throughout. The driver goes idle on a zero.
func TestLiveNeverMissesAnArmedTimer(t *testing.T) {
	w, _ := newManualWheel(t, 0)
	f := func() {}
	w.AfterFunc(time.Hour, f) // armed throughout
	const pairs, timers = 2, 20_000
	handoff := make(chan *Timer, 64)
	var wg sync.WaitGroup
	for range pairs {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for range timers {
				handoff <- w.AfterFunc(time.Minute, f)
			}
		}()
		go func() {
			defer wg.Done()
			for range timers {
				(<-handoff).Stop()
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for reads := 0; ; reads++ {
		if n := w.live(); n < 1 {
			t.Fatalf("read %d: live() = %d with a timer armed throughout", reads, n)
		}
		select {
		case <-done:
			if n := w.live(); n != 1 {
				t.Fatalf("live() = %d after the churn, want 1", n)
			}
			return
		default:
		}
	}
}
