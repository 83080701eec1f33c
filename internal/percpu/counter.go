// Package percpu holds counters that goroutines on every P add to without
// contending for one cache line.
package percpu

import (
	"runtime"
	"sync/atomic"
	_ "unsafe" // for go:linkname
)

// A Counter is an int64 that goroutines on every P add to at once: each
// adds to the cell of the P it runs on, and Load sums the cells, so an Add
// costs an atomic add on a line no other core writes, rather than a
// cache-line transfer. A Load concurrent with Adds sees some of them. The
// zero value is not usable: make one with NewCounter.
type Counter struct {
	cells []cell // a power of two of them
}

// A cell fills two cache lines, since cores fetch lines in adjacent pairs.
type cell struct {
	n atomic.Int64
	_ [128 - 8]byte
}

// maxCells bounds the cells: P ids past it share them.
const maxCells = 256

// NewCounter returns a Counter with a cell per P (a power of two, at least
// the number of Ps and of CPUs, at most 256).
func NewCounter() *Counter {
	n := 1
	for n < min(max(runtime.GOMAXPROCS(0), runtime.NumCPU()), maxCells) {
		n *= 2
	}
	return &Counter{cells: make([]cell, n)}
}

// Add adds d to the counter.
func (c *Counter) Add(d int64) {
	p := procPin()
	procUnpin()
	c.cells[p&(len(c.cells)-1)].n.Add(d)
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
