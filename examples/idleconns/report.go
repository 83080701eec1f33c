package main

import (
	"errors"
	"fmt"
	"io"
	"text/tabwriter"
	"time"
)

// A result is what one implementation's run measured.
type result struct {
	impl       string
	conns      int
	busy       int           // busy connections; the rest are idle
	offered    float64       // messages per second the busy connections send
	msgs       int64         // messages the server received in the window
	elapsed    time.Duration // length of the window
	cpu        time.Duration // process CPU time (user+sys) in the window
	switches   int64         // the process's context switches in the window
	idleClosed int64         // idle connections closed by their deadline
	busyClosed int64         // busy connections closed by their deadline
	lateP50    time.Duration // median lateness of the idle closes
	lateMax    time.Duration // worst lateness of the idle closes
	early      int64         // deadlines that fired too soon
	afterStop  int64         // deadlines that fired after a successful Stop
	dialed     time.Duration // how long opening the connections took
	fired      int64         // timers stashtime's default wheel fired in the window
	wakes      int64         // times its driver woke in the window
}

func (r result) idle() int { return r.conns - r.busy }

// rate is the server's messages per second.
func (r result) rate() float64 { return float64(r.msgs) / r.elapsed.Seconds() }

// cpuPerMsg is the process's CPU time per message, client included.
func (r result) cpuPerMsg() time.Duration {
	if r.msgs == 0 {
		return 0
	}
	return r.cpu / time.Duration(r.msgs)
}

// writeReport writes a row per result, then the ratios of the second
// result's rate and CPU per message to the first's.
func writeReport(w io.Writer, rs []result) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "impl\tconns\tmsgs/s\tCPU/msg\tidle closed\tbusy closed\tlate p50\tlate max\t")
	for _, r := range rs {
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%v\t%d/%d\t%d\t%v\t%v\t\n",
			r.impl, r.conns, r.rate(), r.cpuPerMsg().Round(10*time.Nanosecond),
			r.idleClosed, r.idle(), r.busyClosed,
			r.lateP50.Round(time.Microsecond), r.lateMax.Round(time.Microsecond))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, r := range rs {
		fmt.Fprintf(w, "%s: connections opened in %v; %.2f context switches/msg; stashtime's wheel fired %.0f timers/s, its driver woke %.0f times/s\n",
			r.impl, r.dialed.Round(time.Millisecond), float64(r.switches)/float64(max(r.msgs, 1)),
			float64(r.fired)/r.elapsed.Seconds(), float64(r.wakes)/r.elapsed.Seconds())
		// Below this the server is falling behind, and a message it has
		// yet to read does not push a deadline: busy connections idle out.
		if r.rate() < 0.8*r.offered {
			fmt.Fprintf(w, "note: %s: the server read %.0f%% of the %.0f msgs/s the busy connections send; the machine could not keep up (try fewer -conns or a smaller -busy)\n",
				r.impl, 100*r.rate()/r.offered, r.offered)
		}
	}
	if len(rs) == 2 {
		base, r := rs[0], rs[1]
		_, err := fmt.Fprintf(w, "%s/%s: msgs/s %.2fx, CPU/msg %.2fx\n",
			r.impl, base.impl, r.rate()/base.rate(),
			float64(r.cpuPerMsg())/float64(base.cpuPerMsg()))
		return err
	}
	return nil
}

// check fails unless every idle connection was closed by its deadline, no
// busy one was, and no timer fired early or after being stopped.
func check(rs []result) error {
	var errs []error
	for _, r := range rs {
		if r.idleClosed != int64(r.idle()) {
			errs = append(errs, fmt.Errorf("%s: %d of %d idle connections closed by their deadline", r.impl, r.idleClosed, r.idle()))
		}
		if r.busyClosed != 0 {
			errs = append(errs, fmt.Errorf("%s: %d busy connections closed by a deadline", r.impl, r.busyClosed))
		}
		if r.early != 0 {
			errs = append(errs, fmt.Errorf("%s: %d deadlines fired less than the idle timeout after a Reset that reported it had stopped the previous one", r.impl, r.early))
		}
		if r.afterStop != 0 {
			errs = append(errs, fmt.Errorf("%s: %d deadlines fired after Stop reported stopping them", r.impl, r.afterStop))
		}
	}
	return errors.Join(errs...)
}
