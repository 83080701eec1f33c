package stashnet

import (
	"io"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stashgo/stash/stashtime"
	"github.com/stretchr/testify/require"
)

// holdTimer stops d's timer, as if the wheel had not yet run its callback:
// the deadline passes with nothing but the I/O calls to notice.
func holdTimer(t *testing.T, d *deadline) {
	t.Helper()
	d.mu.Lock()
	defer d.mu.Unlock()
	require.NotNil(t, d.timer, "the direction's timer is not armed")
	d.timer.Stop()
}

// TestPassedDeadlineFailsIO: a deadline that has passed fails the next I/O
// in its direction at once, as package net's does, though the wheel's
// timer for it has not fired (it is stopped here, which a timer late by
// the wheel's precision rule or its callback's goroutine looks like): on
// Read, Write, ReadFrom and WriteTo, after SetReadDeadline,
// SetWriteDeadline, SetDeadline or SetTimeout, and after the other
// direction's timer has expired it.
func TestPassedDeadlineFailsIO(t *testing.T) {
	const d = 30 * time.Millisecond
	type setup struct {
		set  func(c net.Conn, w *stashtime.Wheel) error
		hold func(c *conn) []*deadline // the timers that have not fired
	}
	reads := func(c *conn) []*deadline { return []*deadline{&c.rd} }
	writes := func(c *conn) []*deadline { return []*deadline{&c.wd} }
	both := func(c *conn) []*deadline { return []*deadline{&c.rd, &c.wd} }
	setups := map[string]setup{
		"SetReadDeadline":  {func(c net.Conn, w *stashtime.Wheel) error { return c.SetReadDeadline(w.Now().Add(d)) }, reads},
		"SetWriteDeadline": {func(c net.Conn, w *stashtime.Wheel) error { return c.SetWriteDeadline(w.Now().Add(d)) }, writes},
		"SetDeadline":      {func(c net.Conn, w *stashtime.Wheel) error { return c.SetDeadline(w.Now().Add(d)) }, both},
		"SetTimeout":       {func(c net.Conn, _ *stashtime.Wheel) error { return SetTimeout(c, d) }, both},
		// The read timer fires and expires reads; the write timer has
		// not yet.
		"SetDeadline/read expired": {func(c net.Conn, w *stashtime.Wheel) error { return c.SetDeadline(w.Now().Add(d)) }, writes},
	}
	type op struct {
		write bool // the direction it uses
		do    func(t *testing.T, c, peer net.Conn) error
	}
	ops := map[string]op{
		"Read": {false, func(t *testing.T, c, peer net.Conn) error {
			write(t, peer, "x")
			_, err := c.Read(make([]byte, 1))
			return err
		}},
		"Write": {true, func(t *testing.T, c, peer net.Conn) error {
			_, err := c.Write([]byte("x"))
			return err
		}},
		"ReadFrom": {true, func(t *testing.T, c, peer net.Conn) error {
			_, err := c.(io.ReaderFrom).ReadFrom(strings.NewReader("x"))
			return err
		}},
		"WriteTo": {false, func(t *testing.T, c, peer net.Conn) error {
			write(t, peer, "x")
			require.NoError(t, peer.(*net.TCPConn).CloseWrite())
			_, err := c.(io.WriterTo).WriteTo(io.Discard)
			return err
		}},
	}
	for sname, s := range setups {
		for oname, o := range ops {
			t.Run(sname+"/"+oname, func(t *testing.T) {
				w, clk := newManualWheel(t)
				inner, peer := tcpPair(t)
				c := WrapConn(inner, WithWheel(w))
				t.Cleanup(func() { c.Close() })
				sc := c.(stashConn).stashConn()
				require.NoError(t, s.set(c, w))
				held := s.hold(sc)
				for _, dd := range held {
					holdTimer(t, dd)
				}
				clk.Advance(d)
				w.Sync() // fires the timers not held
				for _, dd := range []*deadline{&sc.rd, &sc.wd} {
					if dd.dl.Load() > 0 && !slices.Contains(held, dd) {
						// Its timer fires in a goroutine of its own.
						require.Eventually(t, func() bool { return dd.dl.Load() == expired },
							10*time.Second, time.Millisecond, "the timer not held expires its direction")
					}
				}
				err := o.do(t, c, peer)
				dir := &sc.rd
				if o.write {
					dir = &sc.wd
				}
				if dir.dl.Load() == noTimer {
					require.NoError(t, err, "no deadline in this direction")
					return
				}
				checkTimeout(t, oname, err)
			})
		}
	}
}

// TestWriteAfterReadTimeout: with SetDeadline, the Read that times out at
// the deadline is followed at once by a Write, which package net fails every time, as its one timer
// expires both directions, and so must the wrapper, whose two timers fire
// one after the other.
func TestWriteAfterReadTimeout(t *testing.T) {
	const rounds = 10
	for _, impl := range benchImpls {
		t.Run("impl="+impl, func(t *testing.T) {
			c, _ := tcpPair(t)
			if impl == "stash" {
				c = WrapConn(c)
			}
			for i := range rounds {
				require.NoError(t, c.SetDeadline(time.Now().Add(30*time.Millisecond)))
				_, err := c.Read(make([]byte, 1))
				checkTimeout(t, "Read", err)
				n, err := c.Write([]byte("x"))
				if err == nil {
					t.Fatalf("round %d: Write after the deadline = %d, nil; want a deadline error", i, n)
				}
				checkTimeout(t, "Write", err)
			}
		})
	}
}
