package stashtime

import (
	"testing"
	"time"
)

// A timer past the default store's span (about 2.28 years), filed and
// re-filed within reach of the clock as it jumps there, still fires exactly
// at its deadline, not a nanosecond before, on the default geometry.
func TestBeyondDefaultSpan(t *testing.T) {
	w, clk := newManualWheel(t, 0)
	tm := w.NewTimer(5 * time.Second)
	clk.Advance(4 * time.Second)
	w.Sync()
	select {
	case <-tm.C:
		t.Fatal("early")
	default:
	}
	clk.Advance(time.Second)
	w.Sync()
	select {
	case v := <-tm.C:
		if !v.Equal(time.Unix(5, 0)) {
			t.Fatal(v)
		}
	default:
		t.Fatal("not fired")
	}
	// far: 3 years
	tm.Reset(3 * 365 * 24 * time.Hour)
	clk.Advance(3*365*24*time.Hour - 1)
	w.Sync()
	select {
	case <-tm.C:
		t.Fatal("early far")
	default:
	}
	clk.Advance(1)
	w.Sync()
	select {
	case <-tm.C:
	default:
		t.Fatalf("far not fired %+v", w.Stats())
	}
}
