package poller

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stashgo/stash/internal/clock"
	"golang.org/x/sys/unix"
)

func init() {
	children.Scenarios["runtime-timer-after-new"] = childRuntimeTimerAfterNew
}

// childRuntimeTimerAfterNew runs in a subprocess that has set no runtime
// timer yet: with exactly three descriptors free, enough for the epoll
// poller's three or for the runtime's network poller's two, it makes a
// poller and then sleeps on a runtime timer, which makes the runtime open
// its network poller (and die if it cannot).
func childRuntimeTimerAfterNew() {
	var orig unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &orig); err != nil {
		panic(err)
	}
	limitFree(orig, openFDs(4096), 3)
	p := New(clock.System)
	time.Sleep(time.Millisecond) // the runtime's first timer
	if err := p.Wait(clock.Mono() + int64(100*time.Microsecond)); err != nil {
		panic(err)
	}
	fmt.Printf("kind=%s survived\n", p.Kind())
	p.Close()
}

// TestRuntimeNetpollerFirst: New lets the runtime open its network
// poller's descriptors before it opens its own, so that a program short of
// descriptors gets the portable poller, not a runtime that dies in
// netpollinit at its first timer (as it would had New taken the last
// three).
func TestRuntimeNetpollerFirst(t *testing.T) {
	r := children.Run(t, "runtime-timer-after-new", childLimit)
	if r.Code != 0 || !strings.Contains(r.Stdout, "kind="+KindPortable+" survived") {
		t.Fatalf("child: exit %d (timed out: %v)\n%s%s", r.Code, r.TimedOut, r.Stdout, r.Stderr)
	}
}
