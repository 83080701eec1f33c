//go:build go1.26

package clock

// sinceReadsBubbleByWall: since Go 1.26, time.Since inside a bubble
// subtracts wall readings (see timenow.go).
const sinceReadsBubbleByWall = true
