package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"go/format"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite main_std.go from main.go")

// want is the program's output, the same for both variants.
const want = `== worker with timeouts (time.After)
job resize: done
job upload: timed out after 50ms
job notify: done
== heartbeat (time.NewTicker)
heartbeat 1 (every 5ms)
heartbeat 2 (every 5ms)
heartbeat 3 (every 5ms)
heartbeat stopped
== retry with backoff (time.NewTimer, Reset)
attempt 1: service unavailable; retrying in 1ms
attempt 2: service unavailable; retrying in 2ms
attempt 3: service unavailable; retrying in 4ms
attempt 4: service unavailable; retrying in 8ms
attempt 5: ok
== deadline (time.AfterFunc)
task import: cancelled at its 40ms deadline (not early: true)
task import: Stop after firing: false
task export: finished; deadline cancelled: true
== durations and dates
elapsed > 0: true, rounded to the hour: 0s
parsed: 1h15m30.5s <nil> = 4530.5 s
sum: 1.50025s
truncated: 1h15m0s rounded: 1h0m0s
launch: Tue, 10 Nov 2009 23:00:00 UTC - Tuesday
plus a week: 2009-11-17
in +05:30: 4:30AM
`

// The only lines in which main_std.go may differ from main.go.
const (
	stashBuild  = "//go:build !stdtime\n"
	stdBuild    = "//go:build stdtime\n"
	stashImport = "\ttime \"github.com/stashgo/stash/stashtime\"\n"
	stdImport   = "\t\"time\"\n"
	header      = "// Code generated from main.go by swap_test.go; DO NOT EDIT.\n" +
		"// Regenerate with: go test ./examples/swap -run TestStdVariantInSync -update\n\n"
)

// stdVariant derives main_std.go from main.go: the same program, with the
// build constraint inverted and package time imported instead of stashtime.
func stdVariant(src []byte) ([]byte, error) {
	s := string(src)
	if !strings.HasPrefix(s, stashBuild) {
		return nil, fmt.Errorf("main.go must begin with %q", stashBuild)
	}
	if n := strings.Count(s, stashImport); n != 1 {
		return nil, fmt.Errorf("main.go must contain the import line %q exactly once, has it %d times", stashImport, n)
	}
	s = header + stdBuild + strings.TrimPrefix(s, stashBuild)
	s = strings.Replace(s, stashImport, stdImport, 1)
	return format.Source([]byte(s))
}

// TestStdVariantInSync fails if main_std.go is not exactly the copy of
// main.go that stdVariant derives; with -update it rewrites main_std.go.
func TestStdVariantInSync(t *testing.T) {
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	gen, err := stdVariant(src)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile("main_std.go", gen, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	have, err := os.ReadFile("main_std.go")
	if err != nil {
		t.Fatal(err)
	}
	if d := lineDiff(string(have), string(gen)); d != "" {
		t.Errorf("main_std.go is out of date with main.go "+
			"(run: go test ./examples/swap -run TestStdVariantInSync -update):\n%s", d)
	}
}

// TestRun runs the program in-process, so that under -race the race detector
// watches whichever implementation this test binary was built with
// (stashtime, unless -tags stdtime).
func TestRun(t *testing.T) {
	var buf bytes.Buffer
	if err := run(&buf); err != nil {
		t.Fatal(err)
	}
	if d := lineDiff(buf.String(), want); d != "" {
		t.Errorf("output differs from the expected:\n%s", d)
	}
}

// TestBothVariants builds the program with the go command twice, against
// stashtime and against package time (-tags stdtime), runs both binaries and
// requires the same, expected, output from each.
func TestBothVariants(t *testing.T) {
	goCmd, err := exec.LookPath("go") // go test puts GOROOT/bin first in PATH
	if err != nil {
		t.Fatalf("go command not found: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	for _, v := range []struct{ name, tags string }{
		{"stashtime", ""},
		{"time", "stdtime"},
	} {
		exe := filepath.Join(dir, "swap-"+v.name)
		build := exec.CommandContext(ctx, goCmd, "build", "-tags="+v.tags, "-o", exe, ".")
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("%s: go build -tags=%q: %v\n%s", v.name, v.tags, err, out)
		}
		cmd := exec.CommandContext(ctx, exe)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Errorf("%s: running: %v\n%s", v.name, err, stderr.Bytes())
			continue
		}
		if d := lineDiff(string(out), want); d != "" {
			t.Errorf("%s: output differs from the expected:\n%s", v.name, d)
		}
	}
}

// lineDiff describes the differing lines of have and want, or returns "".
func lineDiff(have, want string) string {
	if have == want {
		return ""
	}
	h, w := strings.Split(have, "\n"), strings.Split(want, "\n")
	var b strings.Builder
	for i := 0; i < max(len(h), len(w)); i++ {
		var hl, wl string
		if i < len(h) {
			hl = h[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if hl != wl {
			fmt.Fprintf(&b, "line %d:\n\thave %q\n\twant %q\n", i+1, hl, wl)
		}
	}
	return b.String()
}
