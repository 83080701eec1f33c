package poller

// New returns the best Poller for clock c on this OS. On Linux with the
// system clock (a nil Clock) that is the epoll poller (see NewEpoll); if its
// descriptors cannot be created (for example EMFILE, the process is out of
// file descriptors) New falls back to the portable poller rather than fail,
// and Kind reports which one is in use. With any other clock (a manual
// clock in tests) it is the portable poller, which waits on that clock.
func New(c Clock) Poller {
	if isSystem(c) {
		if p, err := NewEpoll(); err == nil {
			return p
		}
	}
	return NewPortable(c)
}
