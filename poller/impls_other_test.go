//go:build !linux

package poller

import (
	"testing"

	"github.com/stashgo/stash/internal/clock"
)

// impls are the Poller implementations every table-driven test runs against.
func impls() []impl {
	return []impl{
		{"portable", func(*testing.T) Poller { return NewPortable(clock.System) }},
	}
}
