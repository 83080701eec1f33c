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
		{"epoll-crowded", func(t *testing.T) Poller {
			// Every sleep goes through the scheduler (see waitScheduled).
			p, err := NewEpoll()
			if err != nil {
				t.Fatal(err)
			}
			p.(*epollPoller).crowd.always = true
			return p
		}},
		{"portable", func(*testing.T) Poller { return NewPortable(clock.System) }},
	}
}
