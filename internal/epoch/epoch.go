// Package epoch is a coarse clock that costs an atomic load to read: an
// epoch number that advances whenever a wheel's consumer runs a pass, and on
// a ticker while someone needs it to advance at least so often. It records
// the instant (a reading of clock.Mono) each epoch began, so that what was
// stamped with epoch e is known to have happened before epoch e+1 began:
// an upper bound, never early, and late by at most the time between two
// advances.
package epoch

import (
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stashgo/stash/internal/clock"
)

// ring is how many epoch starts are remembered, and MinGap the least time
// between two epochs' starts: Span of the latest epochs is always
// remembered.
const (
	ring   = 1 << 14
	MinGap = int64(time.Millisecond)
	Span   = ring * MinGap // about 16 s
)

var (
	cur    atomic.Int64
	mu     sync.Mutex // orders Advance's start record before its publication
	starts [ring]atomic.Int64
	last   atomic.Int64 // the start of the current epoch
)

// Now returns the current epoch.
func Now() int64 { return cur.Load() }

// unknown marks a start not yet recorded: Before then answers now.
const unknown = math.MaxInt64

// Advance begins a new epoch, unless the current one began less than
// MinGap before now (a clock.Mono reading). The start is read from the
// clock after the epoch is published, so that it is no earlier than any
// read of the epoch before.
func Advance(now int64) {
	if now-last.Load() < MinGap {
		return
	}
	mu.Lock()
	if now-last.Load() < MinGap { // another Advance began one meanwhile
		mu.Unlock()
		return
	}
	e := cur.Load() + 1
	starts[e%ring].Store(unknown)
	cur.Store(e)
	t := clock.Mono()
	starts[e%ring].Store(t)
	last.Store(t)
	mu.Unlock()
}

// Before returns a clock.Mono reading no earlier than anything stamped with
// epoch e: when epoch e+1 began, or now (a reading taken after the stamp)
// while e is still current; final reports whether e has ended, so that the
// bound holds for good. For an epoch older than Span it is only the start
// of the oldest epoch remembered, and a start overwritten by a later
// epoch's is later still: the bound holds, but late.
func Before(e, now int64) (bound int64, final bool) {
	c := cur.Load()
	if e >= c {
		return now, false
	}
	next := e + 1
	if c-next >= ring-1 { // forgotten: the oldest start remembered bounds it
		next = c - (ring - 2)
	}
	if t := starts[next%ring].Load(); t != 0 && t != unknown {
		return min(t, now), true
	}
	return now, false
}
