package main

import (
	"net"
	"testing"
	"time"

	"github.com/stashgo/stash/internal/loopback"
	"github.com/stashgo/stash/stashnet"
)

// netRows: a connection's read deadline pushed 30s ahead again and again
// (http.Server does it on every request), on a plain loopback TCP
// connection and on one wrapped by stashnet; and an idle timeout's
// bookkeeping per Read, with package net the read deadline pushed after
// every Read, with stashnet the wrapper's Read with IdleTimeout. Both Reads
// are from a connection that returns at once, so only the bookkeeping
// differs. The clock read of time.Now().Add is in both deadline-touch
// columns; the timeout-touch row makes the same call,
// stashnet.SetReadTimeout, on both connections: on the plain one it is
// SetReadDeadline(time.Now().Add(d)), on the wrapped one it reads the
// monotonic clock alone. Then the http rows (see httpRows).
func netRows(r *runner) {
	client, server, err := tcpPair()
	if err != nil {
		r.res.add(row{workload: "net deadline-touch", metric: "ns/op", unit: unitNs, time: nan, stash: nan, note: err.Error()})
		return
	}
	defer client.Close()
	defer server.Close()
	const d = 30 * time.Second
	buf := make([]byte, 64)
	touch := func(c net.Conn) func(*testing.B) {
		return func(b *testing.B) {
			for range b.N {
				c.SetReadDeadline(time.Now().Add(d))
			}
		}
	}
	timeoutTouch := func(c net.Conn) func(*testing.B) {
		return func(b *testing.B) {
			for range b.N {
				stashnet.SetReadTimeout(c, d)
			}
		}
	}
	// The wrapped connection has a pair of its own: a deadline set on the
	// plain one behind the wrapper's back would meet the wrapper's timer.
	wc, ws, err := tcpPair()
	if err != nil {
		r.res.add(row{workload: "net deadline-touch", metric: "ns/op", unit: unitNs, time: nan, stash: nan, note: err.Error()})
		return
	}
	defer ws.Close()
	wrapped := stashnet.WrapConn(wc)
	defer wrapped.Close()
	idleWrapped := stashnet.WrapConn(nopConn{}, stashnet.IdleTimeout(d))
	defer idleWrapped.Close()
	for _, v := range []struct {
		workload, metric string
		mk               func(*impl) func(*testing.B)
	}{
		{"net deadline-touch", "ns/op SetReadDeadline(now+30s)", func(im *impl) func(*testing.B) {
			if im == implTime {
				return touch(client)
			}
			return touch(wrapped)
		}},
		{"net timeout-touch", "ns/op SetReadTimeout(30s)", func(im *impl) func(*testing.B) {
			if im == implTime {
				return timeoutTouch(client)
			}
			return timeoutTouch(wrapped)
		}},
		{"net idle-touch", "ns/op per Read", func(im *impl) func(*testing.B) {
			if im == implTime {
				return func(b *testing.B) {
					var nop net.Conn = nopConn{}
					for range b.N {
						nop.Read(buf)
						client.SetReadDeadline(time.Now().Add(d))
					}
				}
			}
			return func(b *testing.B) {
				for range b.N {
					idleWrapped.Read(buf)
				}
			}
		}},
	} {
		var ns [2][]float64
		for round := range r.cfg.rounds {
			for _, im := range pair(round) {
				r.prog.running(im.name, v.workload)
				x, _ := bench(v.mk(im))
				ns[implIndex(im)] = append(ns[implIndex(im)], x)
				r.prog.step()
			}
		}
		r.res.add(newRow(v.workload, v.metric, unitNs, ns[0], ns[1]))
	}
	client.SetReadDeadline(time.Time{})
	httpRows(r)
}

// tcpPair returns the two ends of a loopback TCP connection.
func tcpPair() (client, server net.Conn, err error) { return loopback.Pair() }

// A nopConn's Read returns at once; it isolates the bookkeeping around a
// Read.
type nopConn struct{ net.Conn }

func (nopConn) Read(b []byte) (int, error)       { return len(b), nil }
func (nopConn) Close() error                     { return nil }
func (nopConn) SetReadDeadline(time.Time) error  { return nil }
func (nopConn) SetWriteDeadline(time.Time) error { return nil }
