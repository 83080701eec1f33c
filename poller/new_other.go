//go:build !linux

package poller

import "github.com/stashgo/stash/internal/clock"

// New returns the best Poller for clock c on this OS: the portable one.
func New(c clock.Clock) Poller { return NewPortable(c) }
