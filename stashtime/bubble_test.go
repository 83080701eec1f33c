//go:build go1.25

package stashtime

import (
	"math"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/require"
)

// TestNowSeesEveryBubble: now reports a bubble however its fake clock has
// moved, including onto the real time, where a time.Since of an ordinary
// time.Time would look real (clock.TimeNow's probe is not one).
func TestNowSeesEveryBubble(t *testing.T) {
	// now's second result is false inside a bubble.
	noBubble := func() bool { _, ok := now(); return ok }
	require.True(t, noBubble(), "now reports a bubble outside one")
	real := time.Now().Add(100 * time.Millisecond)
	synctest.Test(t, func(t *testing.T) {
		require.False(t, noBubble(), "now reports no bubble at the bubble's start")
		time.Sleep(time.Until(real)) // the fake clock reaches the real time
		require.False(t, noBubble(), "now reports no bubble once the fake clock reaches the real time")
		time.Sleep(30 * 365 * 24 * time.Hour)
		require.False(t, noBubble(), "now reports no bubble 30 years on")
	})
}

// TestSleepNeverInBubble: Sleep(math.MaxInt64) in a bubble returns once the
// fake clock reaches the end of its range, as time.Sleep does (outside a
// bubble it never returns). Were it to block for good, synctest.Test would
// report a deadlock.
func TestSleepNeverInBubble(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		Sleep(math.MaxInt64)
		require.GreaterOrEqual(t, time.Since(start), 200*365*24*time.Hour, "how long Sleep(math.MaxInt64) slept")
	})
}
