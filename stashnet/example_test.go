package stashnet_test

import (
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"time"

	"github.com/stashgo/stash/stashnet"
)

// An http.Server's four timeouts run on the wheel when it serves on a
// wrapped listener.
func ExampleWrapListener() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, "hello")
		}),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      10 * time.Second,
		IdleTimeout:       time.Minute,
	}
	go srv.Serve(stashnet.WrapListener(ln))
	defer srv.Close()

	resp, err := http.Get("http://" + ln.Addr().String())
	if err != nil {
		log.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	http.DefaultClient.CloseIdleConnections()
	fmt.Println(string(body))
	// Output: hello
}

// A connection with an idle timeout is closed once it has been quiet for
// that long; OnIdle replaces the Close.
func ExampleIdleTimeout() {
	c, peer := net.Pipe()
	defer peer.Close()
	idled := make(chan struct{})
	w := stashnet.WrapConn(c,
		stashnet.IdleTimeout(20*time.Millisecond),
		stashnet.IdleJitter(5*time.Millisecond),
		stashnet.OnIdle(func(c net.Conn) {
			fmt.Println("idle")
			c.Close()
			close(idled)
		}))
	go peer.Write([]byte("hi"))
	buf := make([]byte, 2)
	io.ReadFull(w, buf) // activity: the timeout starts over
	fmt.Println(string(buf))
	<-idled
	// Output:
	// hi
	// idle
}

// Pushing a read deadline later on every message is one CAS on a wrapped
// connection.
func ExampleWrapConn() {
	c, peer := net.Pipe()
	defer peer.Close()
	w := stashnet.WrapConn(c)
	defer w.Close()
	go peer.Write([]byte("ping"))
	w.SetReadDeadline(time.Now().Add(30 * time.Second))
	buf := make([]byte, 4)
	_, err := io.ReadFull(w, buf)
	fmt.Println(string(buf), err)

	w.SetReadDeadline(time.Now().Add(-time.Second)) // in the past: fails at once
	_, err = w.Read(buf)
	fmt.Println(err)
	// Output:
	// ping <nil>
	// read pipe: i/o timeout
}

// SetReadTimeout sets a read deadline d from now, as
// SetReadDeadline(time.Now().Add(d)) does; on a wrapped connection it
// reads only the monotonic clock.
func ExampleSetReadTimeout() {
	c, peer := net.Pipe()
	defer peer.Close()
	w := stashnet.WrapConn(c)
	defer w.Close()
	go peer.Write([]byte("ping"))
	stashnet.SetReadTimeout(w, 30*time.Second)
	buf := make([]byte, 4)
	_, err := io.ReadFull(w, buf)
	fmt.Println(string(buf), err)

	stashnet.SetReadTimeout(w, 10*time.Millisecond) // nothing more comes
	_, err = w.Read(buf)
	fmt.Println(err)
	// Output:
	// ping <nil>
	// read pipe: i/o timeout
}
