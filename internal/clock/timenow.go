package clock

import (
	"time"
	"unsafe"
)

// Goroutines inside a testing/synctest bubble read a fake clock through
// package time, and a channel made inside one must not be touched from
// outside it. TimeNow tells them apart from the rest while it reads the
// clock, for the price of one time.Since.
//
// It reads time.Since(probe), where probe carries the base pair's monotonic
// reading but the earliest wall reading a time.Time with a monotonic reading
// can carry, 1885-01-01 UTC. Outside a bubble, time.Since subtracts
// monotonic readings, which gives the time since this package initialized.
// Inside one, it subtracts wall readings (the fake clock has none other),
// and the fake clock never reads before 2000-01-01, so the answer is at
// least 115 years. Any fake time a bubble can reach, its real time
// included, is told from a real elapsed time. time.Now would tell them
// apart too, by the monotonic reading that a bubble's time lacks, but it
// reads the wall clock as well, which costs about as much again.
//
// The rule that time.Since reads a bubble's clock by wall readings is Go
// 1.26's (time.Since checks runtimeIsBubbled), and it can only be checked
// inside a bubble, which initialization never is; so TimeNow uses
// time.Since only on the releases TestTimeNowInsideBubble has passed on
// (see timenow_go126.go), and time.Now on the others.

// bubbleSince is the least time.Since(probe) taken for a bubble's: 10
// years. The earliest fake time gives 115; outside a bubble it is the time
// since the program started. It is set that low so that even a time.Since
// that subtracted a bubble's fake clock from the base pair's monotonic
// reading (about 30 years and more, less the machine's uptime) would be
// told. A program that runs for 10 years hands its timers to package time.
const bubbleSince = 10 * 365 * 24 * time.Hour

// timeLayout is time.Time's layout, unchanged since Go 1.9.
type timeLayout struct {
	wall uint64
	ext  int64
	loc  *time.Location
}

const hasMonotonic = 1 << 63 // time.Time's flag in wall

// probe is set up once, while the package initializes (never inside a
// bubble), and checked there: probeOK is false if time.Time's layout or
// time.Since's rule is not what the comment above says.
var probe, probeOK = makeProbe()

func makeProbe() (time.Time, bool) {
	t := pair.t
	if !sinceReadsBubbleByWall || unsafe.Sizeof(t) != unsafe.Sizeof(timeLayout{}) {
		return t, false
	}
	l := (*timeLayout)(unsafe.Pointer(&t))
	if l.wall&hasMonotonic == 0 {
		return t, false
	}
	l.wall = hasMonotonic // 1885-01-01 00:00:00 UTC; ext keeps the monotonic reading
	l.loc = nil
	d := time.Since(t)
	return t, t.Year() == 1885 && t != t.Round(0) && d >= 0 && d < time.Hour
}

// TimeNow returns a reading of System, and true, unless the calling
// goroutine is inside a testing/synctest bubble: then it returns false. A
// reading errs late, as FromTime's do.
func TimeNow() (int64, bool) {
	if !probeOK {
		t := time.Now()
		if t == t.Round(0) { // no monotonic reading: a bubble's fake clock
			return 0, false
		}
		return FromTime(t), true
	}
	d := time.Since(probe)
	if d >= bubbleSince {
		return 0, false
	}
	return pair.after + int64(d), true
}
