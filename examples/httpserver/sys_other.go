//go:build !(linux || darwin)

package main

import "time"

// fdLimit reports that the limit on open files is unknown.
func fdLimit() (uint64, bool) { return 0, false }

// cpuTime returns zeros: the process's CPU time and context switches are
// not measured here.
func cpuTime() (cpu time.Duration, vol, invol int64) { return 0, 0, 0 }
