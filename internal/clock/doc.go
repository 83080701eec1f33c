// Package clock is the monotonic nanosecond clock that stash keys timers by,
// a manual clock for tests, and TimeNow, which reads the clock and tells a
// testing/synctest bubble apart (one time.Since of a crafted time.Time on
// Go 1.26, time.Now on other toolchains).
//
// Readings are int64 nanoseconds on the runtime's monotonic clock, which on
// Linux is CLOCK_MONOTONIC, the same clock a timerfd armed with
// TFD_TIMER_ABSTIME measures. A reading means nothing on its own; only
// differences and comparisons between readings of one Clock do.
package clock
