package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestQuickRun runs the program's quickest mode in-process and checks that
// it prints every row of the table and writes every plot.
func TestQuickRun(t *testing.T) {
	cfg, err := parseFlags([]string{"-quick", "-out", t.TempDir()}, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if err := run(cfg, &stdout, &stderr); err != nil {
		t.Fatalf("run: %v\nstderr:\n%s", err, stderr.String())
	}
	out := stdout.String()
	t.Logf("table:\n%s", out)

	want := [][2]string{
		{"afterfunc-stop live=0", "ns/op"},
		{"afterfunc-stop live=0", "allocs/op"},
		{"afterfunc-stop live=1k", "ns/op"},
		{"afterfunc-stop live=10k", "ns/op"},
		{"newtimer-stop live=0", "ns/op"},
		{"newtimer-stop live=0", "allocs/op"},
		{"newtimer-stop live=1k", "ns/op"},
		{"newtimer-stop live=10k", "ns/op"},
		{"reset-later live=1k", "ns/op serial"},
		{"reset-later live=1k", "ns/op parallel"},
		{"memory afterfunc N=10k", "B/timer, d in [1h,2h)"},
		{"memory newtimer N=10k", "B/timer, d in [1h,2h)"},
		{"memory stopped N=10k", "B retained/timer, d in [1h,2h)"},
		{"drain 10k", "deadline to last callback"},
		{"burst 10k", "first callback late"},
		{"burst 10k", "last callback late"},
		{"lateness 100µs", "p50 late"},
		{"lateness 100µs", "p99 late"},
		{"lateness 1ms", "p50 late"},
		{"lateness 1ms", "p99 late"},
		{"lateness 10ms", "p50 late"},
		{"lateness 10ms", "p99 late"},
		{"request timeout 1k live", "ns wall/req"},
		{"request timeout 1k live", "ns CPU/req"},
		{"request timeout 10k live", "ns wall/req"},
		{"request timeout 10k live", "ns CPU/req"},
		{"churn 2k Reset sooner/later", "CPU/loop"},
		{"churn 2k Reset sooner/later, the Resets", "CPU/loop - floor"},
		{"withtimeout-cancel live=0", "ns/op"},
		{"withtimeout-cancel live=0", "B/op"},
		{"withtimeout-cancel live=10k", "ns/op"},
		{"withtimeout-cancel live=10k", "B/op"},
		{"withtimeout-cancel std parent", "ns/op"},
		{"withtimeout-cancel std parent", "B/op"},
		{"withtimeout-cancel std parent", "ns/op, Done"},
		{"withtimeout-cancel std parent", "B/op, Done"},
		{"http WithTimeout(r.Context())", "ns wall/req"},
		{"http WithTimeout(r.Context())", "ns CPU/req"},
	}
	lines := strings.Split(out, "\n")
	for _, w := range want {
		found := false
		for _, l := range lines {
			rest, ok := strings.CutPrefix(l, w[0]+" ")
			if !ok || !strings.HasPrefix(strings.TrimLeft(rest, " "), w[1]) {
				continue
			}
			found = true
			if f := strings.Fields(rest); strings.Contains(rest, "failed") || f[len(f)-1] == "-" {
				t.Errorf("row %q %q has a failed measurement: %q", w[0], w[1], l)
			}
		}
		if !found {
			t.Errorf("no row %q %q", w[0], w[1])
		}
	}
	if !strings.Contains(out, "ratio > 1 means stash is better") {
		t.Errorf("table header does not say which way the ratio goes")
	}
	// Rows where both sides run package time's code are not measured.
	for _, same := range []string{"sleep 100x1ms", "sleep 1000x10ms", "own Sleep"} {
		if strings.Contains(out, same) {
			t.Errorf("a row %q, where both sides run the same code", same)
		}
	}

	for _, name := range []string{plotLateness, plotNsVsLive} {
		p := filepath.Join(cfg.out, name)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Errorf("plot: %v", err)
			continue
		}
		if len(b) < 1000 || !bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) {
			t.Errorf("%s: not a PNG with content (%d bytes)", name, len(b))
		}
	}
}

func TestParseFlags(t *testing.T) {
	var sink bytes.Buffer
	c, err := parseFlags([]string{"-only", "drain, lateness", "-out", "x"}, &sink)
	if err != nil {
		t.Fatal(err)
	}
	if c.mode != "default" || c.out != "x" || len(c.only) != 2 || c.only[0] != "drain" || c.only[1] != "lateness" {
		t.Errorf("parsed %+v", c)
	}
	for _, bad := range [][]string{{"-only", "nosuch"}, {"-quick", "-long"}, {"extra"}} {
		if _, err := parseFlags(bad, &sink); err == nil {
			t.Errorf("parseFlags(%q) accepted", bad)
		}
	}
	if c, err := parseFlags(nil, &sink); err != nil || c.out != "bench/out" {
		t.Errorf("defaults: %+v, %v", c, err)
	}
}
