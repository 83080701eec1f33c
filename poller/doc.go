// Package poller is the sleep of a timer wheel's single consumer: wait until
// an absolute monotonic deadline, or until woken from another goroutine.
//
// On Linux the default Poller (New with the system clock, or NewEpoll) is an
// epoll instance watching a timerfd (CLOCK_MONOTONIC, absolute deadlines)
// and an eventfd (wake-ups), so a sleep ends within tens of microseconds of
// its deadline instead of the runtime's millisecond granularity (a 50 µs
// time.Sleep returns about 1 ms late on an idle Linux process). Everywhere
// else, with any clock other than the system clock, and whenever those
// descriptors cannot be created (EMFILE, say), the portable Poller built on
// the runtime's timers and a channel is used; Kind tells which one New
// returned.
//
// The protocol, in short:
//
//   - Wait(deadline) sleeps until the poller's clock reads deadline (an
//     absolute reading, for the system clock CLOCK_MONOTONIC nanoseconds), until
//     a Wake, or until Close. It never returns early otherwise; a deadline
//     already past returns at once; NoDeadline parks the waiter on a Go
//     channel, so the runtime's deadlock detection keeps working.
//   - Wake, from any goroutine, is never lost: it makes the Wait in progress
//     return, or the next one. Wakes coalesce: while one is pending the
//     others cost an atomic load, and the one that makes it pending costs at
//     most one system call.
//   - Close releases every descriptor (at once, or when a Wait in progress
//     returns) and makes Wait and Wake return ErrClosed. It is idempotent.
//
// Deadlines are readings of the poller's clock, for the system clock those
// of Now; Deadline turns a time.Time into one, and WaitUntil and WaitFor
// wait until a time.Time or for a time.Duration.
//
// The epoll poller's Wait is one system call, so the waiter needs no
// runtime.LockOSThread for precision; a sleep of 5 ms or more gives up
// the caller's P while it lasts, and so does a shorter one once the Ps
// have been crowded (every one busy, goroutines waiting) at three sleeps
// in a row. If a wake-up then had to wait for a P, it sleeps on a runtime
// timer instead, so that the scheduler, not a thread that must queue for
// a P, wakes the waiter (Crowder reports it).
// BenchmarkLateness compares both pollers, locked and not, with
// time.Sleep and time.NewTimer.
package poller
