package wheel

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestLiveNeverMissesAnArmedTimer: while goroutines start timers and hand
// them to other goroutines to stop (so that a start and its Stop land in
// different cells), live never reads less than the one timer that stays
// armed throughout. The driver goes idle on a zero.
func TestLiveNeverMissesAnArmedTimer(t *testing.T) {
	w, _ := newManualWheel(t, 0)
	f := func() {}
	w.AfterFunc(time.Hour, f) // armed throughout
	const pairs, timers = 2, 20_000
	handoff := make(chan *Timer, 64)
	var wg sync.WaitGroup
	for range pairs {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for range timers {
				handoff <- w.AfterFunc(time.Minute, f)
			}
		}()
		go func() {
			defer wg.Done()
			for range timers {
				(<-handoff).Stop()
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	for reads := 0; ; reads++ {
		// By hand, not require: the loop reads live as often as it can.
		if n := w.Live(); n < 1 {
			t.Fatalf("read %d: live() = %d with a timer armed throughout", reads, n)
		}
		select {
		case <-done:
			require.Equal(t, int64(1), w.Live(), "live() after the churn")
			return
		default:
		}
	}
}
