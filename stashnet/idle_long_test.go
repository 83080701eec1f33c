package stashnet

import (
	"io"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestIdleLongOnManualClock: a 30 s idle timeout on a ManualClock wheel
// idles out exactly 30 s after the connection's last activity, though the
// test advances the clock by a second right after each Sync, while the
// timer's callback, started by it, may still be running: a callback that
// re-armed from the reading it took, stale by then, would fire a second
// late. Every other iteration reads a byte at +5 s, moving the deadline
// to +35 s.
func TestIdleLongOnManualClock(t *testing.T) {
	const idle = 30 * time.Second
	w, clk := newManualWheel(t)
	iterations := 1600
	if testing.Short() {
		iterations = 100
	}
	late := 0
	for i := range iterations {
		a, b := net.Pipe()
		var idled atomic.Bool
		c := WrapConn(a, IdleTimeout(idle), WithWheel(w), OnIdle(func(nc net.Conn) {
			idled.Store(true)
			nc.Close()
		}))
		end := 30
		if i%2 == 1 {
			end = 35
		}
		for s := 1; s < end; s++ {
			clk.Advance(time.Second)
			w.Sync() // and advance at once, under the callback it started
			if s == 5 && end == 35 {
				go b.Write([]byte("x"))
				_, err := io.ReadFull(c, make([]byte, 1))
				require.NoError(t, err)
			}
		}
		clk.Advance(time.Second - 1)
		w.Settle()
		require.False(t, idled.Load(), "iteration %d: idle 1 ns before +%ds", i, end)
		clk.Advance(1)
		w.Settle()
		if !idled.Load() {
			late++
		}
		c.Close()
		b.Close()
	}
	require.Zero(t, late, "of %d iterations, %d were not idle at their deadline", iterations, late)
}
