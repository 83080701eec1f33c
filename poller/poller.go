package poller

import (
	"errors"
	"math"
)

// NoDeadline passed to Wait means "until woken": the waiter parks on a Go
// channel, not in a system call, so the runtime can still detect a deadlock.
const NoDeadline int64 = math.MaxInt64

// ErrClosed is returned by Wait and Wake after Close.
var ErrClosed = errors.New("poller: closed")

// A Poller puts one goroutine to sleep until a deadline on its clock, or until
// another goroutine wakes it.
//
// Exactly one goroutine calls Wait at a time; any goroutine may call Wake and
// Close at any time.
type Poller interface {
	// Wait blocks until the clock reads at least deadline, or Wake has been
	// called since the previous Wait returned, or the poller is closed (then
	// it returns ErrClosed). A deadline already reached returns at once.
	// Wait never returns before deadline unless woken or closed.
	Wait(deadline int64) error
	// Wake makes the current or next Wait return. Wakes that arrive while
	// one is already pending are coalesced into it and cost no system call.
	Wake() error
	// Close releases every resource of the poller and makes a blocked Wait
	// return ErrClosed. It is idempotent.
	Close() error
	// Kind names the implementation: "epoll" or "portable".
	Kind() string
}
