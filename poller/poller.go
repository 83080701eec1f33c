package poller

import (
	"errors"
	"math"

	"github.com/stashgo/stash/internal/clock"
)

// NoDeadline passed to Wait means "until woken": the waiter parks on a Go
// channel, not in a system call, so the runtime can still detect a deadlock
// ("all goroutines are asleep") in a program whose only other goroutines are
// blocked too.
const NoDeadline int64 = math.MaxInt64

// A Clock is what a Poller reads its deadlines on: Now in monotonic
// nanoseconds. A nil Clock is the system's monotonic clock, CLOCK_MONOTONIC
// on Linux, which is what NewEpoll's deadlines are read on. A Clock with a
// method Until(deadline int64) (ch <-chan struct{}, cancel func()), such as
// a manual clock for tests, lets the portable Poller sleep on it.
type Clock interface {
	Now() int64
}

// isSystem reports whether c is the system monotonic clock.
func isSystem(c Clock) bool {
	if c == nil {
		return true
	}
	cc, ok := c.(clock.Clock)
	return ok && clock.IsSystem(cc)
}

// ErrClosed is returned by Wait and Wake after Close.
var ErrClosed = errors.New("poller: closed")

// ErrConcurrentWait is returned by a Wait called while another Wait of the
// same Poller is in progress: a Poller has a single waiter.
var ErrConcurrentWait = errors.New("poller: concurrent Wait")

// The values Kind returns.
const (
	// KindEpoll is the Linux poller: an epoll instance watching a timerfd and
	// an eventfd.
	KindEpoll = "epoll"
	// KindPortable is the poller built on the runtime's timers and channels.
	KindPortable = "portable"
)

// A Poller puts one goroutine to sleep until a deadline on its clock, or until
// another goroutine wakes it.
//
// One goroutine calls Wait at a time (a second concurrent Wait returns
// ErrConcurrentWait at once); any goroutine may call Wake and Close at any
// time.
//
// Wake-ups are never lost and never duplicated: Wake sets a pending flag, and
// every return of Wait (for whatever reason) consumes the flag. So a Wake
// that happens before a return of Wait is absorbed by that return, and a Wake
// that happens after it makes the next Wait return at once. A caller that
// publishes work and then calls Wake is therefore sure that the waiter sees
// the work after its next return from Wait.
type Poller interface {
	// Wait blocks until the clock reads at least deadline, or a Wake is
	// pending, or the poller is closed (then it returns ErrClosed). A
	// deadline already reached returns at once. Wait never returns before
	// deadline unless woken or closed; signals (EINTR) and spurious
	// readiness are absorbed. Each return clears the pending Wake, if any.
	//
	// With deadline NoDeadline the waiter parks on a Go channel instead of
	// sleeping in a system call.
	Wait(deadline int64) error
	// Wake makes the current Wait return, or the next one if no Wait is in
	// progress. It never blocks. Wakes that arrive while one is already
	// pending are coalesced into it: only the caller that makes a wake
	// pending signals the waiter (one system call at most, none if the
	// waiter is not asleep in the kernel); the others cost one atomic
	// operation. It returns ErrClosed after Close.
	Wake() error
	// Close releases every resource of the poller and makes a blocked Wait
	// return ErrClosed. It is idempotent: later calls return nil. If a Wait
	// is in progress its descriptors are released when it returns.
	Close() error
	// Kind names the implementation: KindEpoll or KindPortable.
	Kind() string
}

// A Crowder is a Poller that sleeps through the scheduler while the Ps are
// crowded. The Linux poller is one.
type Crowder interface {
	// Crowded reports whether the waiter's sleeps now go through the
	// scheduler: every P is busy and goroutines wait to run. Then a
	// goroutine that yields waits behind them, and one that blocks in
	// Wait lets them run on its thread anyway. Only the waiter calls it.
	Crowded() bool
}
