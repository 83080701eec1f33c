package stashtime

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestCounterSumsEveryAdd: adds from many goroutines at once, which the
// scheduler spreads over the Ps (and moves between them), all count.
func TestCounterSumsEveryAdd(t *testing.T) {
	c := newCounter()
	n := len(c.cells)
	require.True(t, n != 0 && n&(n-1) == 0, "%d cells, want a power of two", n)
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
	require.Equal(t, want, c.load(), "load() after the adds")
}

// TestCounterAddReturnsTheCell: add returns the value of the cell it added
// to, which a single goroutine's adds of one step through one by one while
// it stays on one P, and which never exceeds the sum.
func TestCounterAddReturnsTheCell(t *testing.T) {
	c := newCounter()
	for i := range 1000 {
		v := c.add(1)
		require.GreaterOrEqual(t, v, int64(1), "add #%d", i+1)
		require.LessOrEqual(t, v, int64(i+1), "add #%d", i+1)
	}
	require.Equal(t, int64(1000), c.load(), "load()")
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
		// By hand, not require: the loop reads live as often as it can.
		if n := w.live(); n < 1 {
			t.Fatalf("read %d: live() = %d with a timer armed throughout", reads, n)
		}
		select {
		case <-done:
			require.Equal(t, int64(1), w.live(), "live() after the churn")
			return
		default:
		}
	}
}
