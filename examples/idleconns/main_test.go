package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// TestRun runs both implementations in-process with a small workload and
// checks each row of the report: every idle connection closed by its
// deadline, no busy one. The idle timeout is ten busy intervals, so a busy
// connection survives a stall of a quarter second.
func TestRun(t *testing.T) {
	o := options{
		conns:    200,
		busy:     0.25,
		idle:     300 * time.Millisecond,
		interval: 30 * time.Millisecond,
		idleMsgs: 3,
		duration: time.Second,
		impl:     "both",
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	fds := openFDs(t)
	var out bytes.Buffer
	err := run(ctx, o, &out)
	t.Logf("output:\n%s", &out)
	if err != nil {
		t.Fatal(err)
	}
	// The runtime's network poller and stashtime's wheel may have opened
	// a few descriptors for good; the 400 sockets must all be closed.
	if after := openFDs(t); after > fds+8 {
		t.Errorf("%d file descriptors open before run, %d after", fds, after)
	}

	rows := map[string][]string{}
	for line := range strings.Lines(out.String()) {
		if f := strings.Fields(line); len(f) == 8 {
			rows[f[0]] = f
		}
	}
	for _, name := range []string{"time", "stash"} {
		f, ok := rows[name]
		if !ok {
			t.Errorf("no row for %s", name)
			continue
		}
		if got, want := f[1], "200"; got != want {
			t.Errorf("%s: conns = %s, want %s", name, got, want)
		}
		if got, want := f[4], "150/150"; got != want {
			t.Errorf("%s: idle closed = %s, want %s", name, got, want)
		}
		if got := f[5]; got != "0" {
			t.Errorf("%s: busy closed = %s, want 0", name, got)
		}
	}
	if !strings.Contains(out.String(), "stash/time: msgs/s ") {
		t.Error("no stash/time ratio line")
	}
}

// A brokenTimer misbehaves on purpose: with early, Reset arms the timer
// for a quarter of the duration asked; with unstoppable, Stop reports
// success and stops nothing.
type brokenTimer struct {
	t                  *time.Timer
	early, unstoppable bool
}

func (b *brokenTimer) Reset(d time.Duration) bool {
	if b.early {
		d /= 4
	}
	return b.t.Reset(d)
}

func (b *brokenTimer) Stop() bool {
	if b.unstoppable {
		return true
	}
	return b.t.Stop()
}

// TestBrokenTimers checks that the run notices a timer firing early and one
// firing after Stop.
func TestBrokenTimers(t *testing.T) {
	o := options{
		conns:    100,
		busy:     0.5,
		idle:     300 * time.Millisecond,
		interval: 30 * time.Millisecond,
		idleMsgs: 3,
		duration: 500 * time.Millisecond,
	}
	for _, tc := range []struct {
		name string
		b    brokenTimer
		want string
	}{
		{"early", brokenTimer{early: true}, "fired less than the idle timeout"},
		{"unstoppable", brokenTimer{unstoppable: true}, "fired after Stop"},
	} {
		im := impl{tc.name, func(d time.Duration, f func()) timer {
			b := tc.b
			b.t = time.AfterFunc(d, f)
			return &b
		}}
		r, err := runImpl(context.Background(), im, o)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		err = check([]result{r})
		t.Logf("%s: %v", tc.name, err)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: check = %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
}

// openFDs returns how many file descriptors the process has open, or skips
// the test where /proc does not tell.
func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("cannot count open files: %v", err)
	}
	return len(ents)
}

// TestOptions checks that run rejects options it cannot honour before it
// opens anything.
func TestOptions(t *testing.T) {
	good := defaultOptions()
	for _, tc := range []struct {
		name string
		edit func(*options)
	}{
		{"no conns", func(o *options) { o.conns = 0 }},
		{"busy above 1", func(o *options) { o.busy = 1.5 }},
		{"interval not below idle", func(o *options) { o.interval = o.idle }},
		{"zero duration", func(o *options) { o.duration = 0 }},
		{"no idle messages", func(o *options) { o.idleMsgs = 0 }},
		{"unknown impl", func(o *options) { o.impl = "heap" }},
	} {
		o := good
		tc.edit(&o)
		var out bytes.Buffer
		if err := run(context.Background(), o, &out); err == nil {
			t.Errorf("%s: run succeeded, output:\n%s", tc.name, &out)
		}
	}
}

func TestIsBusy(t *testing.T) {
	for _, tc := range []struct {
		n    int
		busy float64
		want string
	}{
		{4, 0.5, "IBIB"},
		{5, 0, "IIIII"},
		{5, 1, "BBBBB"},
		{10, 0.2, "IIIIBIIIIB"},
	} {
		var got strings.Builder
		for i := range tc.n {
			if isBusy(i, tc.n, tc.busy) {
				got.WriteByte('B')
			} else {
				got.WriteByte('I')
			}
		}
		if got.String() != tc.want {
			t.Errorf("isBusy over %d at %v = %s, want %s", tc.n, tc.busy, &got, tc.want)
		}
		if n := strings.Count(got.String(), "B"); n != busyCount(tc.n, tc.busy) {
			t.Errorf("%d busy, busyCount says %d", n, busyCount(tc.n, tc.busy))
		}
	}
}
