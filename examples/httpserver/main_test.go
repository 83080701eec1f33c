package main

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestRun runs both listeners in-process twice, in alternating order, with
// a small load and checks the report: both timeouts observed, none early,
// no loaded connection lost, a row per run and the ratio of the medians.
func TestRun(t *testing.T) {
	o := options{
		conns:    50,
		duration: 300 * time.Millisecond,
		rht:      200 * time.Millisecond,
		idle:     300 * time.Millisecond,
		impl:     "both",
		rounds:   2,
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out bytes.Buffer
	err := run(ctx, o, &out)
	t.Logf("output:\n%s", &out)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for line := range strings.Lines(out.String()) {
		if f := strings.Fields(line); len(f) == 9 && (f[0] == "net" || f[0] == "stash") {
			order = append(order, f[0])
		}
	}
	if want := []string{"net", "stash", "stash", "net"}; !slices.Equal(order, want) {
		t.Errorf("rows %v, want %v", order, want)
	}
	if !strings.Contains(out.String(), "stash/net: req/s ") || !strings.Contains(out.String(), "p50 latency") || !strings.Contains(out.String(), "(medians of 2 runs each)") {
		t.Error("no stash/net ratio line of the medians")
	}
}

func TestOptions(t *testing.T) {
	for _, edit := range []func(*options){
		func(o *options) { o.conns = 0 },
		func(o *options) { o.duration = 0 },
		func(o *options) { o.idle = -1 },
		func(o *options) { o.impl = "heap" },
		func(o *options) { o.rounds = 0 },
	} {
		o := defaultOptions()
		edit(&o)
		if err := run(context.Background(), o, &bytes.Buffer{}); err == nil {
			t.Errorf("run accepted %+v", o)
		}
	}
}
