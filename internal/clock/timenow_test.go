package clock

import (
	"testing"
	"testing/synctest"
	"time"
)

func TestTimeNowOutsideBubble(t *testing.T) {
	if !probeOK && sinceReadsBubbleByWall {
		t.Fatal("the probe failed its checks at initialization")
	}
	for range 1000 {
		before := Mono()
		got, ok := TimeNow()
		after := Mono()
		if !ok {
			t.Fatal("TimeNow reports a bubble outside one")
		}
		// Never early; late by at most the base pair's gap.
		if got < before || got > after+(pair.after-pair.before) {
			t.Fatalf("TimeNow = %d, outside [%d, %d+%d]", got, before, after, pair.after-pair.before)
		}
	}
}

func TestTimeNowInsideBubble(t *testing.T) {
	check := func(t *testing.T, when string) {
		t.Helper()
		if got, ok := TimeNow(); ok {
			t.Fatalf("%s (fake time %v): TimeNow = %d, true; want false", when, time.Now(), got)
		}
	}
	real := time.Now()
	synctest.Test(t, func(t *testing.T) {
		check(t, "at the start")
		time.Sleep(time.Until(real)) // the fake clock moves to the real time
		check(t, "at the real time")
		time.Sleep(200 * 365 * 24 * time.Hour) // beyond what a Duration from 1885 holds
		check(t, "200 years on")
		done := make(chan bool)
		go func() { _, ok := TimeNow(); done <- ok }()
		if <-done {
			t.Fatal("TimeNow reports no bubble on a goroutine started inside one")
		}
	})
}

func BenchmarkTimeNow(b *testing.B) {
	b.Run("src=TimeNow", func(b *testing.B) {
		for b.Loop() {
			TimeNow()
		}
	})
	b.Run("src=time.Now", func(b *testing.B) {
		for b.Loop() {
			t := time.Now()
			if t != t.Round(0) {
				FromTime(t)
			}
		}
	})
}
