package stashnet

import (
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"

	"github.com/stashgo/stash/stashtime"
	"github.com/stretchr/testify/require"
)

// newManualWheel returns a wheel on a manual clock, closed when the test
// ends (after the connections the test closes in its own cleanups).
func newManualWheel(t *testing.T) (*stashtime.Wheel, *stashtime.ManualClock) {
	t.Helper()
	clk := stashtime.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	w, err := stashtime.NewWheel(stashtime.Options{Clock: clk})
	require.NoError(t, err)
	t.Cleanup(func() { w.Close() })
	return w, clk
}

// pipeOn returns a wrapped net.Pipe end on w, and its peer.
func pipeOn(t *testing.T, w *stashtime.Wheel, opts ...Option) (c, peer net.Conn) {
	t.Helper()
	a, b := net.Pipe()
	c = WrapConn(a, append(opts, WithWheel(w))...)
	t.Cleanup(func() { c.Close(); b.Close() })
	return c, b
}

// readErr starts a Read on c and returns where its error will come.
func readErr(c net.Conn) <-chan error {
	errc := make(chan error, 1)
	go func() {
		_, err := c.Read(make([]byte, 8))
		errc <- err
	}()
	return errc
}

// pending fails the test if errc has a result already.
func pending(t *testing.T, errc <-chan error, what string) {
	t.Helper()
	select {
	case err := <-errc:
		t.Fatalf("%s: Read returned %v", what, err)
	default:
	}
}

// recv waits for errc's result, failing after a real-time bound generous
// for a loaded machine.
func recv(t *testing.T, errc <-chan error) error {
	t.Helper()
	select {
	case err := <-errc:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("Read still blocked after 10s of real time")
		return nil
	}
}

func TestWithWheelNilAndDefaultAreTheProcessWheel(t *testing.T) {
	require.Nil(t, buildOptions([]Option{WithWheel(nil)}).src)
	require.Nil(t, buildOptions([]Option{WithWheel(stashtime.Default())}).src)
	require.Nil(t, buildOptions([]Option{WithWheel((*stashtime.Wheel)(nil))}).src)
	w, _ := newManualWheel(t)
	require.NotNil(t, buildOptions([]Option{WithWheel(w)}).src)
}

// nowOnly is a Timers that tells no Clock: a wrapper of a wheel's
// methods, with the wheel's Clock method hidden.
type nowOnly struct{ stashtime.Timers }

// WithWheel takes any Timers, as the code under test does: on one that
// tells no Clock, the deadlines and the idle timeout read its Now, and
// still pass at their instant on a manual wheel.
func TestWithWheelTimers(t *testing.T) {
	w, clk := newManualWheel(t)
	src := buildOptions([]Option{WithWheel(nowOnly{w})}).src
	require.True(t, src.exact())
	require.Zero(t, src.now())
	a, peer := net.Pipe()
	idled := make(chan struct{})
	c := WrapConn(a, WithWheel(nowOnly{w}), IdleTimeout(time.Minute), OnIdle(func(nc net.Conn) {
		close(idled)
		nc.Close()
	}))
	t.Cleanup(func() { c.Close(); peer.Close() })
	require.NoError(t, c.SetReadDeadline(w.Now().Add(5*time.Second)))
	errc := readErr(c)
	clk.Advance(5*time.Second - 1)
	w.Settle()
	pending(t, errc, "1ns before the deadline")
	clk.Advance(1)
	w.Settle()
	require.ErrorIs(t, recv(t, errc), os.ErrDeadlineExceeded)

	clk.Advance(time.Minute - 5*time.Second - 1)
	w.Settle()
	select {
	case <-idled:
		t.Fatal("idle 1ns before the timeout")
	default:
	}
	clk.Advance(1)
	w.Settle()
	select {
	case <-idled:
	default:
		t.Fatal("not idle at the timeout")
	}
}

// A deadline on a manual wheel passes when the wheel's clock reaches it,
// not before, however much real time goes by.
func TestDeadlineOnManualWheel(t *testing.T) {
	w, clk := newManualWheel(t)
	c, _ := pipeOn(t, w)
	before := Stats().Expiries
	require.NoError(t, c.SetReadDeadline(w.Now().Add(5*time.Second)))
	errc := readErr(c)
	clk.Advance(5*time.Second - 1)
	w.Sync()
	pending(t, errc, "1ns before the deadline")
	clk.Advance(1)
	w.Sync()
	require.ErrorIs(t, recv(t, errc), os.ErrDeadlineExceeded)
	require.GreaterOrEqual(t, Stats().Expiries-before, int64(1))
}

// A deadline pushed later on the fast path, then found pushed by the
// timer, re-arms on the wheel's clock.
func TestDeadlinePushedOnManualWheel(t *testing.T) {
	w, clk := newManualWheel(t)
	c, _ := pipeOn(t, w)
	require.NoError(t, SetReadTimeout(c, 5*time.Second)) // due +5s
	errc := readErr(c)
	clk.Advance(3 * time.Second)
	require.NoError(t, SetReadTimeout(c, 5*time.Second)) // due +8s
	clk.Advance(2 * time.Second)                         // +5s: the timer fires and re-arms
	w.Sync()
	w.BlockUntil(1)
	pending(t, errc, "at +5s, deadline +8s")
	clk.Advance(3 * time.Second)
	w.Sync()
	require.ErrorIs(t, recv(t, errc), os.ErrDeadlineExceeded)
}

// A deadline past on the wheel's clock fails I/O at once, and one ahead
// on it holds until the clock gets there: only the wheel's clock counts.
func TestPastDeadlineOnManualWheel(t *testing.T) {
	w, clk := newManualWheel(t)
	clk.Advance(time.Hour)
	c, _ := pipeOn(t, w)
	before := Stats().PastDeadlines
	require.NoError(t, c.SetWriteDeadline(w.Now().Add(-time.Second)))
	_, err := c.Write([]byte("x"))
	require.ErrorIs(t, err, os.ErrDeadlineExceeded)
	require.GreaterOrEqual(t, Stats().PastDeadlines-before, int64(1))

	// Cleared, a new one in the wheel's future holds until it comes.
	require.NoError(t, c.SetWriteDeadline(time.Time{}))
	require.NoError(t, c.SetReadDeadline(w.Now().Add(time.Second)))
	errc := readErr(c)
	pending(t, errc, "a second ahead on the wheel")
	clk.Advance(time.Second)
	w.Sync()
	require.ErrorIs(t, recv(t, errc), os.ErrDeadlineExceeded)
}

func TestIdleTimeoutOnManualWheel(t *testing.T) {
	w, clk := newManualWheel(t)
	before := Stats().IdleCloses
	c, peer := pipeOn(t, w, IdleTimeout(time.Minute))
	go peer.Write([]byte("hi"))
	clk.Advance(40 * time.Second)
	_, err := c.Read(make([]byte, 8)) // activity at +40s
	require.NoError(t, err)
	errc := readErr(c)
	clk.Advance(20 * time.Second) // +60s: active 20s ago
	w.Sync()
	w.BlockUntil(1)
	pending(t, errc, "20s after activity")
	clk.Advance(40*time.Second - 1)
	w.Sync()
	w.BlockUntil(1)
	pending(t, errc, "1ns before the idle timeout")
	clk.Advance(1)
	w.Sync()
	require.ErrorIs(t, recv(t, errc), io.ErrClosedPipe)
	require.GreaterOrEqual(t, Stats().IdleCloses-before, int64(1))
}

// A wheel of its own on the system clock: the deadlines are the system
// clock's readings, as on the process-wide wheel, and the timers that
// wheel's.
func TestDeadlineOnOwnSystemWheel(t *testing.T) {
	w, err := stashtime.NewWheel(stashtime.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { w.Close() })
	c, _ := pipeOn(t, w)
	began := time.Now()
	require.NoError(t, c.SetReadDeadline(time.Now().Add(20*time.Millisecond)))
	err = recv(t, readErr(c))
	require.True(t, errors.Is(err, os.ErrDeadlineExceeded), "err = %v", err)
	require.GreaterOrEqual(t, time.Since(began), 20*time.Millisecond)
	require.Positive(t, w.Stats().Fired)
}
