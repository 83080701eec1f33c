package stashnet

import (
	"net"
	"syscall"
	"testing"
	"time"
)

// impls names the sides of every benchmark: impl=net is the plain
// connection, impl=stash the wrapped one.
var benchImpls = []string{"net", "stash"}

// BenchmarkDeadlineTouch pushes a connection's read deadline 30s ahead,
// again and again, as a server does on every request: on the plain
// loopback TCP connection (a runtime timer update) and on the wrapped one
// (a CAS).
func BenchmarkDeadlineTouch(b *testing.B) {
	benchTouch(b, func(c net.Conn) error { return c.SetReadDeadline(time.Now().Add(30 * time.Second)) })
}

// benchTouch runs touch on the plain connection and on the wrapped one.
func benchTouch(b *testing.B, touch func(net.Conn) error) {
	for _, impl := range benchImpls {
		b.Run("impl="+impl, func(b *testing.B) {
			c, _ := tcpPair(b)
			if impl == "stash" {
				c = WrapConn(c)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if err := touch(c); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDeadlineTouchParallel is BenchmarkDeadlineTouch from every P at
// once, each on its own connection.
func BenchmarkDeadlineTouchParallel(b *testing.B) {
	for _, impl := range benchImpls {
		b.Run("impl="+impl, func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				c, _ := tcpPair(b)
				if impl == "stash" {
					c = WrapConn(c)
				}
				for pb.Next() {
					if err := c.SetReadDeadline(time.Now().Add(30 * time.Second)); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

// BenchmarkIdleTouch measures an idle timeout's bookkeeping per Read: with
// package net, the read deadline pushed to now+idle after every Read (on a
// loopback TCP connection); with stashnet, the wrapper's Read with
// IdleTimeout, which only notes the activity. Both Read from a connection
// that returns at once, so that only the bookkeeping differs.
func BenchmarkIdleTouch(b *testing.B) {
	const idle = 30 * time.Second
	buf := make([]byte, 64)
	b.Run("impl=net", func(b *testing.B) {
		c, _ := tcpPair(b)
		var r net.Conn = nopConn{}
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			if _, err := r.Read(buf); err != nil {
				b.Fatal(err)
			}
			if err := c.SetReadDeadline(time.Now().Add(idle)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("impl=stash", func(b *testing.B) {
		r := WrapConn(nopConn{}, IdleTimeout(idle))
		defer r.Close()
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			if _, err := r.Read(buf); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkDeadlineSet is BenchmarkDeadlineTouch without the clock read:
// the deadline, 30s ahead, moves 1ns later on every call. It is what
// stashnet takes off the runtime; the clock read stays with the caller.
func BenchmarkDeadlineSet(b *testing.B) {
	for _, impl := range benchImpls {
		b.Run("impl="+impl, func(b *testing.B) {
			c, _ := tcpPair(b)
			if impl == "stash" {
				c = WrapConn(c)
			}
			dl := time.Now().Add(30 * time.Second)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				dl = dl.Add(time.Nanosecond)
				if err := c.SetReadDeadline(dl); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkTimeoutTouch is BenchmarkDeadlineTouch through SetReadTimeout:
// on the plain connection it is the same SetReadDeadline(time.Now().Add),
// on the wrapped one it reads the monotonic clock alone.
func BenchmarkTimeoutTouch(b *testing.B) {
	benchTouch(b, func(c net.Conn) error { return SetReadTimeout(c, 30*time.Second) })
}

// A fullConn has every optional method a wrapper keeps, as *net.TCPConn
// does, over a nopConn.
type fullConn struct{ nopConn }

func (fullConn) CloseRead() error                      { return nil }
func (fullConn) CloseWrite() error                     { return nil }
func (fullConn) SyscallConn() (syscall.RawConn, error) { return nil, nil }

// BenchmarkWrapConn wraps a connection with every optional method and
// calls one of them through the wrapper: the cost of the variant.
func BenchmarkWrapConn(b *testing.B) {
	b.ReportAllocs()
	for range b.N {
		w := WrapConn(fullConn{})
		if err := w.(closeWriter).CloseWrite(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadDeadlineCheck measures what a wrapped connection's Read
// costs on top of the inner one's: with no deadline set, an atomic load;
// with one set, a clock read too, to fail I/O at once once it has passed
// (the inner Read returns at once, so that only the wrapper's cost shows).
func BenchmarkReadDeadlineCheck(b *testing.B) {
	buf := make([]byte, 64)
	for _, dl := range []string{"none", "set"} {
		b.Run("deadline="+dl, func(b *testing.B) {
			c := WrapConn(nopConn{})
			if dl == "set" {
				if err := c.SetReadDeadline(time.Now().Add(time.Hour)); err != nil {
					b.Fatal(err)
				}
			}
			defer c.Close()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.Read(buf); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
