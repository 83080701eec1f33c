//go:build !(linux || darwin)

package main

import "time"

// fdLimit reports that the limit on open files is unknown.
func fdLimit() (uint64, bool) { return 0, false }

// cpuTime returns 0: the process's CPU time is not measured here.
func cpuTime() time.Duration { return 0 }
