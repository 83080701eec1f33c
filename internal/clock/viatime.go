package clock

import (
	"sync/atomic"
	"time"
)

// ViaTime reads System through package time and reports whether package
// time runs on it: ok is false inside a testing/synctest bubble, where time
// runs on the bubble's fake clock. It costs one clock read, as Mono does;
// asking time.Now costs two (the wall clock and the monotonic one).
//
// It reads time.Since of the base pair. Outside a bubble that is the
// monotonic clock alone. Inside one it is the bubble's fake time less the
// base pair's real time, which no real reading comes near: the fake clock
// starts in the year 2000 and moves only as the bubble's timers do. So a
// reading within viaTimeSlack of the last one confirmed is taken as real,
// and any other is confirmed by time.Now (a bubble's has no monotonic
// reading), which then becomes the last one confirmed.
func ViaTime() (mono int64, ok bool) {
	b := &pair
	r := b.mono + int64(time.Since(b.t))
	if c := confirmed.Load(); r >= c-viaTimeSlack && r <= c+viaTimeSlack {
		return r, true
	}
	t := time.Now()
	if t == t.Round(0) {
		return 0, false
	}
	r = FromTime(t)
	confirmed.Store(r)
	return r, true
}

// viaTimeSlack is how far a reading may lie from the last one confirmed and
// be taken as real: a program that starts timers at least once a second
// pays the second read about once a second.
const viaTimeSlack = int64(time.Second)

// confirmed is the last reading of ViaTime confirmed by time.Now.
var confirmed atomic.Int64
