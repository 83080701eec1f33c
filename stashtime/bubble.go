package stashtime

import "time"

// inBubble reports whether the calling goroutine runs inside a
// testing/synctest bubble. There, time.Now carries no monotonic reading
// (bubbles run on a fake clock), and a channel made inside must never be
// touched from the driver's goroutine, outside, so the package-level
// functions hand the work to package time.
func inBubble() bool {
	now := time.Now()
	return now == now.Round(0)
}
