//go:build go1.25

package stashtest_test

import (
	"io"
	"net"
	"os"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stashgo/stash/stashcontext"
	"github.com/stashgo/stash/stashtime"
	"github.com/stretchr/testify/require"
)

// TestOneValueInBubble hands serve what main does, stashtime.Default(),
// inside a testing/synctest bubble: no fake, and the same instants on the
// bubble's clock as TestOneValue sees on the stashtest wheel.
func TestOneValueInBubble(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		a, b := net.Pipe()
		defer b.Close()
		ctx, cancel, conn := serve(stashtime.Default(), a)
		defer cancel()
		defer conn.Close()
		errc := make(chan error, 1)
		go func() {
			_, err := conn.Read(make([]byte, 1))
			errc <- err
		}()

		<-ctx.Done()
		require.Equal(t, 10*time.Second, time.Since(start))
		require.ErrorIs(t, ctx.Err(), stashcontext.DeadlineExceeded)
		require.ErrorIs(t, <-errc, os.ErrDeadlineExceeded)
		require.Equal(t, 20*time.Second, time.Since(start))

		time.Sleep(40*time.Second - 1)
		require.NoError(t, conn.SetDeadline(time.Time{}), "closed before the idle timeout")
		time.Sleep(time.Nanosecond)
		synctest.Wait()
		require.ErrorIs(t, conn.SetDeadline(time.Time{}), io.ErrClosedPipe, "not closed at the idle timeout")

		s := openSession(stashtime.Default(), 30*time.Minute, 3)
		time.Sleep(30 * time.Minute)
		synctest.Wait()
		require.False(t, s.valid)
	})
}
