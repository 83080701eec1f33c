package poller

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stashgo/stash/internal/clock"
)

func init() {
	for _, im := range impls() {
		children.Scenarios["deadlock-"+im.name] = func() { childDeadlock(im) }
	}
}

// childDeadlock runs in a subprocess. A locked driver goroutine uses the
// poller with deadlines (one reached, one cut short by a Wake), then parks in
// Wait(NoDeadline); the main goroutine blocks forever on a channel. Nothing
// can ever run again, so the runtime must say so and kill the process.
func childDeadlock(im impl) {
	p := im.new(nil)
	go func() {
		runtime.LockOSThread()
		p.Wait(clock.Mono() + int64(100*time.Microsecond))
		p.Wake()
		p.Wait(clock.Mono() + long)
		p.Wait(NoDeadline)
		panic("Wait(NoDeadline) returned")
	}()
	<-make(chan struct{})
}

// TestDeadlockDetected: with nothing to wait for, the waiter parks on a
// channel rather than sitting in a system call, so a program whose only
// other goroutine is blocked forever dies with "all goroutines are asleep"
// instead of hanging.
func TestDeadlockDetected(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's runtime never reports deadlocks")
	}
	for _, im := range impls() {
		t.Run(im.name, func(t *testing.T) {
			r := children.Run(t, "deadlock-"+im.name, childLimit)
			if r.Code == 0 || !strings.Contains(r.Stderr, "all goroutines are asleep") {
				t.Fatalf("want a deadlock report, got exit %d (timed out: %v), output:\n%s%s", r.Code, r.TimedOut, r.Stdout, r.Stderr)
			}
		})
	}
}
