// Package loopback makes connected pairs of loopback TCP connections, for
// the tests and benchmarks of the packages that wrap connections.
package loopback

import (
	"net"
	"time"
)

// Pair returns the two ends of a new loopback TCP connection: the client,
// which dialed, and the server, which accepted.
func Pair() (client, server net.Conn, err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, err
	}
	defer ln.Close()
	type accepted struct {
		c   net.Conn
		err error
	}
	ch := make(chan accepted, 1)
	go func() {
		c, err := ln.Accept()
		ch <- accepted{c, err}
	}()
	client, err = net.DialTimeout("tcp", ln.Addr().String(), 10*time.Second)
	if err != nil {
		return nil, nil, err
	}
	a := <-ch
	if a.err != nil {
		client.Close()
		return nil, nil, a.err
	}
	return client, a.c, nil
}
