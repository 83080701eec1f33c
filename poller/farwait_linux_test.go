package poller

import (
	"testing"
	"time"

	"github.com/stashgo/stash/internal/measure"
)

// TestFarDeadlineSleeps: a deadline beyond what a 32-bit time_t holds (on
// 386 and arm) still sleeps, without spinning and without an error, until
// Wake. (On 64-bit platforms the deadline fits and the test checks the same
// thing on the ordinary path.)
func TestFarDeadlineSleeps(t *testing.T) {
	for _, deadline := range []int64{(1<<32 + 1) * 1e9, 3e18} {
		p, err := NewEpoll()
		if err != nil {
			t.Skip("no epoll:", err)
		}
		before, err := measure.ProcessCPU()
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- p.Wait(deadline) }()
		time.Sleep(200 * time.Millisecond)
		p.Wake()
		if err := <-done; err != nil {
			t.Fatalf("Wait(%d): %v", deadline, err)
		}
		after, err := measure.ProcessCPU()
		if err != nil {
			t.Fatal(err)
		}
		cpu := after - before
		if cpu > 100*time.Millisecond {
			t.Errorf("Wait(%d) used %v of CPU in 200 ms: it spins", deadline, cpu)
		}
		p.Close()
	}
}

// TestPastDeadlineWaitWhileClosing: a Wait with a deadline already past
// reports ErrClosed once Close has begun, as every other Wait does.
func TestPastDeadlineWaitWhileClosing(t *testing.T) {
	p, err := NewEpoll()
	if err != nil {
		t.Skip("no epoll:", err)
	}
	ep := p.(*epollPoller)
	ep.markClosed() // Close's first step, before it shuts the descriptors
	if err := p.Wait(0); err != ErrClosed {
		t.Fatalf("Wait(0) while closing = %v, want ErrClosed", err)
	}
	// The rest of Close, which a second Close would skip.
	ep.refs.Add(1)
	if ep.refs.Add(refsClosed-1) == refsClosed {
		ep.closeFDs()
	}
}
