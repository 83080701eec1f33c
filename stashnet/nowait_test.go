package stashnet_test

import (
	"io"
	"os"
	"testing"
	"time"
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
	best := time.Duration(1<<63 - 1)
	for range 3 {
		best = min(best, timed(t, ExampleWithWheel))
	}
	if best > 10*time.Millisecond {
		t.Fatalf("ExampleWithWheel took %v of real time at best, want under 10ms", best)
	}
}

// timed runs f with its output discarded and returns how long it took.
func timed(t *testing.T, f func()) time.Duration {
	t.Helper()
	stdout := os.Stdout
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	drained := make(chan struct{})
	go func() {
		io.Copy(io.Discard, r)
		close(drained)
	}()
	os.Stdout = w
	began := time.Now()
	f()
	took := time.Since(began)
	os.Stdout = stdout
	w.Close()
	<-drained
	r.Close()
	return took
}
