package stashtime

import (
	"testing"
	"time"
)

// TestStoppedTimersLeaveNothing: 100,000 AfterFuncs due in [1h, 2h), each
// stopped at once, leave less than a byte each once the driver has compacted
// the store; without compaction each would keep its 8-byte slot for an hour.
func TestStoppedTimersLeaveNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("100,000 timers")
	}
	w, _ := newManualWheel(t, 0)
	const n = 100_000
	f := func() {}
	w.AfterFunc(time.Hour, f).Stop() // whatever the first timer allocates once
	w.Sync()
	gcN(2)
	before := heapAlloc()
	for i := range n {
		w.AfterFunc(time.Hour+time.Duration(i)*36*time.Millisecond, f).Stop()
	}
	w.Sync()
	gcN(2)
	after := heapAlloc()
	st := w.Stats()
	if st.Compacts == 0 || st.Live != 0 || st.Stopped != n+1 {
		t.Fatalf("stats after %d stops: %+v", n, st)
	}
	// Allow what the last compaction mark leaves (at most compactMin slots).
	if per := (float64(after) - float64(before)) / n; per > 1 {
		t.Fatalf("%.1f B retained per stopped timer, want at most 1", per)
	}
}
