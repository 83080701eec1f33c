package poller

import "golang.org/x/sys/unix"

// timerSlack returns the calling thread's timer slack in nanoseconds.
//
// The slack lets the kernel delay a thread's hrtimer-based sleeps (nanosleep,
// epoll_wait timeouts) by up to that much to batch wake-ups; 50 µs by
// default. The epoll poller sleeps on a timerfd, whose expiry the kernel does
// not stretch by the slack, and BenchmarkLateness measures no difference
// with the slack lowered to 1 ns, so the poller leaves it alone. These
// helpers exist for that measurement.
func timerSlack() (int, error) {
	return unix.PrctlRetInt(unix.PR_GET_TIMERSLACK, 0, 0, 0, 0)
}

// setTimerSlack sets the calling thread's timer slack to ns nanoseconds (0
// restores the thread's default). Call it from a goroutine locked to its
// thread, or it changes whichever thread happens to run it.
func setTimerSlack(ns int) error {
	return unix.Prctl(unix.PR_SET_TIMERSLACK, uintptr(ns), 0, 0, 0)
}
