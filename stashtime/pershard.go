package stashtime

import (
	"runtime"
	_ "unsafe" // for go:linkname
)

// Producers on different Ps keep per-P state apart (counters, the intake's
// lists) so that starting and stopping timers on many cores puts no
// cache-line transfer between them. Each such structure has
// shardCount shards, and a goroutine uses the one of its P (procID), masked
// to the structure's own count. Starting a timer reads its P once for the
// counter and the intake.

// maxShards bounds the number of shards: P ids past it share them.
const maxShards = 256

// shardCount returns how many shards to make: a power of two, at least the
// number of Ps and of CPUs, at most maxShards.
func shardCount() int {
	n := 1
	for n < min(max(runtime.GOMAXPROCS(0), runtime.NumCPU()), maxShards) {
		n *= 2
	}
	return n
}

// procID returns the id of the P the caller runs on. A goroutine moved to
// another P right after uses the old P's shards, which is as correct and
// only slower.
func procID() int {
	p := procPin()
	procUnpin()
	return p
}

// procPin returns the id of the P the goroutine runs on and keeps it there
// until procUnpin. The runtime keeps this linkname working (sync.Pool's
// per-P shards rest on the same pair).
//
//go:linkname procPin runtime.procPin
func procPin() int

//go:linkname procUnpin runtime.procUnpin
func procUnpin()
