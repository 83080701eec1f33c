// Command httpserver runs an http.Server with all four of its timeouts
// (ReadHeaderTimeout, ReadTimeout, WriteTimeout, IdleTimeout) on a plain
// listener and on a stashnet.WrapListener one, under the same load, and
// compares the two.
//
// A client in the same process opens many keep-alive connections over
// loopback (1000 by default) and sends requests on each, one after
// another, for a fixed duration. http.Server sets a connection's read and
// write deadlines several times per request; on the plain listener each is
// a runtime timer operation, on the wrapped one most are a CAS. The
// program prints, per listener, the requests per second, the process's CPU
// time per request (user+sys from getrusage, client included), the
// clients' p50 and p99 latency (from writing a request to reading the
// whole response), and the timeouts it observed while under load: a
// client sending its header a byte at a time, cut at ReadHeaderTimeout,
// and a keep-alive connection left idle, closed at IdleTimeout. It ends
// with the ratios stash/net.
//
// Run it with
//
//	go run ./examples/httpserver
//	go run ./examples/httpserver -conns 10000 -duration 5s
//	go run ./examples/httpserver -short
//
// -short is the setting of a server hardened against slow clients: 200
// connections, ReadHeaderTimeout 50ms, ReadTimeout and WriteTimeout
// 100ms, IdleTimeout 30ms. A client of a loaded machine may then be slower
// than the idle timeout between two requests, and the server rightly
// closes its connection: the client dials again, as http.Client would,
// and the report counts it among the redials, not the failures.
//
// -cpuprofile and -trace write a CPU profile and an execution trace of
// the measured window of each listener, to the file named with the
// listener's name appended (prof.net, prof.stash); with -rounds, of its
// last run.
//
// A loaded or shared machine makes one run of each a coin toss: -rounds N
// runs each listener N times, net first in odd rounds and stash first in
// even ones, and the ratios at the end are of the medians. Beside two busy
// processes (sh -c 'while :; do :; done', twice), say:
//
//	go run ./examples/httpserver -short -rounds 5
//
// Under a heavy load a connection may wait long for its turn: the timeouts
// (-rht, -idle) must leave room for that, or loaded connections fail.
//
// Every connection costs two file descriptors, its two ends being in one
// process: the program raises the soft RLIMIT_NOFILE to the hard limit
// and, should that not be enough, lowers -conns to fit and says so. It
// exits with status 1 if a timeout was not observed, came early, or a
// loaded connection failed.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"time"
)

// options configure a run; the flags set them.
type options struct {
	conns    int           // keep-alive connections under load
	duration time.Duration // measured time per listener
	rht      time.Duration // ReadHeaderTimeout
	idle     time.Duration // IdleTimeout
	impl     string        // "net", "stash" or "both"
	rounds   int           // runs per listener; with both, in alternating order
	cpuprof  string        // CPU profile file prefix, or ""
	trace    string        // execution trace file prefix, or ""
	redial   bool          // dial again when the server closes a loaded connection
}

func defaultOptions() options {
	return options{
		conns:    1000,
		duration: 3 * time.Second,
		rht:      2 * time.Second,
		idle:     4 * time.Second,
		impl:     "both",
		rounds:   1,
	}
}

func main() {
	o := defaultOptions()
	flag.IntVar(&o.conns, "conns", o.conns, "keep-alive `connections` under load")
	flag.DurationVar(&o.duration, "duration", o.duration, "measured `time` per listener")
	flag.DurationVar(&o.rht, "rht", o.rht, "the server's ReadHeaderTimeout (ReadTimeout and WriteTimeout are twice it)")
	flag.DurationVar(&o.idle, "idle", o.idle, "the server's IdleTimeout")
	flag.StringVar(&o.impl, "impl", o.impl, "`listener`: net, stash or both")
	flag.IntVar(&o.rounds, "rounds", o.rounds, "`runs` per listener, alternating which goes first; the ratios are of medians")
	short := flag.Bool("short", false, "short timeouts: -conns 200 -rht 50ms -idle 30ms, unless set")
	flag.StringVar(&o.cpuprof, "cpuprofile", "", "write each listener's CPU profile of the window to `file`.impl")
	flag.StringVar(&o.trace, "trace", "", "write each listener's execution trace of the window to `file`.impl")
	flag.Parse()
	if *short {
		set := map[string]bool{}
		flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
		if !set["conns"] {
			o.conns = 200
		}
		if !set["rht"] {
			o.rht = 50 * time.Millisecond
		}
		if !set["idle"] {
			o.idle = 30 * time.Millisecond
		}
		o.redial = true
	}
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "httpserver: unexpected arguments %q\n", flag.Args())
		flag.Usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, o, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "httpserver:", err)
		os.Exit(1)
	}
}
