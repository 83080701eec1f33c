package epoch

import (
	"sync"
	"testing"

	"github.com/stashgo/stash/internal/clock"
)

// TestBefore stamps activity from several goroutines while others advance
// the epoch, and checks that Before never lies before a stamped instant.
func TestBefore(t *testing.T) {
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
					Advance(clock.Mono())
				}
			}
		}()
	}
	type stamp struct{ at, e int64 }
	var stamps []stamp
	for range 10_000 {
		at := clock.Mono()
		stamps = append(stamps, stamp{at, Now()})
	}
	close(stop)
	wg.Wait()
	now := clock.Mono()
	for i, s := range stamps {
		if b, _ := Before(s.e, now); b < s.at {
			t.Fatalf("stamp %d: Before says %d ns before the stamped instant", i, s.at-b)
		}
	}
}
