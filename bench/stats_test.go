package main

import (
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	var ds []time.Duration
	for i := 100; i >= 1; i-- {
		ds = append(ds, time.Duration(i))
	}
	if got := percentile(ds, 0.5); got != 50 {
		t.Errorf("p50 = %v, want 50", got)
	}
	if got := percentile(ds, 0.99); got != 99 {
		t.Errorf("p99 = %v, want 99", got)
	}
	if got := percentile(ds[:1], 0.99); got != 100 {
		t.Errorf("p99 of one = %v, want 100", got)
	}
}

func TestShortDur(t *testing.T) {
	for d, want := range map[time.Duration]string{
		time.Hour:                    "1h",
		2 * time.Hour:                "2h",
		90 * time.Minute:             "1h30m",
		5 * time.Minute:              "5m",
		1500 * time.Millisecond:      "1.5s",
		100 * time.Microsecond:       "100µs",
		time.Hour + 30*time.Second:   "1h0m30s",
		time.Hour + time.Millisecond: "1h0m0.001s",
	} {
		if got := shortDur(d); got != want {
			t.Errorf("shortDur(%v) = %q, want %q", d, got, want)
		}
	}
}
