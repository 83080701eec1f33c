//go:build !go1.26 || go1.27

package clock

// sinceReadsBubbleByWall: outside the releases checked (see
// timenow_go126.go), TimeNow uses time.Now.
const sinceReadsBubbleByWall = false
