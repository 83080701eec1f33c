//go:build go1.25

package stashcontext_test

import (
	stdcontext "context"
	"testing"
	"testing/synctest"
	"time"

	context "github.com/stashgo/stash/stashcontext"
	"github.com/stretchr/testify/require"
)

// TestBubbleDeadlineFromOutside makes contexts outside a testing/synctest
// bubble and looks at them first inside one, with both packages: one whose
// deadline has passed on the real clock is done, with DeadlineExceeded;
// one whose deadline has not is not ended by the bubble's fake clock
// running past it. (Each is canceled inside the bubble: package context's
// Done channel, made there, must not be closed from outside.)
func TestBubbleDeadlineFromOutside(t *testing.T) {
	for _, a := range []api{stdAPI, stashAPI} {
		t.Run(a.name, func(t *testing.T) {
			passed, cancelPassed := a.WithTimeout(stdcontext.Background(), time.Millisecond)
			dl, _ := passed.Deadline()
			for time.Now().Before(dl) {
				time.Sleep(time.Millisecond)
			}
			if a.name == stdAPI.name {
				// Package context's timer, armed on the real clock when
				// the context was made, fires in its own time on a loaded
				// machine: wait for it (looking changes nothing there).
				wait(t, passed)
			}
			pending, cancelPending := a.WithTimeout(stdcontext.Background(), time.Hour)
			synctest.Test(t, func(t *testing.T) {
				require.Equal(t, context.DeadlineExceeded, passed.Err())
				require.True(t, isDone(passed))
				require.Equal(t, context.DeadlineExceeded, stdcontext.Cause(passed))
				cancelPassed()

				done := pending.Done()
				time.Sleep(2 * time.Hour) // on the fake clock
				select {
				case <-done:
					t.Fatalf("done after 2h of the fake clock: %v", pending.Err())
				default:
				}
				require.NoError(t, pending.Err())
				cancelPending()
				require.Equal(t, context.Canceled, pending.Err())
			})
		})
	}
}

// TestDeadlineWithoutMonotonic gives both packages deadlines without a
// monotonic clock reading: they are kept as given, compared with the wall
// clock, and passed ones end the context at once.
func TestDeadlineWithoutMonotonic(t *testing.T) {
	zone := time.FixedZone("UTC+5:30", 5*3600+1800)
	for _, a := range []api{stdAPI, stashAPI} {
		t.Run(a.name, func(t *testing.T) {
			d := time.Now().Add(50 * time.Millisecond).In(zone).Round(0)
			ctx, cancel := a.WithDeadline(stdcontext.Background(), d)
			defer cancel()
			got, ok := ctx.Deadline()
			require.True(t, ok)
			require.Equal(t, d, got) // the same zone, and no monotonic reading
			if err := ctx.Err(); time.Now().Before(d) {
				require.NoError(t, err)
			}
			wait(t, ctx)
			require.False(t, time.Now().Before(d), "done before the deadline")
			require.Equal(t, context.DeadlineExceeded, ctx.Err())

			past := time.Now().Add(-time.Second).Round(0)
			ctx2, cancel2 := a.WithDeadline(stdcontext.Background(), past)
			defer cancel2()
			require.True(t, isDone(ctx2))
			require.Equal(t, context.DeadlineExceeded, ctx2.Err())

			// Under a parent whose deadline, with a monotonic reading, is
			// earlier: the parent's deadline, and a cancel-only context.
			parent, cancelParent := a.WithTimeout(stdcontext.Background(), time.Hour)
			defer cancelParent()
			later := time.Now().Add(2 * time.Hour).Round(0)
			ctx3, cancel3 := a.WithDeadline(parent, later)
			defer cancel3()
			pd, _ := parent.Deadline()
			got3, _ := ctx3.Deadline()
			require.Equal(t, pd, got3)
			require.Contains(t, ctx3.(interface{ String() string }).String(), ".WithCancel")
		})
	}
}
