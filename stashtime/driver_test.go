package stashtime

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// TestPrewalk: 5,000 exact channel timers with distinct deadlines in one
// bucket, filed out of deadline order, on a manual clock with MaxBatch 16. The
// driver sees the first few timers filed, and the rest are filed without
// waking it. It looks at the bucket again maxAhead before it (checked for
// the timers 900 ms ahead; for a growing backlog it also looks halfway,
// which depends on what its last look saw and is not checked), pre-walks it
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
		for deadline := time.Now().Add(10 * time.Second); walks() < min; {
			if time.Now().After(deadline) {
				t.Fatalf("%s: %d driver passes, want at least %d", what, walks(), min)
			}
			time.Sleep(time.Millisecond)
		}
	}
	fired := func() int64 { return w.Stats().Fired }

	w0 := walks()
	if int64(lead) > maxAhead {
		clk.Set(base - maxAhead)
		waitWalks(w0+1, "the driver did not look at the bucket maxAhead before it")
	}
	clk.Set(base - 2*b)
	waitSync() // a pass at base-2b, whether or not the driver planned one
	if d := walks() - w0; d >= n/maxBatch/4 {
		t.Fatalf("%d passes before the pre-walk window: the bucket was walked too early", d)
	}
	if f := fired(); f != 0 {
		t.Fatalf("%d timers fired before the pre-walk window", f)
	}

	w1 := walks()
	clk.Set(base - 3*b/4) // past base - n*walkCost
	waitWalks(w1+n/maxBatch, "the driver did not pre-walk the bucket")
	waitSync()
	if f := fired(); f != 0 {
		t.Fatalf("%d timers fired during the pre-walk", f)
	}
	now = clk.Now()

	// Change two pre-walked timers and add two more.
	const stopped, reset = 1234, 4321
	if !timers[stopped].tm.Stop() {
		t.Fatal("Stop of a pre-walked timer returned false")
	}
	timers[reset].when += step / 4
	if !timers[reset].tm.Reset(Duration(timers[reset].when - now)) {
		t.Fatal("Reset of a pre-walked timer returned false")
	}
	for _, when := range []int64{base - b/2, base + step/2} {
		timers = append(timers, timer{when, w.NewTimer(Duration(when - now))})
	}
	due := slices.Delete(slices.Clone(timers), stopped, stopped+1)
	slices.SortFunc(due, func(a, b timer) int { return int(a.when - b.when) })

	for i, tm := range due {
		w2 := walks()
		clk.Set(tm.when)
		waitSync()
		if f := fired(); f != int64(i+1) {
			t.Fatalf("at the deadline of timer %d of %d: %d fired", i, len(due), f)
		}
		select {
		case v := <-tm.tm.C:
			if want := w.clock.Time(tm.when); !v.Equal(want) {
				t.Fatalf("timer %d sent %v, want %v", i, v, want)
			}
		default:
			t.Fatalf("timer %d did not fire at its deadline", i)
		}
		if tm.when == base {
			if d := walks() - w2; d >= n/maxBatch/4 {
				t.Errorf("the first timer of the bucket fired after %d passes: the bucket was not pre-walked", d)
			}
		}
	}
	clk.Set(base + 2*b)
	waitSync()
	if f := fired(); f != int64(len(due)) {
		t.Errorf("%d fired in all, want %d", f, len(due))
	}
	for i, tm := range timers {
		if len(tm.tm.C) != 0 {
			t.Errorf("timer %d (due at %d) fired twice or after Stop", i, tm.when-base)
		}
	}
}
