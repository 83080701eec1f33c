package poller

import (
	"fmt"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestCrowding checks how sleeps wait: keeping the P in a quiet process,
// even after a late wake-up; in a crowded one (every P busy, goroutines
// waiting) without it from the crowdedAfter-th sleep in a row that finds
// it so, and through the scheduler once a timerfd wake-up came late; and
// keeping it again once the Ps are found not crowded, which forgets the
// late wake-up.
func TestCrowding(t *testing.T) {
	probe := []metrics.Sample{{Name: "/sched/goroutines/runnable:goroutines"}}
	if metrics.Read(probe); probe[0].Value.Kind() != metrics.KindUint64 {
		t.Skip("runtime/metrics has no scheduler counts before Go 1.26")
	}
	var c crowding
	c.init()
	// A late wake-up, and then a reading that finds the Ps not crowded
	// (the goroutines that started the test, or other tests, may crowd
	// them for a moment): it is forgotten.
	c.woke(lateWake)
	for i := 0; i == 0 || c.run > 0; i++ {
		if i == 1000 {
			t.Fatalf("a quiet process is crowded: %v", c.counts())
		}
		c.check()
		runtime.Gosched()
	}
	if c.late || c.scheduled() {
		t.Fatalf("a late wake-up outlived a reading of Ps not crowded: %v", c.counts())
	}

	// Twice as many spinning goroutines as Ps: all run, the rest wait.
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range 2 * runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
			}
		}()
	}
	defer func() { stop.Store(true); wg.Wait() }()
	// The spinners take a while to start (a thread each, at first); until
	// then a reading may find a P idle.
	for limit := time.Now().Add(10 * time.Second); ; runtime.Gosched() {
		how := c.check()
		if how == waitOnTimer {
			t.Fatal("crowded Ps went through the scheduler before a late wake-up")
		}
		if how == waitWithoutP {
			if c.run != crowdedAfter {
				t.Fatalf("gave the P up after %d crowded sleeps in a row, want %d", c.run, crowdedAfter)
			}
			break
		}
		if time.Now().After(limit) {
			t.Fatalf("not crowded in 10 s with %d spinners: %v", 2*runtime.GOMAXPROCS(0), c.counts())
		}
	}
	c.woke(lateWake - 1) // on time enough
	c.woke(lateWake)
	for limit := time.Now().Add(10 * time.Second); c.check() != waitOnTimer; runtime.Gosched() {
		if time.Now().After(limit) {
			t.Fatalf("crowded, after a late wake-up, yet no sleep through the scheduler in 10 s: %v", c.counts())
		}
	}
	stop.Store(true)
	wg.Wait()
	// The first reading that finds a P idle, or nothing waiting, ends it
	// and forgets the late wake-up.
	for limit := time.Now().Add(10 * time.Second); c.check() != waitKeepP || c.late; runtime.Gosched() {
		if time.Now().After(limit) {
			t.Fatalf("still crowded 10 s after the spinners stopped: %v", c.counts())
		}
	}
}

// counts returns the last reading, for failure messages.
func (c *crowding) counts() string {
	var b strings.Builder
	for i, s := range c.samples {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %d", s.Name, s.Value.Uint64())
	}
	return b.String()
}

// BenchmarkCrowding measures a reading of the scheduler's state, which a
// sleep makes as it starts.
func BenchmarkCrowding(b *testing.B) {
	var c crowding
	c.init()
	b.ReportAllocs()
	for b.Loop() {
		c.check()
	}
}
