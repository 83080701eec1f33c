// Package percpu keeps per-P state apart, so that goroutines on many cores
// add to counters and append to lists without a cache-line transfer
// between them. Each such structure has Shards() shards, and a goroutine
// uses the one of its P (ProcID), masked to the structure's count.
package percpu

import (
	"runtime"
	"sync/atomic"
	_ "unsafe" // for go:linkname
)

// maxShards bounds the number of shards: P ids past it share them.
const maxShards = 256

// Shards returns how many shards to make: a power of two, at least the
// number of Ps and of CPUs, at most 256.
func Shards() int {
	n := 1
	for n < min(max(runtime.GOMAXPROCS(0), runtime.NumCPU()), maxShards) {
		n *= 2
	}
	return n
}

// ProcID returns the id of the P the caller runs on. A goroutine moved to
// another P right after uses the old P's shards, which is as correct and
// only slower.
func ProcID() int {
	p := procPin()
	procUnpin()
	return p
}

// A Counter is an int64 that goroutines on every P add to at once: each
// adds to the cell of the P it runs on, and Load sums the cells, so an Add
// costs an atomic add on a line no other core writes, rather than a
// cache-line transfer. A Load concurrent with Adds sees some of them. The
// zero value is not usable: make one with NewCounter.
type Counter struct {
	cells []cell // Shards() of them
}

// A cell fills two cache lines, since cores fetch lines in adjacent pairs.
type cell struct {
	n atomic.Int64
	_ [128 - 8]byte
}

// NewCounter returns a Counter with a cell per shard.
func NewCounter() *Counter { return &Counter{cells: make([]cell, Shards())} }

// Add adds d to the counter and returns the new value of the cell it
// added to.
func (c *Counter) Add(d int64) int64 { return c.AddOn(ProcID(), d) }

// AddOn is Add for a caller that has read its P id, p.
func (c *Counter) AddOn(p int, d int64) int64 {
	return c.cells[p&(len(c.cells)-1)].n.Add(d)
}

// Load returns the sum of the cells.
func (c *Counter) Load() int64 {
	var sum int64
	for i := range c.cells {
		sum += c.cells[i].n.Load()
	}
	return sum
}

// procPin returns the id of the P the goroutine runs on and keeps it there
// until procUnpin. The runtime keeps this linkname working (sync.Pool's
// per-P shards rest on the same pair).
//
//go:linkname procPin runtime.procPin
func procPin() int

//go:linkname procUnpin runtime.procUnpin
func procUnpin()
