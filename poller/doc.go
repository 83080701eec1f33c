// Package poller is the sleep of a timer wheel's single consumer: wait until
// an absolute monotonic deadline, or until woken from another goroutine.
//
// On Linux the default Poller is a goroutine-side epoll instance watching a
// timerfd (CLOCK_MONOTONIC, absolute deadlines) and an eventfd (wake-ups), so
// a sleep ends within microseconds of its deadline instead of the runtime's
// millisecond granularity. Everywhere else, and whenever those descriptors
// cannot be created, a portable Poller built on the runtime's own timers is
// used.
package poller
