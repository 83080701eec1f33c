package wheel

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stashgo/stash/poller"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPrewalk: 5,000 exact channel timers with distinct deadlines in one
// bucket, filed out of deadline order, on a manual clock with MaxBatch 16. The
// driver sees the first few timers filed, and the rest are filed without
// waking it. It looks at the bucket again maxAhead before it (checked for
// the timers 900 ms ahead), pre-walks it
// on its own once the clock enters the window before it (walking it then
// takes hundreds of passes), and fires nothing early. When the first deadline comes, the timer due then fires
// within a few passes; every timer, including one stopped and one reset
// while pre-walked and two added after the pre-walk (one due before the
// bucket), fires exactly once, in deadline order, at its deadline.
func TestPrewalk(t *testing.T) {
	t.Run("far", func(t *testing.T) { testPrewalk(t, 900*time.Millisecond, 1) })
	t.Run("near", func(t *testing.T) { testPrewalk(t, 100*time.Millisecond, 2) })
}

func testPrewalk(t *testing.T, lead time.Duration, first int) {
	const n, maxBatch = 5000, 16
	// Exact timers: with slack, the driver takes every timer into its near
	// heap a lookahead ahead anyway (see precision.go), and the pre-walk
	// matters only for a backlog that takes longer than that to walk.
	w, clk := newManualWheelOpts(t, Options{MaxBatch: maxBatch, Slack: -1})
	b := w.bucket
	base := 10_000 * b // the bucket's start
	const step = 200   // ns between deadlines: n of them fit in the bucket
	clk.Set(base - int64(lead))
	now := clk.Now()

	type timer struct {
		when int64
		tm   *Timer
	}
	timers := make([]timer, n)
	for i := range timers {
		timers[i].when = base + int64(i)*step
	}
	start := func(i int) { timers[i].tm = w.NewTimer(Duration(timers[i].when - now)) }
	for i := range first {
		start(i)
	}
	waitSync := func() {
		t.Helper()
		done := make(chan struct{})
		go func() { w.Sync(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("Sync at %d did not return: the driver is stuck", clk.Now()-base)
		}
	}
	waitSync()
	for _, i := range rand.New(rand.NewPCG(1, 2)).Perm(n - first) {
		start(first + i)
	}
	// A pass files the timers still on the intake's lists, so that the
	// driver plans its next look at the bucket from all of them.
	waitSync()
	walks := func() int64 { return w.Stats().Walks }
	waitWalks := func(min int64, what string) {
		t.Helper()
		require.EventuallyWithT(t, func(c *assert.CollectT) {
			assert.GreaterOrEqual(c, walks(), min, "%s: driver passes", what)
		}, 10*time.Second, time.Millisecond)
	}
	fired := func() int64 { return w.Stats().Fired }

	if int64(lead) > maxAhead {
		// The driver may still be finishing a round (a wake-up a list of
		// the intake asked for while the timers were started): wait
		// until it sleeps toward its look maxAhead before the bucket.
		require.Eventually(t, func() bool { return w.sleepUntil.Load() == base-maxAhead }, 10*time.Second, 50*time.Microsecond,
			"the driver does not sleep toward its look maxAhead before the bucket")
	}
	w0 := walks()
	if int64(lead) > maxAhead {
		clk.Set(base - maxAhead)
		waitWalks(w0+1, "the driver did not look at the bucket maxAhead before it")
	}
	clk.Set(base - 2*b)
	waitSync() // a pass at base-2b, whether or not the driver planned one
	require.Less(t, walks()-w0, int64(n/maxBatch/4), "passes before the pre-walk window: the bucket was walked too early")
	require.Zero(t, fired(), "timers fired before the pre-walk window")

	w1 := walks()
	clk.Set(base - 3*b/4) // past base - n*walkCost
	waitWalks(w1+n/maxBatch, "the driver did not pre-walk the bucket")
	waitSync()
	require.Zero(t, fired(), "timers fired during the pre-walk")
	now = clk.Now()

	// Change two pre-walked timers and add two more.
	const stopped, reset = 1234, 4321
	require.True(t, timers[stopped].tm.Stop(), "Stop of a pre-walked timer")
	timers[reset].when += step / 4
	require.True(t, timers[reset].tm.Reset(Duration(timers[reset].when-now)), "Reset of a pre-walked timer")
	for _, when := range []int64{base - b/2, base + step/2} {
		timers = append(timers, timer{when, w.NewTimer(Duration(when - now))})
	}
	due := slices.Delete(slices.Clone(timers), stopped, stopped+1)
	slices.SortFunc(due, func(a, b timer) int { return int(a.when - b.when) })

	for i, tm := range due {
		w2 := walks()
		clk.Set(tm.when)
		waitSync()
		require.Equal(t, int64(i+1), fired(), "fired at the deadline of timer %d of %d", i, len(due))
		require.Len(t, tm.tm.C, 1, "timer %d did not fire at its deadline", i)
		v, want := <-tm.tm.C, w.clock.Time(tm.when)
		require.True(t, v.Equal(want), "timer %d sent %v, want %v", i, v, want)
		if tm.when == base {
			assert.Less(t, walks()-w2, int64(n/maxBatch/4), "passes until the first timer of the bucket fired: the bucket was not pre-walked")
		}
	}
	clk.Set(base + 2*b)
	waitSync()
	assert.Equal(t, int64(len(due)), fired(), "fired in all")
	for i, tm := range timers {
		assert.Empty(t, tm.tm.C, "timer %d (due at %d) fired twice or after Stop", i, tm.when-base)
	}
}

// waitCounter is a poller that counts the driver's calls to Wait and
// tells whether one is in progress.
type waitCounter struct {
	poller.Poller
	waits  *atomic.Int64
	asleep *atomic.Bool
}

func (p waitCounter) Wait(deadline int64) error {
	p.waits.Add(1)
	p.asleep.Store(true)
	defer p.asleep.Store(false)
	return p.Poller.Wait(deadline)
}

// TestYieldBeforeSleep: the driver yields its processor before it goes
// back to sleep when its pass readied two or more goroutines, and not for
// one. Asleep in the poller the driver keeps its P or hands it to another
// thread, so callbacks queued on it would wait for the runtime's monitor
// to take the P back, or cost that thread; a lone callback, which an idle P would
// take from the driver's at once, is not worth the yield. The test counts
// the yields, which are the driver's choice, not what the scheduler then
// runs first, which on a busy machine is anyone's.
func TestYieldBeforeSleep(t *testing.T) {
	var waits, yields atomic.Int64
	var asleep atomic.Bool
	testPoller = func(c Clock) poller.Poller { return waitCounter{poller.NewPortable(c), &waits, &asleep} }
	defer func() { testPoller = nil }()
	yieldBeforeSleep = func() { yields.Add(1); runtime.Gosched() }
	defer func() { yieldBeforeSleep = runtime.Gosched }()
	clk := NewManualClock(time.Unix(0, 0))
	w, err := NewWheel(Options{Clock: clk, Slack: -1}) // the timers fire at their deadline
	require.NoError(t, err)
	defer w.Close()

	// round fires n callbacks due at one instant, and returns how many
	// times the driver yielded before it slept again.
	round := func(n int) int64 {
		var ran sync.WaitGroup
		ran.Add(n)
		for range n {
			w.AfterFunc(time.Millisecond, ran.Done)
		}
		due := w.Now() + int64(time.Millisecond)
		require.Eventually(t, func() bool { return asleep.Load() && w.sleepUntil.Load() == due },
			10*time.Second, 50*time.Microsecond, "the driver does not sleep toward the timers")
		before, w0 := yields.Load(), waits.Load()
		clk.Advance(time.Millisecond)
		ran.Wait()
		require.Eventually(t, func() bool { return asleep.Load() && waits.Load() > w0 },
			10*time.Second, 50*time.Microsecond, "the driver did not go back to sleep")
		return yields.Load() - before
	}
	for i := range 10 {
		require.Equal(t, int64(1), round(8), "round %d: 8 callbacks, one yield", i)
		require.Equal(t, int64(0), round(1), "round %d: a lone callback, no yield", i)
	}
}

// TestCatchUpWithoutYield: between two batches of timers on time the
// driver yields, so that the callbacks it started run; once the timers are
// catchUpBeyond late it fires the next batch at once, since under load a
// yield puts it behind goroutines that may each run a whole time slice.
func TestCatchUpWithoutYield(t *testing.T) {
	var yields atomic.Int64
	yieldBetweenBatches = func() { yields.Add(1); runtime.Gosched() }
	defer func() { yieldBetweenBatches = runtime.Gosched }()
	w, clk := newManualWheelOpts(t, Options{MaxBatch: 8, Slack: -1})

	// round fires 64 callbacks due in 1 ms once the clock is late past
	// it, and returns how many times the driver yielded between batches.
	round := func(late time.Duration) int64 {
		var ran sync.WaitGroup
		ran.Add(64)
		for range 64 {
			w.AfterFunc(time.Millisecond, ran.Done)
		}
		w.Sync()
		before := yields.Load()
		clk.Advance(time.Millisecond + late)
		ran.Wait()
		w.Sync()
		return yields.Load() - before
	}
	for i := range 5 {
		require.Positive(t, round(0), "round %d: on time, the driver yields between batches", i)
		require.Zero(t, round(time.Duration(catchUpBeyond)), "round %d: late, it fires on", i)
	}
}
