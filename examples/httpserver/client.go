package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

const request = "GET / HTTP/1.1\r\nHost: httpserver\r\n\r\n"

// A load keeps keep-alive connections busy, each sending a request as soon
// as the previous response is in, until close.
type load struct {
	addr    string
	start   chan struct{} // closed once every connection is open
	stop    atomic.Bool
	failed  atomic.Int64 // connections that failed before close
	redial  bool         // dial again when the server closes a connection
	redials atomic.Int64 // connections dialed again
	// timing is set while the measured window lasts: each request then
	// notes its latency, from writing the request to reading the whole
	// response, in its connection's list, which run adds to latencies.
	timing atomic.Bool

	mu        sync.Mutex
	conns     []net.Conn
	latencies []time.Duration
	wg        sync.WaitGroup
	once      sync.Once
}

func newLoad(addr string, redial bool) *load {
	return &load{addr: addr, redial: redial, start: make(chan struct{})}
}

// dial opens n connections one after another, then starts the load on all
// of them at once: a server busy with the first would accept the last
// slowly.
func (ld *load) dial(ctx context.Context, n int) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	defer ld.startOnce()
	d := net.Dialer{KeepAlive: -1}
	for i := range n {
		c, err := d.DialContext(ctx, "tcp", ld.addr)
		if err != nil {
			return fmt.Errorf("connection %d of %d: %w", i+1, n, err)
		}
		ld.mu.Lock()
		ld.conns = append(ld.conns, c)
		ld.mu.Unlock()
		ld.wg.Add(1)
		go ld.run(c)
	}
	return nil
}

func (ld *load) startOnce() {
	select {
	case <-ld.start:
	default:
		close(ld.start)
	}
}

// run sends requests on c from start until close. When the server closes
// c, run dials again if ld.redial is set, and fails otherwise.
func (ld *load) run(c net.Conn) {
	defer ld.wg.Done()
	var lat []time.Duration
	defer func() {
		ld.mu.Lock()
		ld.latencies = append(ld.latencies, lat...)
		ld.mu.Unlock()
	}()
	<-ld.start
	for !ld.stop.Load() {
		err := ld.requests(c, &lat)
		if err == nil || !ld.redial || ld.stop.Load() {
			break
		}
		c.Close()
		if c, err = net.Dial("tcp", ld.addr); err != nil {
			break
		}
		ld.redials.Add(1)
		ld.mu.Lock()
		ld.conns = append(ld.conns, c)
		ld.mu.Unlock()
	}
}

// requests sends requests on c, one after another, until close or an
// error, which it counts as a failure unless ld.redial is set; while
// ld.timing is set, it appends their latencies to lat.
func (ld *load) requests(c net.Conn, lat *[]time.Duration) error {
	br := bufio.NewReader(c)
	for !ld.stop.Load() {
		t0 := time.Now()
		err := ld.request(c, br)
		if err == nil && ld.timing.Load() {
			*lat = append(*lat, time.Since(t0))
		}
		if err != nil {
			if !ld.redial {
				ld.fail()
			}
			return err
		}
	}
	return nil
}

func (ld *load) request(c net.Conn, br *bufio.Reader) error {
	if _, err := io.WriteString(c, request); err != nil {
		return err
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return err
}

func (ld *load) fail() {
	if !ld.stop.Load() {
		ld.failed.Add(1)
	}
}

// latency returns the p50 and p99 of the latencies noted, once close has
// returned; zeros if none were.
func (ld *load) latency() (p50, p99 time.Duration) {
	ld.mu.Lock()
	defer ld.mu.Unlock()
	l := ld.latencies
	if len(l) == 0 {
		return 0, 0
	}
	slices.Sort(l)
	return l[len(l)/2], l[len(l)*99/100]
}

// close stops the load, closes its connections and waits for them.
func (ld *load) close() {
	ld.once.Do(func() {
		ld.stop.Store(true)
		ld.startOnce()
		ld.mu.Lock()
		for _, c := range ld.conns {
			c.Close()
		}
		ld.mu.Unlock()
		ld.wg.Wait()
	})
}

// slowHeader dials addr and sends a request header a byte every 20ms
// until the server hangs up, and returns how long after the dial that
// came; -1 if not within limit.
func slowHeader(addr string, limit time.Duration) time.Duration {
	start := time.Now()
	c, err := net.DialTimeout("tcp", addr, limit)
	if err != nil {
		return -1
	}
	defer c.Close()
	c.SetDeadline(start.Add(limit))
	cut := make(chan time.Duration, 1)
	go func() {
		io.Copy(io.Discard, c)
		cut <- time.Since(start)
	}()
	hdr := "GET / HTTP/1.1\r\nHost: httpserver\r\nX-Slow: "
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for i := 0; ; i++ {
		select {
		case d := <-cut:
			if d >= limit {
				return -1
			}
			return d
		case <-tick.C:
			b := byte('s')
			if i < len(hdr) {
				b = hdr[i]
			}
			c.Write([]byte{b}) // an error shows as the cut
		}
	}
}

// idleConn dials addr, sends one request, reads the response and waits for
// the server to close the connection; it returns how long after the
// request that came, or -1 if not within limit.
func idleConn(addr string, limit time.Duration) time.Duration {
	c, err := net.DialTimeout("tcp", addr, limit)
	if err != nil {
		return -1
	}
	defer c.Close()
	start := time.Now()
	c.SetDeadline(start.Add(limit))
	if _, err := io.WriteString(c, request); err != nil {
		return -1
	}
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return -1
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if _, err := br.ReadByte(); err != io.EOF {
		return -1
	}
	return time.Since(start)
}

// quietLog discards the server's log of the connections it cut.
func quietLog() *log.Logger { return log.New(io.Discard, "", 0) }
