package stashnet_test

import (
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"time"

	"github.com/stashgo/stash/stashnet"
	"github.com/stashgo/stash/stashtime"
)

// On a Wheel over a ManualClock, a test sees a read deadline pass and a
// connection idle out as it advances the clock, with no real waiting: the
// timeouts here are seconds long, and the example takes microseconds.
func ExampleWithWheel() {
	clk := stashtime.NewManualClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	w, err := stashtime.NewWheel(stashtime.Options{Clock: clk})
	if err != nil {
		log.Fatal(err)
	}
	defer w.Close()

	client, server := net.Pipe()
	defer client.Close()
	conn := stashnet.WrapConn(server, stashnet.IdleTimeout(30*time.Second), stashnet.WithWheel(w))
	defer conn.Close()

	// read starts a Read and returns where its result will come.
	read := func() <-chan error {
		errc := make(chan error, 1)
		go func() {
			buf := make([]byte, 16)
			n, err := conn.Read(buf)
			if err == nil {
				fmt.Printf("read %q\n", buf[:n])
			}
			errc <- err
		}()
		return errc
	}

	// A read deadline 5s ahead on the wheel's clock.
	stashnet.SetReadTimeout(conn, 5*time.Second)
	errc := read()
	clk.Advance(5 * time.Second)
	w.Sync()
	fmt.Println("+5s, read timed out:", errors.Is(<-errc, os.ErrDeadlineExceeded))

	// Clear it, and read what the peer sends: activity at +5s.
	conn.SetReadDeadline(time.Time{})
	errc = read()
	client.Write([]byte("hello"))
	<-errc

	// The idle timer, armed for +30s, finds the connection active 25s
	// ago and re-arms for +35s: BlockUntil(1) sees it armed again.
	errc = read()
	clk.Advance(25 * time.Second)
	w.Sync()
	w.BlockUntil(1)
	select {
	case <-errc:
		fmt.Println("+30s, closed too early")
	default:
		fmt.Println("+30s, still open")
	}

	// 30s after the last activity, the connection idles out.
	clk.Advance(5 * time.Second)
	w.Sync()
	fmt.Println("+35s, closed:", errors.Is(<-errc, io.ErrClosedPipe))

	// Output:
	// +5s, read timed out: true
	// read "hello"
	// +30s, still open
	// +35s, closed: true
}
