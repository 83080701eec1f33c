package stashnet

import "github.com/stashgo/stash/internal/percpu"

// Counters count what this package's connections have done in the process
// since it started, on every wheel. The counts only grow. Each is kept
// per P (an atomic add on a cache line no other core writes), and only on
// the paths that already take a lock and touch the inner connection: a
// Read, a Write, or a deadline pushed later counts nothing.
type Counters struct {
	// IdleCloses counts connections that idled out: closed, or handed
	// to OnIdle, by the IdleTimeout option.
	IdleCloses int64
	// Expiries counts deadlines that passed while set: the wheel's timer,
	// or a Read or Write before it, found the direction's deadline due
	// and failed its I/O.
	Expiries int64
	// PastDeadlines counts deadlines already past when set (or by the
	// time they were), which fail the direction's I/O at once: net/http
	// sets one to abort a background Read.
	PastDeadlines int64
}

// counters are what Stats reports.
var counters = struct {
	idleCloses, expiries, past *percpu.Counter
}{percpu.NewCounter(), percpu.NewCounter(), percpu.NewCounter()}

// Stats returns a snapshot of the package's counters.
func Stats() Counters {
	return Counters{
		IdleCloses:    counters.idleCloses.Load(),
		Expiries:      counters.expiries.Load(),
		PastDeadlines: counters.past.Load(),
	}
}
