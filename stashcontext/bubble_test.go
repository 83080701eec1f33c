//go:build go1.25

package stashcontext_test

import (
	"testing"
	"testing/synctest"
	"time"

	context "github.com/stashgo/stash/stashcontext"
)

// TestBubble checks that inside a testing/synctest bubble deadlines follow
// the bubble's fake clock, after timers were pooled outside it.
func TestBubble(t *testing.T) {
	for range 10 {
		_, cancel := context.WithTimeout(context.Background(), time.Hour)
		cancel() // pools its timer
	}
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
		defer cancel()
		<-ctx.Done()
		if d := time.Since(start); d != time.Hour {
			t.Errorf("done after %v of fake time, want 1h", d)
		}
		if ctx.Err() != context.DeadlineExceeded {
			t.Errorf("Err %v", ctx.Err())
		}
	})
}
