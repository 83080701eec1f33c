// Code generated from main.go by swap_test.go; DO NOT EDIT.
// Regenerate with: go test ./examples/swap -run TestStdVariantInSync -update

//go:build stdtime

// Command swap is an ordinary program written against package time, built
// against stashtime by changing only its import line. Built with
// -tags stdtime it uses the standard library instead (main_std.go, a copy of
// this file kept in sync by swap_test.go), and both print the same thing.
//
// The output lists events only, never measured times, so it is
// deterministic: every race below is between a timeout and work at least
// 20x shorter, or work that never finishes.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"time"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "swap:", err)
		os.Exit(1)
	}
}

// run executes each scenario in turn, printing events to w.
func run(w io.Writer) error {
	start := time.Now()
	quit := make(chan struct{}) // releases work that never finishes by itself
	defer close(quit)

	fmt.Fprintln(w, "== worker with timeouts (time.After)")
	worker(w, quit)

	fmt.Fprintln(w, "== heartbeat (time.NewTicker)")
	heartbeat(w)

	fmt.Fprintln(w, "== retry with backoff (time.NewTimer, Reset)")
	if err := retry(w); err != nil {
		return err
	}

	fmt.Fprintln(w, "== deadline (time.AfterFunc)")
	deadline(w, quit)

	fmt.Fprintln(w, "== durations and dates")
	formatting(w, start)
	return nil
}

type job struct {
	name    string
	work    time.Duration // < 0: never finishes
	timeout time.Duration
}

// worker runs each job with its own timeout, using time.After in a select.
func worker(w io.Writer, quit <-chan struct{}) {
	jobs := []job{
		{"resize", time.Millisecond, time.Second},
		{"upload", -1, 50 * time.Millisecond},
		{"notify", 0, time.Second},
	}
	for _, j := range jobs {
		done := make(chan struct{})
		go func() {
			switch {
			case j.work < 0:
				<-quit
				return
			case j.work > 0:
				time.Sleep(j.work)
			}
			close(done)
		}()
		select {
		case <-done:
			fmt.Fprintf(w, "job %s: done\n", j.name)
		case <-time.After(j.timeout):
			fmt.Fprintf(w, "job %s: timed out after %v\n", j.name, j.timeout)
		}
	}
}

// heartbeat waits for three beats of a ticker, stops it, and checks that no
// tick arrives afterwards (since Go 1.23, Stop discards an unreceived tick).
func heartbeat(w io.Writer) {
	const period = 5 * time.Millisecond
	t := time.NewTicker(period)
	for beat := 1; beat <= 3; beat++ {
		<-t.C
		fmt.Fprintf(w, "heartbeat %d (every %v)\n", beat, period)
	}
	t.Stop()
	select {
	case <-t.C:
		fmt.Fprintln(w, "heartbeat: tick after Stop!")
	case <-time.After(4 * period):
		fmt.Fprintln(w, "heartbeat stopped")
	}
}

var errUnavailable = errors.New("service unavailable")

// retry calls a flaky operation with exponential backoff, reusing one timer.
func retry(w io.Writer) error {
	const (
		maxAttempts = 6
		base        = time.Millisecond
		limit       = 8 * time.Millisecond
	)
	calls := 0
	op := func() error { // succeeds on the fifth call
		calls++
		if calls < 5 {
			return errUnavailable
		}
		return nil
	}

	backoff := base
	var timer *time.Timer
	for attempt := 1; attempt <= maxAttempts; attempt++ {
		err := op()
		if err == nil {
			fmt.Fprintf(w, "attempt %d: ok\n", attempt)
			return nil
		}
		fmt.Fprintf(w, "attempt %d: %v; retrying in %v\n", attempt, err, backoff)
		if timer == nil {
			timer = time.NewTimer(backoff)
		} else {
			timer.Reset(backoff) // fired and received: no drain needed
		}
		<-timer.C
		backoff = min(2*backoff, limit)
	}
	return fmt.Errorf("gave up after %d attempts", maxAttempts)
}

// deadline cancels a task that overruns its deadline with time.AfterFunc, and
// cancels the deadline of a task that finishes in time.
func deadline(w io.Writer, quit <-chan struct{}) {
	for _, task := range []job{
		{"import", -1, 40 * time.Millisecond},
		{"export", time.Millisecond, time.Second},
	} {
		began := time.Now()
		expired := make(chan struct{})
		d := time.AfterFunc(task.timeout, func() { close(expired) })

		finished := make(chan struct{})
		go func() {
			if task.work < 0 {
				<-quit
				return
			}
			time.Sleep(task.work)
			close(finished)
		}()

		select {
		case <-finished:
			fmt.Fprintf(w, "task %s: finished; deadline cancelled: %t\n", task.name, d.Stop())
		case <-expired:
			fmt.Fprintf(w, "task %s: cancelled at its %v deadline (not early: %t)\n",
				task.name, task.timeout, time.Since(began) >= task.timeout)
			fmt.Fprintf(w, "task %s: Stop after firing: %t\n", task.name, d.Stop())
		}
	}
}

// formatting shows Duration and Time values, never measured ones.
func formatting(w io.Writer, start time.Time) {
	elapsed := time.Since(start)
	fmt.Fprintf(w, "elapsed > 0: %t, rounded to the hour: %v\n", elapsed > 0, elapsed.Round(time.Hour))

	d, err := time.ParseDuration("1h15m30.5s")
	fmt.Fprintln(w, "parsed:", d, err, "=", d.Seconds(), "s")
	fmt.Fprintln(w, "sum:", 1500*time.Millisecond+250*time.Microsecond)
	fmt.Fprintln(w, "truncated:", d.Truncate(time.Minute), "rounded:", d.Round(time.Hour))

	launch := time.Date(2009, time.November, 10, 23, 0, 0, 0, time.UTC)
	fmt.Fprintln(w, "launch:", launch.Format(time.RFC1123), "-", launch.Weekday())
	fmt.Fprintln(w, "plus a week:", launch.Add(7*24*time.Hour).Format(time.DateOnly))
	fmt.Fprintln(w, "in +05:30:", launch.In(time.FixedZone("IST", 5*3600+1800)).Format(time.Kitchen))
}
