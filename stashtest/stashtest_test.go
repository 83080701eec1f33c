package stashtest_test

import (
	"io"
	"net"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/stashgo/stash/stashcontext"
	"github.com/stashgo/stash/stashnet"
	"github.com/stashgo/stash/stashtest"
	"github.com/stashgo/stash/stashtime"
	"github.com/stretchr/testify/require"
)

// A session is what production code keeps: valid until an AfterFunc
// timer of its Timers flips it. valid is a plain bool, so that the race
// detector checks that Advance orders the test's read after the
// callback's write.
type session struct {
	valid bool
	timer *stashtime.Timer
}

func openSession(timers stashtime.Timers, ttl time.Duration, work int) *session {
	s := &session{valid: true}
	s.timer = timers.AfterFunc(ttl, func() {
		for range work { // a callback with work to do
			runtime.Gosched()
		}
		s.valid = false
	})
	return s
}

// TestSessionExpiry is the session-expiry test as users write it: open a
// session, advance past its time to live, read its state at once, with no
// polling; and 1 ns short of it, the session is still valid.
func TestSessionExpiry(t *testing.T) {
	clk := stashtest.New(t)
	const runs = 1000
	expired := 0
	for i := range runs {
		s := openSession(clk, 30*time.Minute, i%4)
		clk.Advance(30*time.Minute - 1)
		require.True(t, s.valid, "run %d: expired 1 ns early", i)
		clk.Advance(1)
		if !s.valid {
			expired++
		}
	}
	require.Equal(t, runs, expired, "runs whose session read expired right after Advance")
}

// New registers the wheel's Close with the test: once the test is over,
// the wheel is closed.
func TestNewClosesAtCleanup(t *testing.T) {
	var w *stashtest.Wheel
	t.Run("inner", func(t *testing.T) {
		w = stashtest.New(t)
		require.Equal(t, stashtest.Start, w.Now())
		require.NotEqual(t, "", w.Poller())
	})
	require.ErrorIs(t, w.Close(), stashtime.ErrClosed)
}

// AdvanceTo moves to a Time and fires what is due by then; a Time
// behind moves nothing.
func TestAdvanceTo(t *testing.T) {
	clk := stashtest.New(t)
	at := stashtest.Start.Add(time.Hour)
	fired := false
	clk.AfterFunc(time.Hour, func() { fired = true })
	clk.AdvanceTo(at.Add(-1))
	require.False(t, fired)
	clk.AdvanceTo(at)
	require.True(t, fired)
	require.Equal(t, at, clk.Now())
	clk.AdvanceTo(stashtest.Start)
	require.Equal(t, at, clk.Now())
	require.Equal(t, at, clk.ManualClock().Current())
}

// serve is production code: it takes one stashtime.Timers, and puts a
// request's context and its connection's deadline and idle timeout on
// it.
func serve(timers stashtime.Timers, c net.Conn) (stashcontext.Context, stashcontext.CancelFunc, net.Conn) {
	ctx, cancel := stashcontext.On(timers).WithTimeout(stashcontext.Background(), 10*time.Second)
	conn := stashnet.WrapConn(c, stashnet.WithWheel(timers), stashnet.IdleTimeout(time.Minute))
	conn.SetReadDeadline(timers.Now().Add(20 * time.Second))
	return ctx, cancel, conn
}

// TestOneValue hands serve the one fake, and sees the context's deadline,
// the read deadline and the idle timeout pass at their instants.
func TestOneValue(t *testing.T) {
	clk := stashtest.New(t)
	a, b := net.Pipe()
	defer b.Close()
	ctx, cancel, conn := serve(clk, a)
	defer cancel()
	defer conn.Close()
	done := ctx.Done()
	errc := make(chan error, 1)
	go func() {
		_, err := conn.Read(make([]byte, 1))
		errc <- err
	}()

	clk.Advance(10*time.Second - 1)
	require.NoError(t, ctx.Err())
	clk.Advance(1)
	select {
	case <-done:
	default:
		t.Fatal("the context is not done at its deadline")
	}
	require.ErrorIs(t, ctx.Err(), stashcontext.DeadlineExceeded)

	clk.Advance(10 * time.Second)
	require.ErrorIs(t, <-errc, os.ErrDeadlineExceeded)

	// A pipe's SetDeadline fails once it is closed.
	clk.Advance(40*time.Second - 1)
	require.NoError(t, conn.SetDeadline(time.Time{}), "closed before the idle timeout")
	clk.Advance(1)
	require.ErrorIs(t, conn.SetDeadline(time.Time{}), io.ErrClosedPipe, "not closed at the idle timeout")
}
