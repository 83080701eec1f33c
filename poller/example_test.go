package poller_test

import (
	"fmt"
	"runtime"
	"time"

	"github.com/stashgo/stash/internal/clock"
	"github.com/stashgo/stash/poller"
)

// A driver goroutine sleeps until absolute deadlines on the system clock;
// another goroutine cuts a sleep short with Wake, and Close ends it.
func Example() {
	p := poller.New(clock.System) // epoll on Linux, portable elsewhere
	defer p.Close()

	// Sleep until 200µs from now: it never returns early. (A driver would
	// do this from a goroutine locked to its thread, runtime.LockOSThread,
	// for the best precision.)
	deadline := clock.Mono() + int64(200*time.Microsecond)
	p.Wait(deadline)
	fmt.Println("deadline reached:", clock.Mono() >= deadline)

	woken := make(chan struct{})
	done := make(chan struct{})
	go func() { // the driver
		defer close(done)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()

		// An hour-long sleep, cut short by Wake (a Wake that came before
		// the Wait is not lost: the Wait returns at once).
		fmt.Println("woken:", p.Wait(clock.Mono()+int64(time.Hour)))
		close(woken)

		// Close ends a Wait, in progress or not yet begun.
		fmt.Println("closed:", p.Wait(poller.NoDeadline))
	}()

	p.Wake() // from any goroutine
	<-woken
	p.Close()
	<-done
	fmt.Println("wake after close:", p.Wake())

	// Output:
	// deadline reached: true
	// woken: <nil>
	// closed: poller: closed
	// wake after close: poller: closed
}
