//go:build linux || darwin

package main

import (
	"syscall"
	"time"
)

// fdLimit raises the soft limit on open files to the hard limit if it can,
// and returns the soft limit in force.
func fdLimit() (uint64, bool) {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &l); err != nil {
		return 0, false
	}
	if l.Cur < l.Max {
		raised := l
		raised.Cur = raised.Max
		if syscall.Setrlimit(syscall.RLIMIT_NOFILE, &raised) == nil {
			l = raised
		}
	}
	return l.Cur, true
}

// cpuTime returns the user and system CPU time the process has used, and
// the context switches its threads have made: voluntary (a thread went to
// sleep) and involuntary (the kernel preempted it).
func cpuTime() (cpu time.Duration, vol, invol int64) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0, 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), int64(ru.Nvcsw), int64(ru.Nivcsw)
}
