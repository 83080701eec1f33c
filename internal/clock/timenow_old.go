//go:build !go1.26

package clock

// sinceReadsBubbleByWall: before Go 1.26, TimeNow uses time.Now (see
// timenow.go).
const sinceReadsBubbleByWall = false
