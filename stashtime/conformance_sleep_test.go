package stashtime_test

// Rule 15 of docs/semantics.md: Sleep waits at least d, returns at once for
// d <= 0, never returns for math.MaxInt64, and a signal does not shorten
// it (conformance_sleep_unix_test.go). Rule 5 for the conversion every value
// goes through: a clock reading turned into a Time is not earlier than the
// instant it stands for.

import (
	"math"
	"testing"
	stdtime "time"

	"github.com/stashgo/stash/stashtime"
)

func TestConformanceSleepReal(t *testing.T) {
	for _, d := range []stdtime.Duration{1, 50 * stdtime.Microsecond, stdtime.Millisecond, 3 * stdtime.Millisecond, 20 * stdtime.Millisecond} {
		start := stdtime.Now()
		stashtime.Sleep(d)
		el := stdtime.Since(start)
		if el < d {
			t.Errorf("Sleep(%v) returned after %v", d, el)
		}
		if el > d+stdtime.Second {
			t.Errorf("Sleep(%v) took %v", d, el)
		}
	}
	// d <= 0: at once, without touching the wheel.
	for _, d := range []stdtime.Duration{0, -1, -stdtime.Hour, math.MinInt64} {
		start := stdtime.Now()
		stashtime.Sleep(d)
		if el := stdtime.Since(start); el > 100*stdtime.Millisecond {
			t.Errorf("Sleep(%v) took %v", d, el)
		}
		stashtime.Default().Sleep(d)
	}
}

// Many concurrent sleepers on the process-wide wheel each sleep at least
// their own duration.
func TestConformanceSleepConcurrent(t *testing.T) {
	const n = 50
	errs := make(chan string, n)
	for i := range n {
		go func() {
			d := stdtime.Duration(i%10+1) * stdtime.Millisecond
			start := stdtime.Now()
			stashtime.Sleep(d)
			if el := stdtime.Since(start); el < d || el > d+2*stdtime.Second {
				errs <- "Sleep(" + d.String() + ") took " + el.String()
				return
			}
			errs <- ""
		}()
	}
	for range n {
		if e := <-errs; e != "" {
			t.Error(e)
		}
	}
}

// Sleep(math.MaxInt64) does not return (checked for a while; the goroutine
// is left behind, as a real program's would be).
func TestConformanceSleepForever(t *testing.T) {
	returned := make(chan struct{})
	go func() {
		stashtime.Sleep(math.MaxInt64)
		close(returned)
	}()
	select {
	case <-returned:
		t.Fatal("Sleep(math.MaxInt64) returned")
	case <-stdtime.After(20 * stdtime.Millisecond):
	}
}

// Wheel.Sleep on a manual clock: it returns exactly when the clock reaches
// the deadline, not a nanosecond before.
func TestConformanceSleepManual(t *testing.T) {
	m := newTestWheel(t, stashtime.Options{})
	const d = 5 * stdtime.Millisecond
	woke := make(chan stdtime.Duration)
	go func() {
		m.Sleep(d)
		woke <- m.elapsed()
	}()
	// Wait until the sleeper's timer is armed.
	waitLive(t, m, 1)
	m.advance(d - 1)
	select {
	case el := <-woke:
		t.Fatalf("Sleep(%v) returned at %v", d, el)
	case <-stdtime.After(5 * stdtime.Millisecond):
	}
	m.advance(1)
	if el := waitChan(t, woke, "sleeper"); el != d {
		t.Fatalf("Sleep(%v) returned at %v", d, el)
	}
}

// Every value a wheel on the system clock sends is a clock reading turned
// into a Time; that Time must not lie before the instant of the reading,
// or a value could precede its own deadline. Wheel.Now goes through the
// same conversion: a time.Now taken before it must not be after it.
func TestConformanceSystemClockTimeNotEarly(t *testing.T) {
	w := stashtime.Default()
	bad, n := 0, 20000
	var worst stdtime.Duration
	for range n {
		before := stdtime.Now()
		v := w.Now()
		if d := before.Sub(v); d > 0 {
			bad++
			worst = max(worst, d)
		}
	}
	if bad > 0 {
		t.Fatalf("%d of %d Wheel.Now() readings lie before a time.Now() taken earlier (by up to %v)", bad, n, worst)
	}
}
