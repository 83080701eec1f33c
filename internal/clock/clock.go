package clock

import (
	"math"
	"time"
	_ "unsafe" // for go:linkname
)

// A Clock reads monotonic time in nanoseconds.
//
// Implementations must be safe for concurrent use. Readings are never
// negative and never decrease.
type Clock interface {
	// Now returns the current reading in nanoseconds.
	Now() int64
	// Time converts a reading of this clock to a time.Time whose wall and
	// monotonic parts both correspond to that reading.
	Time(mono int64) time.Time
}

// System is the process's monotonic clock: the runtime's nanotime, which is
// CLOCK_MONOTONIC on Linux (read through the vDSO, no system call), so its
// readings can be handed to a timerfd armed with TFD_TIMER_ABSTIME as they
// are.
//
// The source was chosen by measurement (see BenchmarkNow in this package):
// nanotime is the fastest of the candidates that agree with CLOCK_MONOTONIC
// (about 36 ns on the reference machine, a virtual one); time.Since of a base
// reading is the same nanotime plus arithmetic (about 39 ns), and
// unix.ClockGettime is a real system call, an order of magnitude slower
// (about 480 ns).
var System Clock = systemClock{}

type systemClock struct{}

// nanotime is the runtime's monotonic clock. The runtime explicitly keeps
// this linkname working (it is on its list of widely used internals).
//
//go:linkname nanotime runtime.nanotime
func nanotime() int64

// Mono returns the current reading of the system monotonic clock. It is
// System.Now without the interface call.
func Mono() int64 { return nanotime() }

// IsSystem reports whether c is the system monotonic clock, that is, whether
// its readings are CLOCK_MONOTONIC nanoseconds on Linux.
func IsSystem(c Clock) bool {
	_, ok := c.(systemClock)
	return ok
}

func (systemClock) Now() int64 { return nanotime() }

// Time converts a reading to a time.Time. Its monotonic part is never
// earlier than the reading, and later by at most the few nanoseconds
// between two clock reads at package initialization; its wall part follows
// the monotonic clock from then, as time.Time arithmetic does.
func (systemClock) Time(mono int64) time.Time {
	b := &pair
	return b.t.Add(time.Duration(mono - b.before))
}

// FromTime converts t's monotonic reading to a reading of System, erring
// late by at most the gap of the base pair, never early. t must carry a
// monotonic reading (time.Now does, outside testing/synctest bubbles).
func FromTime(t time.Time) int64 {
	b := &pair
	return b.after + int64(t.Sub(b.t))
}

// A basePair is a time.Time and the system clock read just before and just
// after it, so that conversions either way err late, never early: t's own
// monotonic reading lies between before and after.
type basePair struct {
	t             time.Time
	before, after int64
}

// pair is the tightest of a few base pairs: the one whose reads lay closest
// together, in case the goroutine was preempted between them. It is taken
// while the package initializes, which is never inside a testing/synctest
// bubble, so its time.Time always has a monotonic reading.
var pair = func() basePair {
	var best basePair
	gap := int64(math.MaxInt64)
	for range 16 {
		before := nanotime()
		t := time.Now()
		after := nanotime()
		if after-before < gap {
			best, gap = basePair{t, before, after}, after-before
		}
	}
	return best
}()
