package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"time"

	"github.com/stashgo/stash/stashtime"
)

// fdReserve is the file descriptors left for everything but the
// connections: the listener, the poller, standard streams, the test binary.
const fdReserve = 64

// run runs the workload once per implementation that o selects and writes
// the report to w. It fails if o is invalid, a run cannot set up its
// connections, ctx is done, or a deadline was missed or fired on a busy
// connection.
func run(ctx context.Context, o options, w io.Writer) error {
	if err := o.validate(); err != nil {
		return err
	}
	ims, err := selectImpls(o.impl)
	if err != nil {
		return err
	}
	if limit, ok := fdLimit(); ok {
		// Each connection has both its ends in this process.
		if most := (int(limit) - fdReserve) / 2; o.conns > most {
			if most < 1 {
				return fmt.Errorf("open file limit %d leaves no room for connections", limit)
			}
			fmt.Fprintf(w, "note: open file limit %d allows %d connections (2 fds each), not %d\n", limit, most, o.conns)
			o.conns = most
		}
	}
	nb := busyCount(o.conns, o.busy)
	fmt.Fprintf(w, "%d connections: %d busy (a message every %v), %d idle after %d messages; idle timeout %v; %v per impl; GOMAXPROCS %d\n",
		o.conns, nb, o.interval, o.conns-nb, o.idleMsgs, o.idle, o.duration, runtime.GOMAXPROCS(0))

	var rs []result
	for _, im := range ims {
		r, err := runImpl(ctx, im, o)
		if err != nil {
			return fmt.Errorf("%s: %w", im.name, err)
		}
		rs = append(rs, r)
	}
	if err := writeReport(w, rs); err != nil {
		return err
	}
	return check(rs)
}

func (o options) validate() error {
	switch {
	case o.conns < 1:
		return errors.New("-conns must be at least 1")
	case o.busy < 0 || o.busy > 1:
		return errors.New("-busy must be between 0 and 1")
	case o.interval <= 0 || o.idle <= 0 || o.duration <= 0:
		return errors.New("-interval, -idle and -duration must be positive")
	case o.interval >= o.idle:
		return errors.New("-interval must be shorter than -idle, or busy connections idle out")
	case o.idleMsgs < 1:
		return errors.New("-idlemsgs must be at least 1")
	}
	return nil
}

// startProfile starts a CPU profile into prefix.name, unless prefix is
// empty, and returns the function that stops it and closes the file.
func startProfile(prefix, name string) (stop func() error, err error) {
	if prefix == "" {
		return func() error { return nil }, nil
	}
	f, err := os.Create(prefix + "." + name)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() error {
		pprof.StopCPUProfile()
		return f.Close()
	}, nil
}

// runImpl runs the workload with one implementation. The measured window
// opens once every connection is open and lasts o.duration; afterwards the
// busy connections hang up and the idle ones get time to be closed by
// their deadlines. The server and client close idempotently: the deferred
// calls clean up after a failure, the explicit ones before the counting.
func runImpl(ctx context.Context, im impl, o options) (result, error) {
	srv, err := listen(im, o.idle)
	if err != nil {
		return result{}, err
	}
	defer srv.close()
	cl := newClient(o)
	stopped := false
	defer func() {
		if !stopped {
			cl.stopBusy()
		}
		cl.close()
	}()
	dialStart := time.Now()
	if err := cl.dial(ctx, srv.addr()); err != nil {
		return result{}, err
	}
	dialed := time.Since(dialStart)

	stopProfile, err := startProfile(o.profile, im.name)
	if err != nil {
		return result{}, err
	}
	wheel0 := stashtime.Default().Stats()
	cpu0, csw0 := cpuTime()
	msgs0, start := srv.msgs.Load(), time.Now()
	window := time.NewTimer(o.duration)
	select {
	case <-window.C:
	case <-ctx.Done():
		window.Stop()
		stopProfile()
		return result{}, ctx.Err()
	}
	cpu1, csw1 := cpuTime()
	msgs1, elapsed := srv.msgs.Load(), time.Since(start)
	wheel1 := stashtime.Default().Stats()
	if err := stopProfile(); err != nil {
		return result{}, err
	}

	cl.stopBusy()
	stopped = true
	// The last idle connections to open fall silent after idleMsgs-1
	// intervals and should close an idle timeout later: allow that twice
	// over, and a second for a loaded machine.
	grace := time.Duration(o.idleMsgs)*o.interval + 2*o.idle + time.Second
	cl.waitIdle(ctx, grace)
	if err := ctx.Err(); err != nil {
		return result{}, err
	}
	cl.close()
	srv.close()
	// Every deadline is now stopped or has fired; give one that fires
	// regardless the time to show itself.
	linger := time.NewTimer(o.idle)
	select {
	case <-linger.C:
	case <-ctx.Done():
		linger.Stop()
		return result{}, ctx.Err()
	}

	r := result{
		impl:       im.name,
		conns:      o.conns,
		busy:       busyCount(o.conns, o.busy),
		offered:    float64(busyCount(o.conns, o.busy)) / o.interval.Seconds(),
		msgs:       msgs1 - msgs0,
		elapsed:    elapsed,
		cpu:        cpu1 - cpu0,
		switches:   csw1 - csw0,
		idleClosed: srv.idleClosed.Load(),
		busyClosed: srv.busyClosed.Load(),
		early:      srv.early.Load(),
		afterStop:  srv.afterStop.Load(),
		dialed:     dialed,
		fired:      wheel1.Fired - wheel0.Fired,
		wakes:      wheel1.Wakes - wheel0.Wakes,
	}
	r.lateP50, r.lateMax = srv.lateness()
	return r, nil
}
