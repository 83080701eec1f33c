package stashtime

import (
	"cmp"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"
)

// TestStoppedTimersLeaveNothing: 100,000 AfterFuncs due in [1h, 2h), all
// stopped, leave less than a byte each. Stopped while the intake lists them
// (at once), they never reach the store, and nothing needs compacting.
// Stopped once the store holds them (after a Sync), they leave their slots
// empty, and the driver compacts the store; without compaction each would
// keep its 8-byte slot for an hour.
func TestStoppedTimersLeaveNothing(t *testing.T) {
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
			if st.Live != 0 || st.Stopped != n+1 || (st.Compacts > 0) != filed {
				t.Fatalf("stats after %d stops: %+v", n, st)
			}
			// Allow what the last compaction mark leaves (at most compactMin slots).
			if per := (float64(after) - float64(before)) / n; per > 1 {
				t.Fatalf("%.1f B retained per stopped timer, want at most 1", per)
			}
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
	if st := w.Stats(); st.Compacts == 0 || st.Live != n/5 {
		t.Fatalf("stats after the stops: %+v", st)
	}
	slices.SortFunc(keep, func(a, b kept) int { return cmp.Compare(a.when, b.when) })
	for _, k := range keep {
		clk.Set(k.when - 1)
		w.Sync()
		select {
		case <-k.c:
			t.Fatalf("timer due at %d fired at %d", k.when, clk.Now())
		default:
		}
		clk.Set(k.when)
		w.Sync()
		select {
		case v := <-k.c:
			if got := v.Sub(clk.Time(0)); got != time.Duration(k.when) {
				t.Fatalf("timer due at %d sent %v", k.when, got)
			}
		default:
			t.Fatalf("timer due at %d did not fire", k.when)
		}
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
	if len(fired) != n/10 {
		t.Fatalf("%d AfterFuncs fired, want %d", len(fired), n/10)
	}
	seen := map[int64]bool{}
	for _, when := range fired {
		if seen[when] {
			t.Fatalf("AfterFunc due at %d fired twice", when)
		}
		seen[when] = true
	}
	if st := w.Stats(); st.Live != 0 || st.Fired != n/5 {
		t.Fatalf("stats at the end: %+v", st)
	}
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
	if n := w.holes.load(); n != 0 {
		t.Fatalf("holes at the start: %d", n)
	}
	w.AfterFunc(time.Hour, f).Stop() // listed, never filed
	if n := w.holes.load(); n != 0 {
		t.Fatalf("holes after stopping a listed timer: %d, want 0", n)
	}
	a.Stop()
	if n := w.holes.load(); n != 1 {
		t.Fatalf("holes after stopping a filed timer: %d, want 1", n)
	}
	b.Reset(time.Minute) // earlier: a new holder, and the old slot emptied
	if n := w.holes.load(); n != 2 {
		t.Fatalf("holes after resetting a filed timer earlier: %d, want 2", n)
	}
}
