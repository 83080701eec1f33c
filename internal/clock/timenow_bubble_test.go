//go:build go1.25

package clock

import (
	"testing"
	"testing/synctest"
	"time"
)

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
