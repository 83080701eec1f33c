package poller

import (
	"fmt"
	"testing"
	"time"

	"github.com/stashgo/stash/internal/clock"
)

// waitSleeping waits until p's waiter sleeps toward deadline, in epoll_wait
// or on its runtime timer.
func waitSleeping(t *testing.T, p *epollPoller, deadline int64) {
	t.Helper()
	for limit := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Microsecond) {
		p.armMu.Lock()
		mode := p.mode.Load()
		asleep := p.sleepTo == deadline && (mode == modeFD || p.sched && mode == modeChan)
		p.armMu.Unlock()
		if asleep {
			return
		}
		if time.Now().After(limit) {
			t.Fatal("the waiter did not go to sleep within 10 s")
		}
	}
}

// TestDefer checks that Defer moves a sleeping waiter's wake-up later
// (never earlier, and only for the deadline it sleeps toward), and that a
// Wake still ends the deferred sleep at once.
func TestDefer(t *testing.T) {
	for _, crowded := range []bool{false, true} {
		t.Run(fmt.Sprintf("crowded=%v", crowded), func(t *testing.T) { testDefer(t, crowded) })
	}
}

func testDefer(t *testing.T, crowded bool) {
	pp, err := NewEpoll()
	if err != nil {
		t.Skip(err)
	}
	defer pp.Close()
	p := pp.(*epollPoller)
	p.crowd.always = crowded
	for _, wake := range []bool{false, true} {
		from := clock.Mono() + int64(20*time.Millisecond)
		to := from + int64(100*time.Millisecond)
		done := make(chan int64)
		go func() {
			if err := p.Wait(from); err != nil {
				t.Error(err)
			}
			done <- clock.Mono()
		}()
		waitSleeping(t, p, from)
		if p.Defer(from+1, to) || p.Defer(from, from-1) {
			t.Fatal("Defer moved a wake-up it was not asked for, or earlier")
		}
		if !p.Defer(from, to) {
			t.Fatal("Defer of the waiter's deadline failed")
		}
		var back int64
		if wake {
			p.Wake()
			back = <-done
			if back >= to {
				t.Fatalf("a Wake after Defer returned only at the deferred deadline")
			}
		} else {
			back = <-done
			if back < to {
				t.Fatalf("Wait returned %v before the deferred deadline", time.Duration(to-back))
			}
		}
		if p.Defer(from, to) {
			t.Fatal("Defer succeeded with no waiter asleep")
		}
	}
}
