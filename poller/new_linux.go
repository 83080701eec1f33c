package poller

import "github.com/stashgo/stash/internal/clock"

// New returns the best Poller for clock c on this OS. On Linux with
// clock.System that is the epoll poller (see NewEpoll); if its descriptors
// cannot be created (for example EMFILE, the process is out of file
// descriptors) New falls back to the portable poller rather than fail, and
// Kind reports which one is in use. With any other clock (clock.Manual in
// tests) it is the portable poller, which waits on that clock.
func New(c clock.Clock) Poller {
	if clock.IsSystem(c) {
		if p, err := NewEpoll(); err == nil {
			return p
		}
	}
	return NewPortable(c)
}
