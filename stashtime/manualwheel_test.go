package stashtime

import (
	"testing"
	"time"
)

// newManualWheel starts a wheel on a manual clock set to the Unix epoch,
// with the given MaxBatch (0 for the default), and closes it when the test
// ends.
func newManualWheel(t testing.TB, maxBatch int) (*Wheel, *ManualClock) {
	t.Helper()
	clk := NewManualClock(time.Unix(0, 0))
	w, err := NewWheel(Options{Clock: clk, MaxBatch: maxBatch})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w, clk
}
