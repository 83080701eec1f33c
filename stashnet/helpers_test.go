package stashnet

import (
	"net"
	"testing"
	"time"
)

// tcpPair returns the two ends of a loopback TCP connection, closed when
// the test ends.
func tcpPair(tb testing.TB) (client, server net.Conn) {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	type res struct {
		c   net.Conn
		err error
	}
	ch := make(chan res, 1)
	go func() {
		c, err := ln.Accept()
		ch <- res{c, err}
	}()
	client, err = net.DialTimeout("tcp", ln.Addr().String(), 10*time.Second)
	if err != nil {
		tb.Fatal(err)
	}
	r := <-ch
	if r.err != nil {
		client.Close()
		tb.Fatal(r.err)
	}
	tb.Cleanup(func() {
		client.Close()
		r.c.Close()
	})
	return client, r.c
}

// A nopConn is a net.Conn whose Read and Write transfer everything at once
// and do nothing else: it isolates a wrapper's own cost per call.
type nopConn struct{ net.Conn }

func (nopConn) Read(b []byte) (int, error)       { return len(b), nil }
func (nopConn) Write(b []byte) (int, error)      { return len(b), nil }
func (nopConn) Close() error                     { return nil }
func (nopConn) SetReadDeadline(time.Time) error  { return nil }
func (nopConn) SetWriteDeadline(time.Time) error { return nil }
func (nopConn) SetDeadline(time.Time) error      { return nil }
