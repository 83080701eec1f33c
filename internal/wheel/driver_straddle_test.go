package wheel

import (
	"math/rand/v2"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// jumpClock is a ManualClock that, once armed, jumps to `to` right after
// the next reading: the clock moving on while the driver is between the two
// readings of the driver (preemption, a long walk, a long intake drain).
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
// bucket its clock reading lies in, and the clock may have entered the
// pre-walked bucket by the time the pass fires. It must not fire the
// heap's timers there ahead of an earlier timer of the same bucket that was
// filed after the pre-walk (or drained from the intake in this very pass)
// and waits, unwalked, in the store. (Found in review; it failed while the
// fire loop read the clock again and fired up to that second reading.)
func TestPrewalkStraddle(t *testing.T) {
	const n, maxBatch = 5000, 16
	clk := &jumpClock{ManualClock: NewManualClock(time.Unix(0, 0))}
	w, err := NewWheel(Options{Clock: clk, MaxBatch: maxBatch, Slack: -1}) // as TestPrewalk's
	require.NoError(t, err)
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
	waitUntil(t, "walked", func() bool { return w.Stats().Walks >= w0+n/maxBatch })
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
	require.False(t, kFired, "the timer due at base+200 fired, the one due at base+100 had not")
}

// hookClock is a ManualClock that, once armed, calls hook at its first
// reading after the wheel's walk count reaches walks, and returns what the
// clock reads after it.
type hookClock struct {
	*ManualClock
	w     *Wheel
	walks atomic.Int64 // 0: none armed
	hook  func()
}

func (c *hookClock) Now() int64 {
	if n := c.walks.Load(); n > 0 && c.w.walks.Load() >= n && c.walks.CompareAndSwap(n, 0) {
		c.hook()
	}
	return c.ManualClock.Now()
}

// A timer filed behind a pass's walk, by a producer that then moves the
// clock past it, must fire before the timers due later that the walk took
// into the near heap, even when the pass is still to fire them: the pass
// fires what was due at the reading its walk served, and the next walk
// takes the late timer in. (It failed while the pass read the clock again
// for its fire loop; the conformance test of deadline order met it in
// about one run in 25 on a loaded machine.)
func TestLateFilingBehindWalk(t *testing.T) {
	ms := int64(time.Millisecond)
	clk := &hookClock{ManualClock: NewManualClock(time.Unix(0, 0))}
	w, err := NewWheel(Options{Clock: clk})
	require.NoError(t, err)
	clk.w = w
	defer w.Close()
	z := w.NewTimer(Duration(2 * ms))
	w.Sync() // the walk took z into the near heap
	var x *Timer
	hooked := make(chan struct{})
	clk.hook = func() {
		// On the driver's goroutine, at the first reading after a walk
		// (the fire loop's, when a pass read the clock twice): a timer
		// due before z, behind the walk, and then a clock past both. x
		// stays locked, so the pass after this one stops at it.
		x = w.NewTimer(Duration(ms))
		x.e.mu.Lock()
		clk.Set(10 * ms)
		close(hooked)
	}
	walks := w.walks.Load()
	clk.walks.Store(walks + 1)
	w.poller.Wake()
	select {
	case <-hooked:
	case <-time.After(10 * time.Second):
		t.Fatal("no clock reading after a walk within 10 s")
	}
	// Once the next pass has begun, the pass that met the hook is done.
	for deadline := time.Now().Add(10 * time.Second); w.walks.Load() < walks+2; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			x.e.mu.Unlock()
			t.Fatal("no pass began after the hook within 10 s")
		}
	}
	zFirst := len(z.C) == 1
	x.e.mu.Unlock()
	require.False(t, zFirst, "the timer due at 2ms fired, the one due at 1ms had not")
	w.Sync()
	assert.Len(t, x.C, 1, "x, after the clock passed both")
	assert.Len(t, z.C, 1, "z, after the clock passed both")
}
