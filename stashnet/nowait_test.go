package stashnet_test

import (
	"testing"
	"time"

	"github.com/stashgo/stash/internal/measure"
)

// TestExampleWithWheelWaitsNoRealTime runs ExampleWithWheel, whose
// timeouts are seconds long on its ManualClock, and checks that it takes
// under 10 ms of real time: the best of three runs, so that a loaded
// machine's scheduling delays do not fail it, while any real sleep would
// show in all three.
func TestExampleWithWheelWaitsNoRealTime(t *testing.T) {
	if testing.Short() {
		t.Skip("timing")
	}
	best, err := measure.QuietBest(3, ExampleWithWheel)
	if err != nil {
		t.Fatal(err)
	}
	if best > 10*time.Millisecond {
		t.Fatalf("ExampleWithWheel took %v of real time at best, want under 10ms", best)
	}
}
