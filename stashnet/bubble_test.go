//go:build go1.25

package stashnet

import (
	"io"
	"net"
	"os"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stashgo/stash/stashtime"
	"github.com/stretchr/testify/require"
)

// bubbleWraps are the ways of putting a connection inside a bubble: as it
// is, which is what package net gives there, and wrapped on the
// process-wide wheel and on a wheel of the system clock's.
func bubbleWraps(t *testing.T) []struct {
	name string
	wrap func(net.Conn, ...Option) net.Conn
} {
	w, err := stashtime.NewWheel(stashtime.Options{})
	require.NoError(t, err)
	t.Cleanup(func() { w.Close() })
	return []struct {
		name string
		wrap func(net.Conn, ...Option) net.Conn
	}{
		{"net", func(c net.Conn, _ ...Option) net.Conn { return c }},
		{"WrapConn", WrapConn},
		{"Default", func(c net.Conn, opts ...Option) net.Conn {
			return WrapConn(c, append(opts, WithWheel(stashtime.Default()))...)
		}},
		{"NewWheel", func(c net.Conn, opts ...Option) net.Conn {
			return WrapConn(c, append(opts, WithWheel(w))...)
		}},
	}
}

// TestBubbleDeadlines: inside a testing/synctest bubble a wrapped
// net.Pipe's deadlines pass after exactly their duration on the bubble's
// clock, as the plain pipe's do: set, pushed later while a Read waits,
// and set as a timeout.
func TestBubbleDeadlines(t *testing.T) {
	for _, c := range bubbleWraps(t) {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a, b := net.Pipe()
				conn := c.wrap(a)
				defer b.Close()
				defer conn.Close()
				buf := make([]byte, 1)

				start := time.Now()
				require.NoError(t, conn.SetReadDeadline(start.Add(5*time.Second)))
				_, err := conn.Read(buf)
				require.ErrorIs(t, err, os.ErrDeadlineExceeded)
				require.Equal(t, 5*time.Second, time.Since(start), "read deadline")

				start = time.Now()
				require.NoError(t, conn.SetWriteDeadline(start.Add(3*time.Second)))
				_, err = conn.Write(buf) // nobody reads the peer
				require.ErrorIs(t, err, os.ErrDeadlineExceeded)
				require.Equal(t, 3*time.Second, time.Since(start), "write deadline")

				start = time.Now()
				require.NoError(t, conn.SetReadDeadline(start.Add(5*time.Second)))
				errc := make(chan error, 1)
				go func() {
					_, err := conn.Read(buf)
					errc <- err
				}()
				time.Sleep(2 * time.Second)
				require.NoError(t, conn.SetReadDeadline(time.Now().Add(5*time.Second)))
				require.ErrorIs(t, <-errc, os.ErrDeadlineExceeded)
				require.Equal(t, 7*time.Second, time.Since(start), "read deadline pushed later")

				start = time.Now()
				require.NoError(t, SetReadTimeout(conn, 4*time.Second))
				_, err = conn.Read(buf)
				require.ErrorIs(t, err, os.ErrDeadlineExceeded)
				require.Equal(t, 4*time.Second, time.Since(start), "SetReadTimeout")

				// A deadline cleared lets the Read wait for the peer.
				require.NoError(t, conn.SetReadDeadline(time.Now().Add(time.Second)))
				require.NoError(t, conn.SetReadDeadline(time.Time{}))
				go func() {
					time.Sleep(time.Minute)
					b.Write([]byte("x"))
				}()
				start = time.Now()
				_, err = conn.Read(buf)
				require.NoError(t, err)
				require.Equal(t, time.Minute, time.Since(start), "cleared deadline")
			})
		})
	}
}

// TestBubbleIdleTimeout: inside a bubble a 30 s idle timeout closes a
// wrapped net.Pipe after exactly 30 s of the bubble's time since its last
// activity, and none of real time.
func TestBubbleIdleTimeout(t *testing.T) {
	for _, c := range bubbleWraps(t)[1:] {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			synctest.Test(t, func(t *testing.T) {
				a, b := net.Pipe()
				conn := c.wrap(a, IdleTimeout(30*time.Second))
				defer b.Close()
				start := time.Now()
				go func() {
					time.Sleep(10 * time.Second)
					b.Write([]byte("x"))
				}()
				buf := make([]byte, 1)
				_, err := conn.Read(buf)
				require.NoError(t, err)
				_, err = conn.Read(buf) // until the connection idles out
				require.ErrorIs(t, err, io.ErrClosedPipe)
				require.Equal(t, 40*time.Second, time.Since(start))

				// OnIdle is called at the timeout, on a connection
				// whose jitter is a whole number of ticks.
				a, b = net.Pipe()
				defer b.Close()
				idled := make(chan time.Duration, 1)
				start = time.Now()
				c.wrap(a, IdleTimeout(12*time.Second+345*time.Millisecond), OnIdle(func(nc net.Conn) {
					idled <- time.Since(start)
					nc.Close()
				}))
				require.Equal(t, 12*time.Second+345*time.Millisecond, <-idled)
			})
			require.Less(t, time.Since(start), 5*time.Second, "real time taken")
		})
	}
}
