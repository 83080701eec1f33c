package stashnet

import (
	"bytes"
	"errors"
	"io"
	"math"
	"net"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// slack bounds how late a deadline may take effect on a loaded machine:
// generous, since the tests check that a deadline is never early and
// always, eventually, observed.
const slack = 5 * time.Second

// checkTimeout fails unless err is a deadline error as package net
// returns it.
func checkTimeout(t *testing.T, what string, err error) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: nil error, want a deadline error", what)
	}
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("%s: %v, want os.ErrDeadlineExceeded", what, err)
	}
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("%s: %v: not a net.Error with Timeout() true", what, err)
	}
}

// readOne reads one byte from c and fails the test unless it is want.
func readOne(t *testing.T, c net.Conn, want byte) {
	t.Helper()
	var b [1]byte
	if _, err := io.ReadFull(c, b[:]); err != nil {
		t.Fatalf("Read: %v", err)
	}
	if b[0] != want {
		t.Fatalf("Read %q, want %q", b[0], want)
	}
}

func write(t *testing.T, c net.Conn, s string) {
	t.Helper()
	if _, err := c.Write([]byte(s)); err != nil {
		t.Fatalf("Write: %v", err)
	}
}

// blockedReadFails starts a Read on c with nothing to read and checks that
// it fails with a deadline error no earlier than notBefore.
func blockedReadFails(t *testing.T, c net.Conn, notBefore time.Time) {
	t.Helper()
	var b [1]byte
	_, err := c.Read(b[:])
	now := time.Now()
	checkTimeout(t, "blocked Read", err)
	if now.Before(notBefore) {
		t.Fatalf("Read failed %v before its deadline", notBefore.Sub(now))
	}
	if late := now.Sub(notBefore); late > slack {
		t.Fatalf("Read failed %v after its deadline", late)
	}
}

// deadlineCases are the semantics of net.Conn's deadlines; each runs on a
// plain loopback TCP connection and on the same, wrapped. c is the end
// under test, peer the other end.
var deadlineCases = []struct {
	name string
	f    func(t *testing.T, c, peer net.Conn)
}{
	{"past deadline fails Read at once", func(t *testing.T, c, peer net.Conn) {
		write(t, peer, "x") // even with data to read
		time.Sleep(10 * time.Millisecond)
		if err := c.SetReadDeadline(time.Now().Add(-time.Second)); err != nil {
			t.Fatal(err)
		}
		_, err := c.Read(make([]byte, 1))
		checkTimeout(t, "Read", err)
	}},
	{"deadline expires during blocked Read", func(t *testing.T, c, peer net.Conn) {
		dl := time.Now().Add(50 * time.Millisecond)
		if err := c.SetReadDeadline(dl); err != nil {
			t.Fatal(err)
		}
		blockedReadFails(t, c, dl)
		// It stays expired.
		_, err := c.Read(make([]byte, 1))
		checkTimeout(t, "second Read", err)
	}},
	{"deadline set during blocked Read", func(t *testing.T, c, peer net.Conn) {
		errc := make(chan error, 1)
		go func() {
			_, err := c.Read(make([]byte, 1))
			errc <- err
		}()
		time.Sleep(20 * time.Millisecond) // let the Read block; either way it must fail
		dl := time.Now().Add(30 * time.Millisecond)
		if err := c.SetReadDeadline(dl); err != nil {
			t.Fatal(err)
		}
		checkTimeout(t, "Read", <-errc)
		if time.Now().Before(dl) {
			t.Fatal("Read failed before its deadline")
		}
	}},
	{"extended deadline", func(t *testing.T, c, peer net.Conn) {
		if err := c.SetReadDeadline(time.Now().Add(50 * time.Millisecond)); err != nil {
			t.Fatal(err)
		}
		if err := c.SetReadDeadline(time.Now().Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		time.AfterFunc(150*time.Millisecond, func() { peer.Write([]byte("x")) })
		readOne(t, c, 'x')
	}},
	{"shortened deadline", func(t *testing.T, c, peer net.Conn) {
		if err := c.SetReadDeadline(time.Now().Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		dl := time.Now().Add(50 * time.Millisecond)
		if err := c.SetReadDeadline(dl); err != nil {
			t.Fatal(err)
		}
		blockedReadFails(t, c, dl)
	}},
	{"cleared deadline", func(t *testing.T, c, peer net.Conn) {
		if err := c.SetReadDeadline(time.Now().Add(50 * time.Millisecond)); err != nil {
			t.Fatal(err)
		}
		if err := c.SetReadDeadline(time.Time{}); err != nil {
			t.Fatal(err)
		}
		time.AfterFunc(150*time.Millisecond, func() { peer.Write([]byte("x")) })
		readOne(t, c, 'x')
	}},
	{"cleared then set again", func(t *testing.T, c, peer net.Conn) {
		if err := c.SetReadDeadline(time.Now().Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if err := c.SetReadDeadline(time.Time{}); err != nil {
			t.Fatal(err)
		}
		dl := time.Now().Add(40 * time.Millisecond)
		if err := c.SetReadDeadline(dl); err != nil {
			t.Fatal(err)
		}
		blockedReadFails(t, c, dl)
	}},
	{"future deadline after expiry", func(t *testing.T, c, peer net.Conn) {
		if err := c.SetReadDeadline(time.Now().Add(-time.Second)); err != nil {
			t.Fatal(err)
		}
		_, err := c.Read(make([]byte, 1))
		checkTimeout(t, "Read", err)
		if err := c.SetReadDeadline(time.Now().Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		write(t, peer, "y")
		readOne(t, c, 'y')
	}},
	{"cleared after expiry", func(t *testing.T, c, peer net.Conn) {
		dl := time.Now().Add(20 * time.Millisecond)
		if err := c.SetReadDeadline(dl); err != nil {
			t.Fatal(err)
		}
		blockedReadFails(t, c, dl)
		if err := c.SetReadDeadline(time.Time{}); err != nil {
			t.Fatal(err)
		}
		write(t, peer, "z")
		readOne(t, c, 'z')
	}},
	{"read timeout expires during blocked Read", func(t *testing.T, c, peer net.Conn) {
		start := time.Now()
		if err := SetReadTimeout(c, 50*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		blockedReadFails(t, c, start.Add(50*time.Millisecond))
	}},
	{"read timeout pushed later", func(t *testing.T, c, peer net.Conn) {
		if err := SetReadTimeout(c, 50*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		if err := SetReadTimeout(c, math.MaxInt64); err != nil { // saturates, as time.Time.Add does
			t.Fatal(err)
		}
		time.AfterFunc(150*time.Millisecond, func() { peer.Write([]byte("x")) })
		readOne(t, c, 'x')
	}},
	{"timeout of zero or less fails I/O at once", func(t *testing.T, c, peer net.Conn) {
		write(t, peer, "x") // even with data to read
		time.Sleep(10 * time.Millisecond)
		if err := SetReadTimeout(c, 0); err != nil {
			t.Fatal(err)
		}
		_, err := c.Read(make([]byte, 1))
		checkTimeout(t, "Read", err)
		if err := SetWriteTimeout(c, -time.Second); err != nil {
			t.Fatal(err)
		}
		_, err = c.Write([]byte("x"))
		checkTimeout(t, "Write", err)
	}},
	{"timeout sets both directions", func(t *testing.T, c, peer net.Conn) {
		start := time.Now()
		if err := SetTimeout(c, 100*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		dl := start.Add(100 * time.Millisecond)
		type result struct {
			err error
			at  time.Time
		}
		done := make(chan result, 1)
		go func() {
			_, err := c.Write(make([]byte, 64<<20)) // more than the socket buffers hold; peer reads nothing
			done <- result{err, time.Now()}
		}()
		blockedReadFails(t, c, dl)
		r := <-done
		checkTimeout(t, "blocked Write", r.err)
		if r.at.Before(dl) {
			t.Fatalf("Write failed %v before its deadline", dl.Sub(r.at))
		}
	}},
	{"timeout after Close", func(t *testing.T, c, peer net.Conn) {
		c.Close()
		for name, set := range map[string]func(net.Conn, time.Duration) error{
			"SetTimeout": SetTimeout, "SetReadTimeout": SetReadTimeout, "SetWriteTimeout": SetWriteTimeout,
		} {
			if err := set(c, time.Second); !errors.Is(err, net.ErrClosed) {
				t.Fatalf("%s after Close: %v, want net.ErrClosed", name, err)
			}
		}
	}},
	{"past write deadline fails Write at once", func(t *testing.T, c, peer net.Conn) {
		if err := c.SetWriteDeadline(time.Now().Add(-time.Second)); err != nil {
			t.Fatal(err)
		}
		_, err := c.Write([]byte("x"))
		checkTimeout(t, "Write", err)
		// Reads are unaffected.
		write(t, peer, "r")
		readOne(t, c, 'r')
	}},
	{"write deadline expires during blocked Write", func(t *testing.T, c, peer net.Conn) {
		dl := time.Now().Add(100 * time.Millisecond)
		if err := c.SetWriteDeadline(dl); err != nil {
			t.Fatal(err)
		}
		big := make([]byte, 64<<20) // more than the socket buffers hold; peer reads nothing
		n, err := c.Write(big)
		checkTimeout(t, "Write", err)
		if n == len(big) {
			t.Fatal("Write wrote everything")
		}
		if time.Now().Before(dl) {
			t.Fatal("Write failed before its deadline")
		}
	}},
	{"SetDeadline sets both", func(t *testing.T, c, peer net.Conn) {
		if err := c.SetDeadline(time.Now().Add(-time.Second)); err != nil {
			t.Fatal(err)
		}
		_, err := c.Read(make([]byte, 1))
		checkTimeout(t, "Read", err)
		_, err = c.Write([]byte("x"))
		checkTimeout(t, "Write", err)
		if err := c.SetDeadline(time.Time{}); err != nil {
			t.Fatal(err)
		}
		write(t, c, "w")
		readOne(t, peer, 'w')
	}},
	{"use after Close", func(t *testing.T, c, peer net.Conn) {
		if err := c.SetReadDeadline(time.Now().Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		for name, err := range map[string]error{
			"Close":            c.Close(),
			"SetDeadline":      c.SetDeadline(time.Now().Add(time.Hour)),
			"SetReadDeadline":  c.SetReadDeadline(time.Time{}),
			"SetWriteDeadline": c.SetWriteDeadline(time.Now().Add(-time.Hour)),
		} {
			if !errors.Is(err, net.ErrClosed) {
				t.Errorf("%s after Close: %v, want net.ErrClosed", name, err)
			}
		}
		_, err := c.Read(make([]byte, 1))
		if !errors.Is(err, net.ErrClosed) {
			t.Errorf("Read after Close: %v, want net.ErrClosed", err)
		}
		_, err = c.Write([]byte("x"))
		if !errors.Is(err, net.ErrClosed) {
			t.Errorf("Write after Close: %v, want net.ErrClosed", err)
		}
	}},
	{"Close during blocked Read", func(t *testing.T, c, peer net.Conn) {
		if err := c.SetReadDeadline(time.Now().Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		time.AfterFunc(30*time.Millisecond, func() { c.Close() })
		_, err := c.Read(make([]byte, 1))
		if !errors.Is(err, net.ErrClosed) {
			t.Errorf("Read: %v, want net.ErrClosed", err)
		}
	}},
}

// TestDeadlines runs every case on the plain and on the wrapped
// connection.
func TestDeadlines(t *testing.T) {
	for _, tc := range deadlineCases {
		for _, impl := range benchImpls {
			t.Run(tc.name+"/impl="+impl, func(t *testing.T) {
				t.Parallel()
				c, peer := tcpPair(t)
				if impl == "stash" {
					c = WrapConn(c)
				}
				tc.f(t, c, peer)
			})
		}
	}
}

// TestErrorsMatchNet checks that the wrapper's deadline and close errors
// read as package net's do.
func TestErrorsMatchNet(t *testing.T) {
	msgs := map[string]string{}
	for _, impl := range benchImpls {
		c, _ := tcpPair(t)
		if impl == "stash" {
			c = WrapConn(c)
		}
		c.SetReadDeadline(time.Now().Add(-time.Second))
		_, err := c.Read(make([]byte, 1))
		c.Close()
		_, err2 := c.Read(make([]byte, 1))
		// The addresses differ; the rest must not.
		msgs[impl] = strings.Join([]string{tail(err), tail(err2)}, " | ")
	}
	if msgs["net"] != msgs["stash"] {
		t.Errorf("net: %s\nstash: %s", msgs["net"], msgs["stash"])
	}
}

func tail(err error) string {
	s := err.Error()
	return s[strings.LastIndex(s, ": ")+2:]
}

func TestWrapNilPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"WrapConn":     func() { WrapConn(nil) },
		"WrapListener": func() { WrapListener(nil) },
	} {
		func() {
			defer func() {
				r := recover()
				if s, _ := r.(string); !strings.HasPrefix(s, "stashnet: "+name+" of nil") {
					t.Errorf("%s(nil) panicked with %v", name, r)
				}
			}()
			f()
		}()
	}
}

// TestMethodSets checks that a wrapper has the optional methods its inner
// connection has, and only those.
func TestMethodSets(t *testing.T) {
	tc, _ := tcpPair(t)
	p1, p2 := net.Pipe()
	defer p1.Close()
	defer p2.Close()
	for _, inner := range []net.Conn{tc, p1, struct{ closeWriterConn }{closeWriterConn{p1}}} {
		w := WrapConn(inner)
		for name, has := range map[string][2]bool{
			"CloseRead":   {is[closeReader](inner), is[closeReader](w)},
			"CloseWrite":  {is[closeWriter](inner), is[closeWriter](w)},
			"SyscallConn": {is[syscall.Conn](inner), is[syscall.Conn](w)},
		} {
			if has[0] != has[1] {
				t.Errorf("%T: inner has %s %v, wrapper %v", inner, name, has[0], has[1])
			}
		}
		if !is[io.ReaderFrom](w) || !is[io.WriterTo](w) {
			t.Errorf("%T: wrapper lacks ReadFrom or WriteTo", inner)
		}
	}
}

type closeWriterConn struct{ net.Conn }

func (closeWriterConn) CloseWrite() error { return nil }

func is[I any](v any) bool {
	_, ok := v.(I)
	return ok
}

// TestCopyKeepsFastPaths copies between wrapped TCP connections, and from
// a file into one, through io.Copy, which reaches the inner connections'
// ReadFrom and WriteTo.
func TestCopyKeepsFastPaths(t *testing.T) {
	a, b := tcpPair(t)
	c, d := tcpPair(t)
	wb, wc := WrapConn(b, IdleTimeout(time.Hour)), WrapConn(c, IdleTimeout(time.Hour))
	defer wb.Close()
	defer wc.Close()
	msg := bytes.Repeat([]byte("stash"), 100_000)
	go func() {
		a.Write(msg)
		a.(*net.TCPConn).CloseWrite()
	}()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		io.Copy(wc, wb) // b's WriteTo into c
		wc.(closeWriter).CloseWrite()
	}()
	got, err := io.ReadAll(d)
	wg.Wait()
	if err != nil || !bytes.Equal(got, msg) {
		t.Fatalf("copied %d bytes (err %v), want %d", len(got), err, len(msg))
	}

	f, err := os.CreateTemp(t.TempDir(), "src")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.Write(msg)
	f.Seek(0, io.SeekStart)
	e, g := tcpPair(t)
	we := WrapConn(e)
	defer we.Close()
	go func() {
		io.Copy(we, f) // sendfile through e's ReadFrom
		we.(closeWriter).CloseWrite()
	}()
	got, err = io.ReadAll(g)
	if err != nil || !bytes.Equal(got, msg) {
		t.Fatalf("sent %d bytes (err %v), want %d", len(got), err, len(msg))
	}
}
