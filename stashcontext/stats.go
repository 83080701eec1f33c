package stashcontext

import "github.com/stashgo/stash/internal/percpu"

// Counters count what this package's deadlines have done in the process
// since it started, on every wheel. The counts only grow. Each is kept
// per P (an atomic add on a cache line no other core writes), and only on
// the paths that touch a timer: a context canceled before anything looked
// at its deadline counts nothing.
//
// Armed less Reused is how much of the deadlines' work reached the wheel:
// a context whose deadline a pooled timer already covered counts in
// Reused, not Armed (see the package documentation on pooling).
type Counters struct {
	// Armed counts timer arms for deadlines: a timer made or Reset for a
	// context, and each re-arm of a timer that fired before the deadline
	// of the context that then held it.
	Armed int64
	// Reused counts contexts whose deadline a pooled timer, still armed
	// no later than it, watched as it was, touching no wheel.
	Reused int64
	// Pooled counts timers put back in the pool as their context ended.
	Pooled int64
	// Fired counts timer callbacks: those that expired a context and
	// those that found it gone or not yet due.
	Fired int64
	// Expired counts contexts canceled with DeadlineExceeded by their own
	// deadline: by a timer, or found passed when made or first looked at.
	Expired int64
}

// counters are what Stats reports.
var counters = struct {
	armed, reused, pooled, fired, expired *percpu.Counter
}{
	percpu.NewCounter(), percpu.NewCounter(), percpu.NewCounter(),
	percpu.NewCounter(), percpu.NewCounter(),
}

// Stats returns a snapshot of the package's counters. One taken while
// contexts come and go may see some of the moves in progress.
func Stats() Counters {
	return Counters{
		Armed:   counters.armed.Load(),
		Reused:  counters.reused.Load(),
		Pooled:  counters.pooled.Load(),
		Fired:   counters.fired.Load(),
		Expired: counters.expired.Load(),
	}
}
