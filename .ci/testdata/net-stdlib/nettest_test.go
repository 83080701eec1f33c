package net_test

import (
	. "net"
	"testing"
	"time"

	"github.com/stashgo/stash/stashnet"
	"golang.org/x/net/nettest"
)

// TestNettestConn runs x/net's conformance suite for net.Conn
// implementations (deadlines, concurrent use, Close) on both ends of a
// loopback TCP connection wrapped with stashnet.
func TestNettestConn(t *testing.T) { nettest.TestConn(t, wrappedPipe()) }

// TestNettestConnIdleTimeout does the same with an idle timeout, longer
// than the suite runs, on both ends: every Read and Write then counts as
// activity, and a copy goes through them.
func TestNettestConnIdleTimeout(t *testing.T) {
	nettest.TestConn(t, wrappedPipe(stashnet.IdleTimeout(time.Minute)))
}

// wrappedPipe returns a nettest.MakePipe of loopback TCP connections
// wrapped with stashnet and opts.
func wrappedPipe(opts ...stashnet.Option) nettest.MakePipe {
	return func() (c1, c2 Conn, stop func(), err error) {
		ln, err := Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, nil, nil, err
		}
		defer ln.Close()
		type accepted struct {
			c   Conn
			err error
		}
		ch := make(chan accepted, 1)
		go func() {
			c, err := ln.Accept()
			ch <- accepted{c, err}
		}()
		d, err := Dial("tcp", ln.Addr().String())
		if err != nil {
			return nil, nil, nil, err
		}
		a := <-ch
		if a.err != nil {
			d.Close()
			return nil, nil, nil, a.err
		}
		c1, c2 = stashnet.WrapConn(d, opts...), stashnet.WrapConn(a.c, opts...)
		return c1, c2, func() { c1.Close(); c2.Close() }, nil
	}
}
