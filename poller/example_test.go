package poller_test

import (
	"fmt"
	"runtime"
	"time"

	"github.com/stashgo/stash/poller"
	"github.com/stashgo/stash/stashtime"
)

// A driver goroutine sleeps until deadlines on the system clock; another
// goroutine cuts a sleep short with Wake, and Close ends it.
func Example() {
	p := poller.New(nil) // the system clock: epoll on Linux, portable elsewhere
	defer p.Close()

	// Sleep for 200µs: it never returns early. (A driver would do this
	// from a goroutine locked to its thread, runtime.LockOSThread, for the
	// best precision.)
	start := time.Now()
	poller.WaitFor(p, 200*time.Microsecond)
	fmt.Println("200µs passed:", time.Since(start) >= 200*time.Microsecond)

	// Deadlines are readings of the clock: Deadline turns an instant into
	// one, for Wait.
	deadline := poller.Deadline(time.Now().Add(100 * time.Microsecond))
	p.Wait(deadline)
	fmt.Println("deadline reached:", poller.Now() >= deadline)

	woken := make(chan struct{})
	done := make(chan struct{})
	go func() { // the driver
		defer close(done)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()

		// An hour-long sleep, cut short by Wake (a Wake that came before
		// the Wait is not lost: the Wait returns at once).
		fmt.Println("woken:", poller.WaitUntil(p, time.Now().Add(time.Hour)))
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
	// 200µs passed: true
	// deadline reached: true
	// woken: <nil>
	// closed: poller: closed
	// wake after close: poller: closed
}

// On a manual clock the portable poller's waiter moves only as the clock
// does, so a test of code that sleeps on a poller waits for nothing real.
func ExampleWaitFor_manualClock() {
	clk := stashtime.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	p := poller.NewPortable(clk)
	defer p.Close()

	done := make(chan struct{})
	go func() {
		defer close(done)
		poller.WaitFor(p, time.Hour)
		fmt.Println("an hour passed on the clock:", clk.Current())
	}()
	for clk.Waiters() == 0 { // until the waiter sleeps on the clock
		runtime.Gosched()
	}
	clk.Advance(59 * time.Minute)
	fmt.Println("not yet at", clk.Current())
	clk.Advance(time.Minute)
	<-done

	// Output:
	// not yet at 2026-01-01 00:59:00 +0000 UTC
	// an hour passed on the clock: 2026-01-01 01:00:00 +0000 UTC
}
