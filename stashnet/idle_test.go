package stashnet

import (
	"io"
	"net"
	"runtime"
	"testing"
	"time"
)

// TestIdleTimeout checks that a quiet connection is closed no earlier than
// the idle timeout after its last activity, and that a busy one is not.
func TestIdleTimeout(t *testing.T) {
	t.Parallel()
	const idle = 100 * time.Millisecond
	c, peer := tcpPair(t)
	idled := make(chan time.Time, 1)
	w := WrapConn(c, IdleTimeout(idle), IdleJitter(10*time.Millisecond), OnIdle(func(nc net.Conn) {
		idled <- time.Now()
		nc.Close()
	}))
	// Busy for four idle periods: a byte every idle/5.
	var last time.Time
	buf := make([]byte, 1)
	for range 20 {
		write(t, peer, "b")
		if _, err := io.ReadFull(w, buf); err != nil {
			t.Fatalf("busy connection: Read: %v", err)
		}
		last = time.Now()
		time.Sleep(idle / 5)
	}
	select {
	case at := <-idled:
		// A stall of the test longer than idle excuses idling out while
		// busy, but not closing sooner than idle after the last Read.
		if quiet := at.Sub(last); quiet < idle {
			t.Fatalf("closed %v after the last activity, before the idle timeout %v", quiet, idle)
		}
		t.Logf("idled out while busy, %v after the last Read (a stalled machine?)", at.Sub(last))
		return
	default:
	}
	at := <-idled
	if quiet := at.Sub(last); quiet < idle {
		t.Fatalf("closed %v after the last activity, before the idle timeout %v", quiet, idle)
	} else if quiet > idle+10*time.Millisecond+coarseTick+slack {
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
// as activity while it lasts.
func TestIdleCopyInProgress(t *testing.T) {
	t.Parallel()
	c, peer := tcpPair(t)
	w := WrapConn(c, IdleTimeout(50*time.Millisecond))
	defer w.Close()
	pr, pw := io.Pipe()
	go func() {
		for range 10 {
			time.Sleep(30 * time.Millisecond)
			pw.Write([]byte("x"))
		}
		pw.Close()
	}()
	go io.Copy(io.Discard, peer)
	// With an idle timeout the copy goes through Write: each chunk counts.
	if n, err := w.(io.ReaderFrom).ReadFrom(pr); err != nil || n != 10 {
		t.Fatalf("ReadFrom = %d, %v; want 10, nil", n, err)
	}
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
// idle timeout of 500 ms: the Write lasts seconds and returns only at the
// end, but its bytes move meanwhile, so the connection is not idle.
func TestIdleLongWrite(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("a Write's progress is seen on Linux only")
	}
	t.Parallel()
	// Long enough that a reader starved of a processor for a while on a
	// loaded machine, under the race detector, still reads within it.
	const idle = 500 * time.Millisecond
	c, peer := tcpPair(t)
	w := WrapConn(c, IdleTimeout(idle))
	defer w.Close()
	go func() {
		buf := make([]byte, 64<<10)
		for {
			if _, err := peer.Read(buf); err != nil {
				return
			}
			time.Sleep(5 * time.Millisecond) // at most 13 MB/s
		}
	}()
	start := time.Now()
	n, err := w.Write(make([]byte, 32<<20))
	took := time.Since(start)
	if err != nil || n != 32<<20 {
		t.Fatalf("Write = %d, %v after %v; want all 32 MB", n, err, took)
	}
	if took < 2*idle {
		t.Fatalf("Write took %v, not long against the idle timeout %v: the reader was not slow", took, idle)
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
