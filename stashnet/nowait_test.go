package stashnet_test

import (
	"testing"
	"time"

	"github.com/stashgo/stash/internal/measure"
)

// TestExampleWithWheelWaitsNoRealTime runs ExampleWithWheel, whose
// timeouts are 5 s and more on its ManualClock, and checks that it takes
// under a second of real time: the best of three runs, so that a loaded
// machine's scheduling delays (under the race detector too) do not fail
// it, while a real wait for any of its timeouts would show in all three.
func TestExampleWithWheelWaitsNoRealTime(t *testing.T) {
	if testing.Short() {
		t.Skip("timing")
	}
	best, err := measure.QuietBest(3, ExampleWithWheel)
	if err != nil {
		t.Fatal(err)
	}
	if best > time.Second {
		t.Fatalf("ExampleWithWheel took %v of real time at best, want under 1s", best)
	}
}
