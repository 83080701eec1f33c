package poller

import (
	"sync"
	"time"
)

// New returns the best Poller for clock c on this OS. On Linux with the
// system clock (a nil Clock) that is the epoll poller (see NewEpoll); if its
// descriptors cannot be created (for example EMFILE, the process is out of
// file descriptors) New falls back to the portable poller rather than fail,
// and Kind reports which one is in use. With any other clock (a manual
// clock in tests) it is the portable poller, which waits on that clock.
//
// Before it opens its own descriptors, New makes sure the runtime has
// opened its network poller's (an epoll descriptor and an eventfd), so
// that a process short of descriptors gets the portable poller rather than
// die at its first runtime timer.
func New(c Clock) Poller {
	if isSystem(c) {
		initRuntimePoller()
		if p, err := NewEpoll(); err == nil {
			return p
		}
	}
	return NewPortable(c)
}

// initRuntimePoller makes the runtime open its network poller (an epoll
// descriptor and an eventfd), if nothing has yet: it does so when the first
// timer enters a P's heap, and dies ("netpollinit failed") if it cannot.
// Were New to take the last free descriptors first, a program short of them
// would die at its first runtime timer; this way it is NewEpoll that fails,
// and New falls back to the portable poller. An AfterFunc timer enters the
// heap at once (a channel timer waits for a receiver); one due now leaves
// it at once too, where a stopped one could linger there and keep the
// runtime from ever reporting a deadlock.
var initRuntimePoller = sync.OnceFunc(func() {
	time.AfterFunc(0, func() {})
})
