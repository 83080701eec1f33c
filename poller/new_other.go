//go:build !linux

package poller

// New returns the best Poller for clock c on this OS: the portable one.
func New(c Clock) Poller { return NewPortable(c) }
