package stashtime

import (
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"
)

// jumpClock is a ManualClock that, once armed, jumps to `to` right after
// the next reading: the clock moving on while the driver is between the two
// readings of one pass (preemption, a long walk, a long intake drain).
type jumpClock struct {
	*ManualClock
	armed atomic.Bool
	to    int64
}

func (c *jumpClock) Now() int64 {
	v := c.ManualClock.Now()
	if c.armed.CompareAndSwap(true, false) {
		c.ManualClock.Set(c.to)
	}
	return v
}

// A pass that starts just before a pre-walked bucket walks only up to the
// bucket its first clock reading lies in, and its second reading, for the
// fire loop, may have entered the pre-walked bucket. It must not fire the
// heap's timers there ahead of an earlier timer of the same bucket that was
// filed after the pre-walk (or drained from the intake in this very pass)
// and waits, unwalked, in the store. (Found in review; it failed before the
// fire loop stopped at the end of the walked buckets.)
func TestPrewalkStraddle(t *testing.T) {
	const n, maxBatch = 5000, 16
	clk := &jumpClock{ManualClock: NewManualClock(time.Unix(0, 0))}
	w, err := NewWheel(Options{Clock: clk, MaxBatch: maxBatch, Slack: -1}) // as TestPrewalk's
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	b := w.bucket
	base := 10_000 * b
	const step = 200
	clk.Set(base - int64(100*time.Millisecond))
	now := clk.Now()
	timers := make([]*Timer, n)
	start := func(i int) { timers[i] = w.NewTimer(Duration(base + int64(i)*step - now)) }
	start(0)
	start(1)
	w.Sync()
	for _, i := range rand.New(rand.NewPCG(1, 2)).Perm(n - 2) {
		start(2 + i)
	}
	clk.Set(base - 2*b)
	w.Sync()
	w0 := w.Stats().Walks
	clk.Set(base - 3*b/4) // the pre-walk window: wait for its passes
	waitFor(t, func() bool { return w.Stats().Walks >= w0+n/maxBatch })
	w.Sync()
	now = clk.Now()
	// Filed after the pre-walk into the bucket's leaf: due between
	// timers[0] (base) and timers[1] (base+200).
	y := w.NewTimer(Duration(base + step/2 - now))
	w.Sync()

	y.e.mu.Lock() // Y cannot fire while held: the order shows
	clk.Set(base - b/4)
	clk.to = base + 3*step/2
	clk.armed.Store(true)
	w.poller.Wake() // a pass starts at base-b/4; the clock reads base+300 by its fire loop
	// Once the pass has read the clock (and made it jump), give it 100 ms
	// to go wrong: a driver with the bug fires timers[1] (due at base+200)
	// at once; a correct one waits for Y's lock.
	for deadline := time.Now().Add(10 * time.Second); clk.armed.Load(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			y.e.mu.Unlock()
			t.Fatal("no pass read the clock within 10 s")
		}
	}
	time.Sleep(100 * time.Millisecond)
	kFired := len(timers[1].C) == 1
	y.e.mu.Unlock()
	if kFired {
		t.Fatalf("the timer due at base+200 fired, the one due at base+100 had not")
	}
}
