package main

import (
	"bufio"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stashgo/stash/stashnet"
)

// An httpSetting is one set of http.Server timeouts for the http rows.
type httpSetting struct {
	name                 string
	readHeader, rw, idle time.Duration
}

// httpSettings: the timeouts of an ordinary server, and the short ones of
// a server hardened against slow clients, where deadlines expire and
// timers fire.
var httpSettings = []httpSetting{
	{"default", 2 * time.Second, 4 * time.Second, 4 * time.Second},
	{"short", 50 * time.Millisecond, 100 * time.Millisecond, 30 * time.Millisecond},
}

// httpConns is the keep-alive connections of an http row's load.
const httpConns = 200

func netSteps(c *config) int { return 3*2*c.rounds + len(httpSettings)*2*c.httpRounds }

// httpRows serves an http.Server with each setting's timeouts on a plain
// loopback listener and on a stashnet.WrapListener one, loads it for
// cfg.httpTime with httpConns keep-alive clients in the same process, each
// sending a request as soon as the last response is in (and dialing again
// when the server closes its connection), and adds rows of wall time and
// process CPU time per request.
func httpRows(r *runner) {
	for _, s := range httpSettings {
		var wall, cpu [2][]float64
		for round := range r.cfg.httpRounds {
			for _, im := range pair(round) {
				r.prog.running(im.name, "http "+s.name)
				w, c, err := httpLoad(s, im == implStash, r.cfg.httpTime)
				k := implIndex(im)
				if err != nil {
					w, c = nan, nan
				}
				wall[k], cpu[k] = append(wall[k], w), append(cpu[k], c)
				r.prog.step()
			}
		}
		wl := fmt.Sprintf("net http %s", s.name)
		r.res.add(newRow(wl, "ns wall/req", unitNs, wall[0], wall[1]))
		r.res.add(newRow(wl, "ns CPU/req", unitNs, cpu[0], cpu[1]))
	}
}

// httpLoad runs one load and returns its wall and CPU nanoseconds per
// request.
func httpLoad(s httpSetting, wrap bool, d time.Duration) (wall, cpu float64, err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, 0, err
	}
	var l net.Listener = ln
	if wrap {
		l = stashnet.WrapListener(ln)
	}
	var reqs atomic.Int64
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			reqs.Add(1)
			io.WriteString(w, "ok")
		}),
		ReadHeaderTimeout: s.readHeader,
		ReadTimeout:       s.rw,
		WriteTimeout:      s.rw,
		IdleTimeout:       s.idle,
		ErrorLog:          log.New(io.Discard, "", 0),
	}
	go srv.Serve(l)
	defer srv.Close()
	return loadClients(ln.Addr().String(), &reqs, d)
}

// loadClients loads the server at addr for d with httpConns keep-alive
// clients in this process, each sending a request as soon as the last
// response is in (and dialing again when the server closes its
// connection), and returns the wall and process CPU nanoseconds per
// request the server counted in reqs.
func loadClients(addr string, reqs *atomic.Int64, d time.Duration) (wall, cpu float64, err error) {
	var stop atomic.Bool
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	dial := func() net.Conn {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			return nil
		}
		mu.Lock()
		conns = append(conns, c)
		mu.Unlock()
		return c
	}
	start := make(chan struct{})
	for range httpConns {
		c := dial()
		if c == nil {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for c != nil && !stop.Load() {
				httpClient(c, &stop)
				c.Close()
				if !stop.Load() {
					c = dial()
				}
			}
		}()
	}
	close(start)
	cpu0, reqs0, t0 := processCPU(), reqs.Load(), time.Now()
	time.Sleep(d)
	cpu1, reqs1, elapsed := processCPU(), reqs.Load(), time.Since(t0)
	stop.Store(true)
	mu.Lock()
	for _, c := range conns {
		c.Close()
	}
	mu.Unlock()
	wg.Wait()
	n := float64(max(reqs1-reqs0, 1))
	return float64(elapsed.Nanoseconds()) / n, float64((cpu1 - cpu0).Nanoseconds()) / n, nil
}

const httpRequest = "GET / HTTP/1.1\r\nHost: bench\r\n\r\n"

// httpClient sends requests on c, one after another, until stop or an
// error.
func httpClient(c net.Conn, stop *atomic.Bool) {
	br := bufio.NewReader(c)
	for !stop.Load() {
		if _, err := io.WriteString(c, httpRequest); err != nil {
			return
		}
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			return
		}
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil {
			return
		}
	}
}
