//go:build go1.25

package stashtime

import (
	"testing"
	"testing/synctest"
	"time"
)

// TestNowSeesEveryBubble: now reports a bubble however its fake clock has
// moved, including onto the real time, where a reading through time.Since
// would look real.
func TestNowSeesEveryBubble(t *testing.T) {
	if _, ok := now(); !ok {
		t.Fatal("now reports a bubble outside one")
	}
	real := time.Now().Add(100 * time.Millisecond)
	synctest.Test(t, func(t *testing.T) {
		if _, ok := now(); ok {
			t.Fatal("now reports no bubble at the bubble's start")
		}
		time.Sleep(time.Until(real)) // the fake clock reaches the real time
		if _, ok := now(); ok {
			t.Fatal("now reports no bubble once the fake clock reaches the real time")
		}
		time.Sleep(30 * 365 * 24 * time.Hour)
		if _, ok := now(); ok {
			t.Fatal("now reports no bubble 30 years on")
		}
	})
}
