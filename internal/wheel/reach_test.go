package wheel

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestStoppedNeverTimersLeaveNothing: a Timer made or reset with
// math.MaxInt64 ("never") and stopped leaves nothing in the store, however
// often. Such a deadline is beyond the store's span; filed there, it would
// wait in the overflow area, out of Stop's reach, forever.
func TestStoppedNeverTimersLeaveNothing(t *testing.T) {
	w, clk := newManualWheel(t, 0)
	const n = 20_000
	tm := w.NewTimer(time.Millisecond)
	for range n {
		tm.Reset(math.MaxInt64)
		tm.Stop()
		w.NewTimer(math.MaxInt64).Stop()
		w.AfterFunc(math.MaxInt64, func() {}).Stop()
	}
	clk.Advance(time.Second)
	w.Sync()
	require.Zero(t, w.store.Overflow(), "values in the overflow area after %d stopped never-timers", 3*n)
	require.Zero(t, w.Stats().Live, "live after the stops")
}

// TestAbandonedNeverAftersAreCollected: After(math.MaxInt64) in a loop,
// never received from, leaves less than a byte a call once collected, as
// with package time.
func TestAbandonedNeverAftersAreCollected(t *testing.T) {
	skipIfChecked(t)
	if testing.Short() {
		t.Skip("100,000 timers")
	}
	w, _ := newManualWheel(t, 0)
	const n = 100_000
	w.After(math.MaxInt64) // whatever the first timer allocates once
	w.Sync()
	gcN(2)
	before := heapAlloc()
	for range n {
		w.After(math.MaxInt64)
	}
	// Each channel's cleanup stops its timer; wait for all of them.
	for i := 0; w.Live() > 0; i++ {
		if i == 500 {
			t.Fatalf("%d of %d abandoned timers still live after 500 collections", w.Live(), n+1)
		}
		gcN(1)
		time.Sleep(time.Millisecond)
	}
	w.Sync()
	gcN(2)
	after := heapAlloc()
	require.Zero(t, w.store.Overflow(), "values in the overflow area after %d abandoned After(MaxInt64)", n)
	require.LessOrEqual(t, (float64(after)-float64(before))/n, 8.0, "B retained per abandoned After(MaxInt64)")
}

// TestFarTimerFiresAtItsDeadline: a timer due further ahead than the wheel
// files anything is re-filed as the clock gets there, and fires once, at
// its deadline.
func TestFarTimerFiresAtItsDeadline(t *testing.T) {
	w, clk := newManualWheel(t, 0)
	d := time.Duration(3*w.reach + 12345)
	start := clk.Now()
	tm := w.NewTimer(d)
	for clk.Now()-start < int64(d)-w.reach/3 {
		clk.Advance(time.Duration(w.reach / 3))
		w.Sync()
		require.Empty(t, tm.C, "fired %v before its deadline", time.Duration(start+int64(d)-clk.Now()))
	}
	clk.Set(start + int64(d) - 1)
	w.Sync()
	require.Empty(t, tm.C, "fired 1 ns before its deadline")
	clk.Set(start + int64(d))
	w.Sync()
	require.Len(t, tm.C, 1, "did not fire at its deadline")
	<-tm.C
	require.False(t, tm.Stop(), "Stop after the fire")
}

// TestResetInPlaceAfterLongUptime: after longer than 2^31 buckets (26 days
// at the default 1 ms) on the clock, a Reset to a later deadline still
// stores it in place, keeping its holder, instead of filing a new one.
func TestResetInPlaceAfterLongUptime(t *testing.T) {
	w, clk := newManualWheel(t, 0)
	for _, uptime := range []time.Duration{time.Hour, 30 * 24 * time.Hour, 60 * 24 * time.Hour, 400 * 24 * time.Hour} {
		clk.Set(int64(uptime))
		w.Sync()
		tm := w.AfterFunc(time.Minute, func() {})
		w.Sync() // the driver files it from the intake
		slot := tm.e.slot
		require.NotZero(t, slot, "uptime %v: not in the store after Sync", uptime)
		for i := range 100 {
			clk.Advance(time.Millisecond)
			require.True(t, tm.Reset(time.Minute), "uptime %v: Reset #%d of a pending timer", uptime, i)
			require.Equal(t, slot, tm.e.slot, "uptime %v: Reset #%d to a later deadline filed a new holder", uptime, i)
		}
		tm.Stop()
	}
}

// TestClockNearTheEnd: with the clock within a second of math.MaxInt64 the
// driver still sleeps between passes (its sleep bound must not overflow) and
// Sync returns.
func TestClockNearTheEnd(t *testing.T) {
	w, clk := newManualWheel(t, 0)
	clk.Set(math.MaxInt64 - int64(time.Second)/2)
	w.AfterFunc(time.Hour, func() {}) // due at math.MaxInt64: never
	done := make(chan struct{})
	go func() { w.Sync(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Sync did not return")
	}
	walks := w.Stats().Walks
	time.Sleep(50 * time.Millisecond)
	require.LessOrEqual(t, w.Stats().Walks-walks, int64(50), "driver passes in 50 ms with nothing due: the driver spins")
}

// A holder filed up to 2^30 buckets ahead of the clock is found again from
// its 32-bit name, for any bucket width.
func TestBucketNameRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	for _, b := range []int64{1 << 20, 1 << 10, 1, 1000, 1_000_000, 3} {
		w := &Wheel{bucket: b}
		for range 10_000 {
			x := int64(r.Uint64N(uint64(math.MaxInt64 - b<<30)))
			if r.IntN(4) == 0 {
				x = int64(r.Uint64N(1 << 40))
			}
			when := w.bucketOf(x + int64(r.Uint64N(1<<30))*b)
			require.Equal(t, when, w.bucketStart(w.bucketNum(when), x), "bucket %d: bucketStart(bucketNum(%d), %d)", b, when, x)
		}
	}
}
