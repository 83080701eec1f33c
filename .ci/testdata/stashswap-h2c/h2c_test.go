// Package h2c is the module .ci/stashswap.sh builds twice: with the overlay
// that stashswap writes for golang.org/x/net/http2 and its h2c package, and
// without. Its test serves HTTP/2 cleartext (h2c) over loopback and waits
// for the server's IdleTimeout to close the connection; -want says where
// that timer must have run: on stash's wheel, or on the runtime's timers.
package h2c

import (
	"context"
	"flag"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stashgo/stash/stashtime"
	"golang.org/x/net/http2"
	"golang.org/x/net/http2/h2c"
)

var want = flag.String("want", "", `where the server's idle timer must run: "wheel" (built with the overlay) or "runtime"`)

const idleTimeout = 200 * time.Millisecond

func TestIdleTimeout(t *testing.T) {
	if *want != "wheel" && *want != "runtime" {
		t.Fatalf(`-want is %q: give "wheel" or "runtime"`, *want)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hello := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "hello over "+r.Proto)
	})
	srv := &http.Server{Handler: h2c.NewHandler(hello, &http2.Server{IdleTimeout: idleTimeout})}
	go srv.Serve(ln)
	defer srv.Close()

	// The client is net/http's own (HTTP/2 without TLS, on the runtime's
	// timers, whatever the overlay): only the server is x/net's.
	var (
		mu     sync.Mutex
		closed = make(chan time.Time, 1) // when the client saw its connection end
		conns  int
	)
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		mu.Lock()
		conns++
		mu.Unlock()
		return &watchedConn{Conn: c, closed: closed}, nil
	}}
	tr.Protocols = new(http.Protocols)
	tr.Protocols.SetUnencryptedHTTP2(true)
	defer tr.CloseIdleConnections()

	fired := stashtime.Default().Stats().Fired
	resp, err := (&http.Client{Transport: tr}).Get("http://" + ln.Addr().String() + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if string(body) != "hello over HTTP/2.0" || resp.ProtoMajor != 2 {
		t.Fatalf("response %s, %q: want HTTP/2 and %q", resp.Proto, body, "hello over HTTP/2.0")
	}
	idle := time.Now()

	select {
	case at := <-closed:
		after := at.Sub(idle)
		// The idle timer sends GOAWAY, and x/net closes the connection
		// a second later (its goAwayTimeout, a timer too) unless the
		// client closes it first.
		t.Logf("the server closed the idle connection %v after the response (IdleTimeout %v, then GOAWAY and x/net's 1 s before closing)",
			after.Round(time.Millisecond), idleTimeout)
		if after < idleTimeout/2 {
			t.Errorf("closed %v after the response: too early for an idle timeout of %v", after, idleTimeout)
		}
	case <-time.After(idleTimeout + 5*time.Second):
		t.Fatalf("the server did not close the connection within 5 s of its idle timeout")
	}
	mu.Lock()
	if conns != 1 {
		t.Errorf("%d connections dialed, want 1", conns)
	}
	mu.Unlock()

	fired = stashtime.Default().Stats().Fired - fired
	t.Logf("timers fired on stash's wheel meanwhile: %d", fired)
	switch {
	case *want == "wheel" && fired == 0:
		t.Errorf("no timer fired on the wheel: the server's idle timer ran on the runtime's timers (was the overlay given?)")
	case *want == "runtime" && fired != 0:
		t.Errorf("%d timers fired on the wheel, without the overlay", fired)
	}
}

// watchedConn sends the time of its first failed Read, when the server has
// closed the connection, on closed.
type watchedConn struct {
	net.Conn
	closed chan<- time.Time
	once   sync.Once
}

func (c *watchedConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if err != nil {
		c.once.Do(func() { c.closed <- time.Now() })
	}
	return n, err
}
