package clock

import (
	"time"
	_ "unsafe" // for go:linkname
)

// A Clock reads monotonic time in nanoseconds.
type Clock interface {
	// Now returns the current reading in nanoseconds.
	Now() int64
	// Time converts a reading of this clock to a time.Time whose wall and
	// monotonic parts both correspond to that reading.
	Time(mono int64) time.Time
}

// System is the process's monotonic clock: the runtime's nanotime, which is
// CLOCK_MONOTONIC on Linux.
var System Clock = systemClock{}

type systemClock struct{}

//go:linkname nanotime runtime.nanotime
func nanotime() int64

// Mono returns the current reading of the system monotonic clock.
func Mono() int64 { return nanotime() }

func (systemClock) Now() int64 { return nanotime() }

func (systemClock) Time(mono int64) time.Time {
	now := time.Now()
	return now.Add(time.Duration(mono - nanotime()))
}
