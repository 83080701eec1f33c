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

// TestCrowding checks when sleeps go through the scheduler: never in a quiet
// process, and in a crowded one (every P busy, goroutines waiting) only
// from the crowdedAfter-th sleep in a row that finds it so.
func TestCrowding(t *testing.T) {
	probe := []metrics.Sample{{Name: "/sched/goroutines/runnable:goroutines"}}
	if metrics.Read(probe); probe[0].Value.Kind() != metrics.KindUint64 {
		t.Skip("runtime/metrics has no scheduler counts before Go 1.26")
	}
	var c crowding
	c.init()
	// Let the goroutines that started the test block first: with
	// GOMAXPROCS=1 the one that started it still waits to run.
	for i := 0; c.check() || c.run > 0; i++ {
		if i == 1000 {
			t.Fatalf("a quiet process is crowded: %v", c.counts())
		}
		runtime.Gosched()
	}
	for range 2 * crowdedAfter {
		if c.check() {
			t.Fatalf("a quiet process is crowded: %v", c.counts())
		}
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
	// then a reading may find a P idle, which starts the count again.
	for limit := time.Now().Add(10 * time.Second); ; {
		if c.check() {
			if c.run != crowdedAfter {
				t.Fatalf("handed off after %d crowded sleeps in a row, want %d", c.run, crowdedAfter)
			}
			break
		}
		if time.Now().After(limit) {
			t.Fatalf("not crowded in 10 s with %d spinners: %v", 2*runtime.GOMAXPROCS(0), c.counts())
		}
		runtime.Gosched()
	}
	stop.Store(true)
	wg.Wait()
	// The first reading that finds a P idle, or nothing waiting, starts
	// the count again.
	for limit := time.Now().Add(10 * time.Second); c.check() || c.run > 0; runtime.Gosched() {
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
// sleep makes before it starts.
func BenchmarkCrowding(b *testing.B) {
	var c crowding
	c.init()
	b.ReportAllocs()
	for b.Loop() {
		c.check()
	}
}
