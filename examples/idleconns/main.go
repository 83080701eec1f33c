// Command idleconns runs the idle-deadline pattern of a network server with
// package time's timers and with stashnet's idle timeout, and compares the
// two.
//
// A TCP server on 127.0.0.1 gives every connection an idle deadline. On
// the time side it is an AfterFunc timer that closes the connection, pushed
// later with Reset each time a message arrives (deliberately not
// conn.SetReadDeadline, which would bypass the timers under test). On the
// stash side the connection is wrapped by stashnet.WrapConn with
// IdleTimeout: a message only marks the connection active, without a
// clock read or a timer operation, and the connection's wheel timer checks
// the mark once per idle timeout, re-arming while there was activity. A
// client in the same process opens many connections (2000 by default); a
// fraction of them (a tenth) are busy and send a small message every few
// milliseconds (20ms), well inside the idle timeout (200ms), and the rest
// send a few messages and then fall silent. The server must close every
// idle connection when its deadline passes and never a busy one.
//
// The same workload runs once per implementation, for a fixed duration,
// and for each the program prints the server's message rate, the process's
// CPU time per message (user+sys, client included), how many idle
// connections were closed by their deadline (it must be all of them), how
// many busy ones were wrongly closed (it must be none) and how late the
// idle closes came. With both implementations it ends with the ratio
// stash/time of the rate and of the CPU per message. The client paces
// itself with package time in both runs, so only the server's deadlines
// change.
//
// The two sides trade precision differently. time's timer fires at the
// deadline, microseconds late; stashnet's idle timeout stamps activity
// with a coarse clock (10 ms ticks) and closes a connection no earlier
// than the timeout after its last message and at most about a tick later.
// In return a busy connection costs time's side a timer Reset per message
// and stash's side one timer firing per idle timeout.
//
// The defaults fit a busy 2-core machine. A server that falls behind reads
// messages late, and a message it has not read does not push the deadline:
// busy connections then idle out whatever the timers. The program says so
// when the server reads less than 80% of what the busy connections send.
//
// The -cpuprofile flag writes a CPU profile of each measured window.
//
// Run it with
//
//	go run ./examples/idleconns
//	go run ./examples/idleconns -conns 4000 -busy 0.25 -duration 5s -impl stash
//
// Every connection costs two file descriptors, its two ends being in one
// process: the program raises the soft RLIMIT_NOFILE to the hard limit and,
// should that not be enough, lowers -conns to fit and says so. It exits
// with status 1 if a deadline was missed or fired on a busy connection.
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
	conns    int           // connections per implementation
	busy     float64       // fraction of the connections that stay busy
	idle     time.Duration // the server's idle timeout
	interval time.Duration // how often a connection sends while it talks
	idleMsgs int           // messages an idle connection sends before it falls silent
	duration time.Duration // measured time per implementation
	impl     string        // "time", "stash" or "both"
	profile  string        // CPU profile file prefix; "" for none
}

func defaultOptions() options {
	return options{
		conns:    2000,
		busy:     0.1,
		idle:     200 * time.Millisecond,
		interval: 20 * time.Millisecond,
		idleMsgs: 3,
		duration: 3 * time.Second,
		impl:     "both",
	}
}

func main() {
	o := defaultOptions()
	flag.IntVar(&o.conns, "conns", o.conns, "number of `connections`")
	flag.Float64Var(&o.busy, "busy", o.busy, "`fraction` of the connections that stay busy")
	flag.DurationVar(&o.idle, "idle", o.idle, "the server's idle `timeout`")
	flag.DurationVar(&o.interval, "interval", o.interval, "`interval` between a connection's messages")
	flag.IntVar(&o.idleMsgs, "idlemsgs", o.idleMsgs, "`messages` an idle connection sends before it falls silent")
	flag.DurationVar(&o.duration, "duration", o.duration, "measured `time` per implementation")
	flag.StringVar(&o.impl, "impl", o.impl, "timer `implementation`: time, stash or both")
	flag.StringVar(&o.profile, "cpuprofile", o.profile, "write each implementation's CPU profile of the measured window to `prefix`.time and prefix.stash")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "idleconns: unexpected arguments %q\n", flag.Args())
		flag.Usage()
		os.Exit(2)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, o, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "idleconns:", err)
		os.Exit(1)
	}
}
