package stashnet

import (
	"net"
	"testing"
	"time"

	"github.com/stashgo/stash/internal/loopback"
)

// tcpPair returns the two ends of a loopback TCP connection, closed when
// the test ends.
func tcpPair(tb testing.TB) (client, server net.Conn) {
	tb.Helper()
	client, server, err := loopback.Pair()
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		client.Close()
		server.Close()
	})
	return client, server
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
