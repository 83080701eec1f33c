//go:build go1.25

package stashcontext_test

import (
	stdcontext "context"
	"testing"
	"testing/synctest"
	"time"

	context "github.com/stashgo/stash/stashcontext"
	"github.com/stashgo/stash/stashtime"
	"github.com/stretchr/testify/require"
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

// TestBubbleOn checks that inside a bubble the Deadlines of the
// process-wide wheel, and of another wheel on the system clock, take
// exactly their duration on the bubble's clock, as package context's do,
// whether On was called inside the bubble or before it, and under a
// parent of package context too.
func TestBubbleOn(t *testing.T) {
	w, err := stashtime.NewWheel(stashtime.Options{})
	require.NoError(t, err)
	defer w.Close()
	outside := context.On(w)
	for range 10 {
		_, cancel := outside.WithTimeout(context.Background(), time.Hour)
		cancel()
	}
	synctest.Test(t, func(t *testing.T) {
		std, stop := stdcontext.WithCancel(stdcontext.Background())
		defer stop()
		for _, c := range []struct {
			name   string
			d      context.Deadlines
			parent context.Context
		}{
			{"On(Default())", context.On(stashtime.Default()), context.Background()},
			{"On(NewWheel)", context.On(w), context.Background()},
			{"On before the bubble", outside, context.Background()},
			{"On(Default()) under a std parent", context.On(stashtime.Default()), std},
		} {
			start := time.Now()
			ctx, cancel := c.d.WithTimeout(c.parent, time.Hour)
			dl, ok := ctx.Deadline()
			require.True(t, ok, c.name)
			require.Equal(t, time.Hour, dl.Sub(start), c.name)
			<-ctx.Done()
			require.Equal(t, time.Hour, time.Since(start), c.name)
			require.ErrorIs(t, ctx.Err(), context.DeadlineExceeded, c.name)
			cancel()

			start = time.Now()
			ctx, cancel = c.d.WithDeadline(c.parent, start.Add(time.Minute))
			<-ctx.Done()
			require.Equal(t, time.Minute, time.Since(start), c.name)
			cancel()
		}
	})
}
