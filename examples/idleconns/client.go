package main

import (
	"context"
	"fmt"
	"net"
	"sync"
	"time"
)

// A client opens the connections of a run and talks on them: the busy ones
// every interval until stopBusy, the idle ones a few times before they wait
// for the server to close them. It paces itself with package time whichever
// impl the server uses.
type client struct {
	o    options
	stop chan struct{} // closed by stopBusy

	mu    sync.Mutex
	conns []net.Conn

	wg       sync.WaitGroup // every connection's goroutine
	idleLeft sync.WaitGroup // idle connections the server has not closed yet
}

func newClient(o options) *client {
	return &client{o: o, stop: make(chan struct{})}
}

// isBusy reports whether connection i of n is busy, spreading the busy ones
// evenly among the idle ones.
func isBusy(i, n int, busy float64) bool {
	nb := busyCount(n, busy)
	return (i+1)*nb/n > i*nb/n
}

// busyCount is the number of busy connections among n.
func busyCount(n int, busy float64) int {
	return min(n, max(0, int(float64(n)*busy+0.5)))
}

// dial opens the connections one after another, so as not to overflow the
// server's accept queue, and starts talking on each as soon as it is open.
func (cl *client) dial(ctx context.Context, addr string) error {
	var d net.Dialer
	for i := range cl.o.conns {
		c, err := d.DialContext(ctx, "tcp", addr)
		if err != nil {
			return fmt.Errorf("connection %d of %d: %w", i+1, cl.o.conns, err)
		}
		cl.mu.Lock()
		cl.conns = append(cl.conns, c)
		cl.mu.Unlock()
		cl.wg.Add(1)
		if isBusy(i, cl.o.conns, cl.o.busy) {
			go cl.busy(c)
		} else {
			cl.idleLeft.Add(1)
			go cl.idle(c)
		}
	}
	return nil
}

// busy sends a message every interval until stopBusy, then hangs up.
func (cl *client) busy(c net.Conn) {
	defer cl.wg.Done()
	defer c.Close()
	msg := message(roleBusy)
	tick := time.NewTicker(cl.o.interval)
	defer tick.Stop()
	for {
		if _, err := c.Write(msg); err != nil {
			return // closed by the server, wrongly, or by close
		}
		select {
		case <-cl.stop:
			return
		case <-tick.C:
		}
	}
}

// idle sends idleMsgs messages an interval apart, then waits for the server
// to close the connection.
func (cl *client) idle(c net.Conn) {
	defer cl.wg.Done()
	defer cl.idleLeft.Done()
	defer c.Close()
	msg := message(roleIdle)
	for i := range cl.o.idleMsgs {
		if i > 0 {
			time.Sleep(cl.o.interval)
		}
		if _, err := c.Write(msg); err != nil {
			return
		}
	}
	var buf [msgSize]byte
	for {
		if _, err := c.Read(buf[:]); err != nil {
			return // io.EOF when the deadline closed it
		}
	}
}

// stopBusy makes the busy connections hang up.
func (cl *client) stopBusy() { close(cl.stop) }

// waitIdle waits up to timeout, or until ctx is done, for the server to
// close the idle connections.
func (cl *client) waitIdle(ctx context.Context, timeout time.Duration) {
	done := make(chan struct{})
	go func() {
		cl.idleLeft.Wait() // returns at the latest after close
		close(done)
	}()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
	case <-ctx.Done():
	}
}

// close hangs up every connection and waits for their goroutines. stopBusy
// must have been called.
func (cl *client) close() {
	cl.mu.Lock()
	for _, c := range cl.conns {
		c.Close()
	}
	cl.mu.Unlock()
	cl.wg.Wait()
}

// message returns a message from a connection of the given role.
func message(role byte) []byte {
	m := make([]byte, msgSize)
	m[0] = role
	copy(m[1:], "stash\n")
	return m
}
