package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

// TestRun runs both listeners in-process with a small load and checks the
// report: both timeouts observed, none early, no loaded connection lost.
func TestRun(t *testing.T) {
	o := options{
		conns:    50,
		duration: 500 * time.Millisecond,
		rht:      200 * time.Millisecond,
		idle:     300 * time.Millisecond,
		impl:     "both",
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out bytes.Buffer
	err := run(ctx, o, &out)
	t.Logf("output:\n%s", &out)
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]bool{}
	for line := range strings.Lines(out.String()) {
		if f := strings.Fields(line); len(f) == 7 {
			rows[f[0]] = true
		}
	}
	for _, impl := range []string{"net", "stash"} {
		if !rows[impl] {
			t.Errorf("no row for %s", impl)
		}
	}
	if !strings.Contains(out.String(), "stash/net: req/s ") {
		t.Error("no stash/net ratio line")
	}
}

func TestOptions(t *testing.T) {
	for _, edit := range []func(*options){
		func(o *options) { o.conns = 0 },
		func(o *options) { o.duration = 0 },
		func(o *options) { o.idle = -1 },
		func(o *options) { o.impl = "heap" },
	} {
		o := defaultOptions()
		edit(&o)
		if err := run(context.Background(), o, &bytes.Buffer{}); err == nil {
			t.Errorf("run accepted %+v", o)
		}
	}
}
