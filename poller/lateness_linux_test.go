package poller

import (
	"testing"

	"github.com/stashgo/stash/internal/clock"
)

// osSleepers adds the epoll poller, with the thread's default timer slack,
// with the slack lowered to 1 ns, and from a goroutine not locked to its
// thread; and the portable poller with the slack lowered.
func osSleepers() []sleeper {
	unlocked := pollerSleeper("epoll-unlocked", NewEpoll, nil)
	unlocked.locked = false
	return []sleeper{
		pollerSleeper("epoll", NewEpoll, nil),
		pollerSleeper("epoll-slack1ns", NewEpoll, lowSlack),
		unlocked,
		pollerSleeper("portable-slack1ns", func() (Poller, error) { return NewPortable(clock.System), nil }, lowSlack),
	}
}

// lowSlack sets the locked thread's timer slack to 1 ns and returns the undo.
func lowSlack(b *testing.B) func() {
	old, err := timerSlack()
	if err != nil {
		b.Fatal(err)
	}
	if err := setTimerSlack(1); err != nil {
		b.Fatal(err)
	}
	if got, _ := timerSlack(); got != 1 {
		b.Fatalf("timer slack = %d after setting 1", got)
	}
	return func() { setTimerSlack(old) }
}
