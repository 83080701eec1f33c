package wheel

import (
	"cmp"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestStoppedTimersLeaveNothing: 100,000 AfterFuncs due in [1h, 2h), all
// stopped, leave less than a byte each. Stopped while the intake lists them
// (at once), they mostly never reach the store, and nothing needs compacting.
// Stopped once the store holds them (after a Sync), they leave their slots
// empty, and the driver compacts the store; without compaction each would
// keep its 8-byte slot for an hour.
func TestStoppedTimersLeaveNothing(t *testing.T) {
	skipIfChecked(t)
	if testing.Short() {
		t.Skip("100,000 timers")
	}
	for _, filed := range []bool{false, true} {
		t.Run(fmt.Sprintf("filed=%v", filed), func(t *testing.T) {
			w, _ := newManualWheel(t, 0)
			const n = 100_000
			f := func() {}
			w.AfterFunc(time.Hour, f).Stop() // whatever the first timer allocates once
			w.Sync()
			gcN(2)
			before := heapAlloc()
			ts := make([]*Timer, n)
			for i := range ts {
				ts[i] = w.AfterFunc(time.Hour+time.Duration(i)*36*time.Millisecond, f)
				if !filed {
					ts[i].Stop()
				}
			}
			if filed {
				w.Sync() // the intake's lists drained into the store
				for _, tm := range ts {
					tm.Stop()
				}
			}
			ts = nil
			w.Sync()
			gcN(2)
			after := heapAlloc()
			st := w.Stats()
			require.Zero(t, st.Live, "live after %d stops", n)
			require.Equal(t, int64(n+1), st.Stopped, "stopped")
			if filed {
				require.Positive(t, st.Compacts, "no compaction after %d stops in the store", n)
			} else {
				// Mostly none; a pass that drains the intake midway (a
				// loaded machine, in CI once) files some, and compacts.
				t.Logf("%d compactions", st.Compacts)
			}
			// Allow what the last compaction mark leaves (at most compactMin slots).
			require.LessOrEqual(t, (float64(after)-float64(before))/n, 1.0, "B retained per stopped timer")
		})
	}
}

// TestCompactedWheelFiresTheRest: 20,000 channel timers and AfterFuncs due
// in [1h, 2h), nine in ten stopped once the store holds them (enough for
// several compactions), and the rest fire exactly once each, in deadline
// order, at their deadlines, when the clock gets there.
func TestCompactedWheelFiresTheRest(t *testing.T) {
	w, clk := newManualWheel(t, 64)
	const n = 20_000
	type kept struct {
		when int64
		c    <-chan Time
	}
	var keep []kept
	var stop []*Timer
	var fired []int64
	var mu sync.Mutex
	allFired := make(chan struct{})
	start := clk.Now()
	for i := range n {
		// A spread-out sequence of deadlines: golden-ratio steps over an hour.
		d := time.Hour + time.Duration(uint64(i)*11400714819323198485%uint64(time.Hour))
		if i%2 == 0 {
			tm := w.NewTimer(d)
			if i%10 != 0 {
				stop = append(stop, tm)
				continue
			}
			keep = append(keep, kept{start + int64(d), tm.C})
			continue
		}
		when := start + int64(d)
		tm := w.AfterFunc(d, func() {
			mu.Lock()
			if fired = append(fired, when); len(fired) == n/10 {
				close(allFired)
			}
			mu.Unlock()
		})
		if i%10 != 1 {
			stop = append(stop, tm)
		}
	}
	w.Sync() // the intake's lists drained into the store
	for _, tm := range stop {
		tm.Stop()
	}
	w.Sync()
	st := w.Stats()
	require.NotZero(t, st.Compacts, "compactions after the stops")
	require.Equal(t, int64(n/5), st.Live, "live after the stops")
	slices.SortFunc(keep, func(a, b kept) int { return cmp.Compare(a.when, b.when) })
	for _, k := range keep {
		clk.Set(k.when - 1)
		w.Sync()
		require.Empty(t, k.c, "timer due at %d fired at %d", k.when, clk.Now())
		clk.Set(k.when)
		w.Sync()
		require.Len(t, k.c, 1, "timer due at %d did not fire", k.when)
		v := <-k.c
		require.Equal(t, time.Duration(k.when), v.Sub(clk.Time(0)), "what the timer due at %d sent", k.when)
	}
	clk.Set(start + int64(2*time.Hour))
	w.Sync()
	// Callbacks run in their own goroutines: wait for them.
	select {
	case <-allFired:
	case <-time.After(10 * time.Second):
	}
	mu.Lock()
	defer mu.Unlock()
	// len, not Len: Len would print all 2,000 deadlines.
	require.Equal(t, n/10, len(fired), "AfterFuncs fired")
	seen := map[int64]bool{}
	for _, when := range fired {
		require.False(t, seen[when], "AfterFunc due at %d fired twice", when)
		seen[when] = true
	}
	st = w.Stats()
	require.Zero(t, st.Live, "live at the end")
	require.Equal(t, int64(n/5), st.Fired, "fired at the end")
}

// TestHolesCountEmptiedSlots: compaction counts the store slots emptied
// (by a Stop, or a Reset to an earlier deadline, of a timer the store
// holds), and nothing for a timer stopped while the intake lists it.
func TestHolesCountEmptiedSlots(t *testing.T) {
	w, hp, _ := newHeldWheel(t)
	f := func() {}
	a := w.AfterFunc(time.Hour, f)
	b := w.AfterFunc(time.Hour, f)
	hp.hold(t, w) // a and b drained into the store; the driver parked
	require.Zero(t, w.holes.Load(), "holes at the start")
	w.AfterFunc(time.Hour, f).Stop() // listed, never filed
	require.Zero(t, w.holes.Load(), "holes after stopping a listed timer")
	a.Stop()
	require.Equal(t, int64(1), w.holes.Load(), "holes after stopping a filed timer")
	b.Reset(time.Minute) // earlier: a new holder, and the old slot emptied
	require.Equal(t, int64(2), w.holes.Load(), "holes after resetting a filed timer earlier")
}
