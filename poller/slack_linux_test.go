package poller

import "golang.org/x/sys/unix"

// timerSlack returns the calling thread's timer slack in nanoseconds.
//
// The slack lets the kernel delay a thread's hrtimer-based sleeps (nanosleep,
// poll and epoll_wait timeouts) by up to that much to batch wake-ups; 50 µs
// by default. The epoll poller sleeps in epoll_wait without a timeout, on a
// timerfd, whose expiry the kernel does not stretch by the slack (timerfd
// arms its hrtimer with a zero range). BenchmarkLateness (impl=epoll versus
// impl=epoll-slack1ns) measures no difference beyond noise, so the poller
// leaves the slack alone; these helpers exist only for that measurement.
func timerSlack() (int, error) {
	return unix.PrctlRetInt(unix.PR_GET_TIMERSLACK, 0, 0, 0, 0)
}

// setTimerSlack sets the calling thread's timer slack to ns nanoseconds (0
// restores the thread's default). Call it from a goroutine locked to its
// thread, or it changes whichever thread happens to run it.
func setTimerSlack(ns int) error {
	return unix.Prctl(unix.PR_SET_TIMERSLACK, uintptr(ns), 0, 0, 0)
}
