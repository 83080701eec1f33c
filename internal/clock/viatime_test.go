//go:build go1.25

package clock

import (
	"testing"
	"testing/synctest"
	"time"
)

// TestViaTimeInBubble: inside a bubble ViaTime reports one, whether the
// last confirmed reading is fresh or stale, and however far the fake clock
// has moved.
func TestViaTimeInBubble(t *testing.T) {
	for _, stale := range []bool{false, true} {
		if _, ok := ViaTime(); !ok {
			t.Fatal("ViaTime reports a bubble outside one")
		}
		if stale {
			confirmed.Store(0)
		}
		synctest.Test(t, func(t *testing.T) {
			for _, d := range []time.Duration{0, time.Nanosecond, time.Second, time.Hour, 24 * time.Hour * 365 * 30} {
				time.Sleep(d)
				if r, ok := ViaTime(); ok {
					t.Fatalf("stale=%v, after sleeping %v in the bubble: ViaTime = %d, true", stale, d, r)
				}
			}
		})
	}
}
