package poller

import (
	"testing"

	"github.com/stashgo/stash/internal/clock"
)

// impls are the Poller implementations every table-driven test runs against.
func impls() []impl {
	return []impl{
		{"epoll", func(t *testing.T) Poller {
			p, err := NewEpoll()
			if err != nil {
				t.Fatal(err)
			}
			return p
		}},
		{"portable", func(*testing.T) Poller { return NewPortable(clock.System) }},
	}
}
