package stashnet

import (
	"fmt"
	"io"
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/stashgo/stash/stashtime"
	"github.com/stretchr/testify/require"
)

// TestIdleTimeout checks that a quiet connection is closed no earlier than
// the idle timeout after its last activity, and that a busy one is not
// while the test keeps it busy: a test stalled for longer than the timeout
// (a loaded machine) may see it idle out, but never sooner than the
// timeout after the last activity.
func TestIdleTimeout(t *testing.T) {
	t.Parallel()
	const idle = 100 * time.Millisecond
	c, peer := tcpPair(t)
	idled := make(chan time.Time, 1)
	// last is at or before the last activity: the start, then the
	// beginning of each Read that moves a byte.
	last := time.Now()
	w := WrapConn(c, IdleTimeout(idle), IdleJitter(10*time.Millisecond), OnIdle(func(nc net.Conn) {
		idled <- time.Now()
		nc.Close()
	}))
	// closedAfter checks when the connection idled out, and returns it.
	closedAfter := func() time.Duration {
		t.Helper()
		var at time.Time
		select {
		case at = <-idled:
		case <-time.After(idle + 10*time.Millisecond + coarseTick + slack):
			t.Fatalf("not closed %v after the last activity", time.Since(last))
		}
		quiet := at.Sub(last)
		if quiet < idle {
			t.Fatalf("closed %v after the last activity, before the idle timeout %v", quiet, idle)
		}
		return quiet
	}
	// Busy for four idle periods: a byte every idle/5.
	buf := make([]byte, 1)
	for range 20 {
		before := time.Now()
		write(t, peer, "b")
		if _, err := io.ReadFull(w, buf); err != nil {
			t.Logf("idled out while busy, %v after the last Read (a stalled machine?): %v", closedAfter(), err)
			return
		}
		last = before
		time.Sleep(idle / 5)
	}
	if quiet := closedAfter(); quiet > idle+10*time.Millisecond+coarseTick+slack {
		t.Fatalf("closed %v after the last activity", quiet)
	}
	if _, err := peer.Read(buf); err != io.EOF {
		t.Fatalf("peer Read after idle close: %v, want EOF", err)
	}
}

// TestIdleCloses checks the default idle action, Close, and that an idle
// timeout stopped by Close never fires.
func TestIdleCloses(t *testing.T) {
	t.Parallel()
	c, peer := tcpPair(t)
	start := time.Now()
	WrapConn(c, IdleTimeout(50*time.Millisecond))
	if _, err := peer.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("peer Read: %v, want EOF", err)
	}
	if d := time.Since(start); d < 50*time.Millisecond {
		t.Fatalf("closed after %v, before the idle timeout", d)
	}

	c2, _ := tcpPair(t)
	fired := make(chan struct{}, 1)
	w := WrapConn(c2, IdleTimeout(20*time.Millisecond), OnIdle(func(net.Conn) { fired <- struct{}{} }))
	w.Close()
	time.Sleep(100 * time.Millisecond)
	select {
	case <-fired:
		t.Fatal("OnIdle called after Close")
	default:
	}
}

// TestIdleCopyInProgress checks that a long copy through ReadFrom counts
// as activity while it lasts: on a ManualClock wheel, a copy whose source
// yields a byte every 30 ms, with an idle timeout of 50 ms, outlasts the
// timeout many times over.
func TestIdleCopyInProgress(t *testing.T) {
	t.Parallel()
	const idle = 50 * time.Millisecond
	wh, clk := newManualWheel(t)
	c, peer := tcpPair(t)
	w := WrapConn(c, IdleTimeout(idle), WithWheel(wh))
	defer w.Close()
	i := w.(stashConn).stashConn().idle
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		// With an idle timeout the copy goes through Write: each chunk
		// counts.
		n, err := w.(io.ReaderFrom).ReadFrom(pr)
		if err == nil && n != 10 {
			err = fmt.Errorf("copied %d bytes, want 10", n)
		}
		done <- err
	}()
	for range 10 {
		clk.Advance(30 * time.Millisecond)
		settle(t, wh, i)
		if _, err := pw.Write([]byte("x")); err != nil {
			t.Fatalf("the copy ended early: %v", err)
		}
		readOne(t, peer, 'x')
		// Its Write has returned and stamped the activity.
		require.Eventually(t, func() bool { return i.last.Load() == clk.Now() }, slack, time.Millisecond)
	}
	pw.Close()
	require.NoError(t, <-done)
}

// settle waits until the idle timer of i, on the ManualClock wheel w, has
// done what the clock's reading calls for: re-armed for later, or idled
// out.
func settle(t *testing.T, w *stashtime.Wheel, i *idler) {
	t.Helper()
	w.Sync() // its callback has started
	now := w.Clock().Now()
	require.Eventually(t, func() bool {
		i.mu.Lock()
		defer i.mu.Unlock()
		return i.stopped || i.at > now
	}, slack, time.Millisecond, "the idle timer did not settle")
}

// TestIdleCopyStalled checks that a copy out of a connection whose peer has
// fallen silent is no activity: the idle timeout closes the connection
// under the copy, which then ends.
func TestIdleCopyStalled(t *testing.T) {
	t.Parallel()
	c, _ := tcpPair(t)
	w := WrapConn(c, IdleTimeout(50*time.Millisecond))
	defer w.Close()
	done := make(chan error, 1)
	go func() {
		_, err := io.Copy(io.Discard, w) // w's WriteTo: the proxy loop
		done <- err
	}()
	select {
	case <-done:
	case <-time.After(slack):
		t.Fatal("a copy stalled on a silent peer kept the connection from idling out")
	}
}

// TestIdleGrid checks that busy connections' idle timers arm for the
// points of their timeout's grid, which they share.
func TestIdleGrid(t *testing.T) {
	t.Parallel()
	const idle = 205 * time.Millisecond // off the grid by 5 ms
	var ws []*conn
	var peers []net.Conn
	for range 4 {
		c, peer := tcpPair(t)
		w := WrapConn(c, IdleTimeout(idle))
		defer w.Close()
		ws = append(ws, w.(stashConn).stashConn())
		peers = append(peers, peer)
	}
	buf := make([]byte, 1)
	last := time.Now()
	// Busy for three timeouts, each timer firing and re-arming at
	// least twice: a byte on each connection every idle/5.
	for range 15 {
		for i, w := range ws {
			write(t, peers[i], "b")
			if _, err := io.ReadFull(w.self, buf); err != nil {
				t.Fatalf("busy connection %d: Read: %v", i, err)
			}
		}
		if gap := time.Since(last); gap > idle/2 {
			// A timer that finds no grid point left before the
			// timeout re-arms for the timeout itself, as it should.
			t.Skipf("the test stalled for %v: timers may have re-armed for the timeout itself", gap)
		}
		last = time.Now()
		for i, w := range ws {
			w.idle.mu.Lock()
			at := w.idle.at
			w.idle.mu.Unlock()
			if off := at % int64(coarseTick); off != int64(idle%coarseTick) {
				t.Fatalf("connection %d: timer armed for %v past a grid point, want %v", i, time.Duration(off), idle%coarseTick)
			}
		}
		time.Sleep(idle / 5)
	}
}

// TestIdleLongWrite writes 32 MB to a peer that reads slowly, with an
// idle timeout of 500 ms on a ManualClock wheel: the Write lasts many
// timeouts and returns only at the end, but its bytes move meanwhile, so
// the connection is not idle. The test reads a little, waits until the
// peer has acknowledged more and more is waiting to be sent, and advances
// the clock by the timer's probe interval, again and again: each look of
// the idle timer sees the output move, however slowly the machine runs.
func TestIdleLongWrite(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("a Write's progress is seen on Linux only")
	}
	t.Parallel()
	const (
		idle  = 500 * time.Millisecond
		probe = idle / 8 // see idler.watch
	)
	wh, clk := newManualWheel(t)
	c, peer := tcpPair(t)
	// Small socket buffers, so that each Read of the peer frees enough
	// of its window for more to be sent and acknowledged.
	require.NoError(t, c.(*net.TCPConn).SetWriteBuffer(64<<10))
	require.NoError(t, peer.(*net.TCPConn).SetReadBuffer(64<<10))
	data := make([]byte, 32<<20)
	w := WrapConn(c, IdleTimeout(idle), WithWheel(wh))
	defer w.Close()
	i := w.(stashConn).stashConn().idle
	type result struct {
		n   int
		err error
	}
	done := make(chan result, 1)
	go func() {
		n, err := w.Write(data)
		done <- result{n, err}
	}()
	acked, _, ok := sent(c)
	require.True(t, ok, "no TCP_INFO")
	buf := make([]byte, 256<<10)
	start := clk.Now()
	for {
		select {
		case r := <-done:
			if r.err != nil || r.n != len(data) {
				t.Fatalf("Write = %d, %v after %v on the wheel's clock; want all 32 MB", r.n, r.err, time.Duration(clk.Now()-start))
			}
			if took := time.Duration(clk.Now() - start); took < 2*idle {
				t.Fatalf("Write took %v on the wheel's clock, not long against the idle timeout %v", took, idle)
			}
			return
		default:
		}
		if _, err := peer.Read(buf); err != nil {
			t.Fatalf("peer Read: %v", err)
		}
		require.Eventually(t, func() bool {
			// More acknowledged, and more waiting to go: the Write
			// is still under way.
			if a, pending, _ := sent(c); a != acked && pending {
				acked = a
				return true
			}
			select {
			case r := <-done: // all sent and acknowledged
				done <- r
				return true
			default:
				return false
			}
		}, slack, time.Millisecond, "the peer acknowledged nothing more, or nothing more was sent")
		clk.Advance(probe)
		settle(t, wh, i)
		// What the timer saw, or more: the next look must see more.
		acked, _, _ = sent(c)
	}
}

// TestIdleStuckWrite checks that a Write the peer takes nothing of does
// not keep the connection: it is closed under the Write no earlier than
// the idle timeout, and soon after.
func TestIdleStuckWrite(t *testing.T) {
	t.Parallel()
	const idle = 100 * time.Millisecond
	c, _ := tcpPair(t)
	w := WrapConn(c, IdleTimeout(idle))
	defer w.Close()
	start := time.Now()
	_, err := w.Write(make([]byte, 64<<20)) // more than the socket buffers hold
	took := time.Since(start)
	if err == nil {
		t.Fatal("Write to a peer that reads nothing succeeded")
	}
	if took < idle {
		t.Fatalf("closed after %v, before the idle timeout %v", took, idle)
	}
	if took > idle+2*coarseTick+idle/8+slack {
		t.Fatalf("closed after %v", took)
	}
}
