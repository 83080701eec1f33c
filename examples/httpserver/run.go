package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"runtime"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/stashgo/stash/internal/measure"
	"github.com/stashgo/stash/stashnet"
	"github.com/stashgo/stash/stashtime"
)

// fdReserve is the file descriptors left for everything but the
// connections.
const fdReserve = 64

// A result is what one listener's run measured.
type result struct {
	impl     string
	reqs     int64         // requests served in the window
	elapsed  time.Duration // length of the window
	cpu      time.Duration // process CPU time (user+sys) in the window
	vol      int64         // the process's voluntary context switches in the window
	invol    int64         // and its involuntary ones
	fired    int64         // timers stashtime's default wheel fired in the window
	wakes    int64         // times its driver woke in the window
	failed   int64         // loaded connections that failed
	redials  int64         // loaded connections the server closed and the client dialed again
	p50, p99 time.Duration // request latency in the window, as the clients saw it
	slowCut  time.Duration // when the slow-header client was cut, from its dial
	idleShut time.Duration // when the idle connection was closed, from its request
}

func (r result) rate() float64 { return float64(r.reqs) / r.elapsed.Seconds() }

func (r result) cpuPerReq() time.Duration {
	if r.reqs == 0 {
		return 0
	}
	return r.cpu / time.Duration(r.reqs)
}

// run runs the load once per listener o selects and writes the report to
// w.
func run(ctx context.Context, o options, w io.Writer) error {
	if err := o.validate(); err != nil {
		return err
	}
	impls := []string{"net", "stash"}
	if o.impl != "both" {
		impls = []string{o.impl}
	}
	if limit, ok := fdLimit(); ok {
		if most := (int(limit) - fdReserve) / 2; o.conns > most {
			if most < 1 {
				return fmt.Errorf("open file limit %d leaves no room for connections", limit)
			}
			fmt.Fprintf(w, "note: open file limit %d allows %d connections (2 fds each), not %d\n", limit, most, o.conns)
			o.conns = most
		}
	}
	fmt.Fprintf(w, "%d keep-alive connections; ReadHeaderTimeout %v, ReadTimeout and WriteTimeout %v, IdleTimeout %v; %v per listener; GOMAXPROCS %d\n",
		o.conns, o.rht, 2*o.rht, o.idle, o.duration, runtime.GOMAXPROCS(0))
	var rs []result
	for round := range o.rounds {
		for i := range impls {
			impl := impls[i]
			if round%2 == 1 { // the other goes first
				impl = impls[len(impls)-1-i]
			}
			r, err := runImpl(ctx, impl, o)
			if err != nil {
				return fmt.Errorf("%s: %w", impl, err)
			}
			rs = append(rs, r)
		}
	}
	if err := writeReport(w, rs); err != nil {
		return err
	}
	return check(rs, o)
}

func (o options) validate() error {
	switch {
	case o.conns < 1:
		return errors.New("-conns must be at least 1")
	case o.duration <= 0 || o.rht <= 0 || o.idle <= 0:
		return errors.New("-duration, -rht and -idle must be positive")
	case o.rounds < 1:
		return errors.New("-rounds must be at least 1")
	case o.impl != "net" && o.impl != "stash" && o.impl != "both":
		return fmt.Errorf("unknown -impl %q: want net, stash or both", o.impl)
	}
	return nil
}

// runImpl serves on one kind of listener, loads it for o.duration and
// observes the two timeouts meanwhile.
func runImpl(ctx context.Context, impl string, o options) (result, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return result{}, err
	}
	var l net.Listener = ln
	if impl == "stash" {
		l = stashnet.WrapListener(ln)
	}
	var reqs atomic.Int64
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			reqs.Add(1)
			io.WriteString(w, "ok")
		}),
		ReadHeaderTimeout: o.rht,
		ReadTimeout:       2 * o.rht,
		WriteTimeout:      2 * o.rht,
		IdleTimeout:       o.idle,
		ErrorLog:          quietLog(),
	}
	served := make(chan struct{})
	go func() {
		defer close(served)
		srv.Serve(l)
	}()
	defer func() {
		srv.Close()
		<-served
	}()
	addr := ln.Addr().String()

	ld := newLoad(addr, o.redial)
	defer ld.close()
	if err := ld.dial(ctx, o.conns); err != nil {
		return result{}, err
	}

	slow := make(chan time.Duration, 1)
	idle := make(chan time.Duration, 1)
	go func() { slow <- slowHeader(addr, o.rht+o.duration+time.Minute) }()
	go func() { idle <- idleConn(addr, o.idle+o.duration+time.Minute) }()

	stopProfiles, err := startProfiles(o, impl)
	if err != nil {
		return result{}, err
	}
	wheel0 := stashtime.Default().Stats()
	cpu0, vol0, invol0 := cpuTime()
	reqs0, start := reqs.Load(), time.Now()
	ld.timing.Store(true)
	window := time.NewTimer(o.duration)
	select {
	case <-window.C:
	case <-ctx.Done():
		window.Stop()
		stopProfiles()
		return result{}, ctx.Err()
	}
	ld.timing.Store(false)
	cpu1, vol1, invol1 := cpuTime()
	wheel1 := stashtime.Default().Stats()
	stopProfiles()
	r := result{
		impl:    impl,
		cpu:     cpu1 - cpu0,
		vol:     vol1 - vol0,
		invol:   invol1 - invol0,
		reqs:    reqs.Load() - reqs0,
		elapsed: time.Since(start),
		fired:   wheel1.Fired - wheel0.Fired,
		wakes:   wheel1.Wakes - wheel0.Wakes,
	}
	ld.close()
	r.failed, r.redials = ld.failed.Load(), ld.redials.Load()
	r.p50, r.p99 = ld.latency()
	r.slowCut, r.idleShut = <-slow, <-idle
	return r, nil
}

func writeReport(w io.Writer, rs []result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "listener\treq/s\tCPU/req\tp50\tp99\tfailed conns\tredials\tslow header cut\tidle closed\t")
	for _, r := range rs {
		fmt.Fprintf(tw, "%s\t%.0f\t%v\t%v\t%v\t%d\t%d\t%v\t%v\t\n", r.impl, r.rate(), r.cpuPerReq().Round(10*time.Nanosecond),
			r.p50.Round(time.Microsecond), r.p99.Round(time.Microsecond),
			r.failed, r.redials, r.slowCut.Round(time.Millisecond), r.idleShut.Round(time.Millisecond))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range rs {
		n := float64(max(r.reqs, 1))
		fmt.Fprintf(w, "%s: %.2f voluntary and %.2f involuntary context switches/req; stashtime's wheel fired %.0f timers/s, its driver woke %.0f times/s\n",
			r.impl, float64(r.vol)/n, float64(r.invol)/n,
			float64(r.fired)/r.elapsed.Seconds(), float64(r.wakes)/r.elapsed.Seconds())
	}
	rate := map[string][]float64{}
	cpu := map[string][]float64{}
	p50 := map[string][]float64{}
	for _, r := range rs {
		rate[r.impl] = append(rate[r.impl], r.rate())
		cpu[r.impl] = append(cpu[r.impl], float64(r.cpuPerReq()))
		p50[r.impl] = append(p50[r.impl], float64(r.p50))
	}
	if len(rate["net"]) == 0 || len(rate["stash"]) == 0 {
		return nil
	}
	of := ""
	if n := len(rate["net"]); n > 1 {
		of = fmt.Sprintf(" (medians of %d runs each)", n)
	}
	ratio := func(m map[string][]float64) float64 { return measure.Median(m["stash"]) / measure.Median(m["net"]) }
	_, err := fmt.Fprintf(w, "stash/net: req/s %.2fx, CPU/req %.2fx, p50 latency %.2fx%s\n", ratio(rate), ratio(cpu), ratio(p50), of)
	return err
}

// check fails unless each run observed both timeouts, neither early, and
// no loaded connection failed.
func check(rs []result, o options) error {
	var errs []error
	for _, r := range rs {
		switch {
		case r.slowCut < 0:
			errs = append(errs, fmt.Errorf("%s: the slow-header client was never cut", r.impl))
		case r.slowCut < o.rht:
			errs = append(errs, fmt.Errorf("%s: the slow-header client was cut after %v, before ReadHeaderTimeout %v", r.impl, r.slowCut, o.rht))
		}
		switch {
		case r.idleShut < 0:
			errs = append(errs, fmt.Errorf("%s: the idle connection was never closed", r.impl))
		case r.idleShut < o.idle:
			errs = append(errs, fmt.Errorf("%s: the idle connection was closed after %v, before IdleTimeout %v", r.impl, r.idleShut, o.idle))
		}
		if r.failed > 0 {
			errs = append(errs, fmt.Errorf("%s: %d loaded connections failed", r.impl, r.failed))
		}
	}
	return errors.Join(errs...)
}
