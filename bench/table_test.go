package main

import (
	"strings"
	"testing"
)

func TestFormat(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{formatNs(12.34), "12.3 ns"},
		{formatNs(45600), "45.6 µs"},
		{formatNs(1.05e6), "1.05 ms"},
		{formatNs(2.5e9), "2.50 s"},
		{formatValue(nan, unitNs), "failed"},
		{formatValue(152.4, unitBytes), "152 B"},
		{formatRatio(200, 100), "2.00x"},
		{formatRatio(0, 0), "="},
		{formatRatio(1, 0), "inf"},
		{formatRatio(nan, 1), "-"},
		{formatValue(-0.2, unitBytes), "0 B"},
		{formatRatio(-0.2, 430), "0.00x"},
		{formatRatio(98.6, -0.2), "inf"},
		{formatRatio(-1, -0.2), "="},
		{formatRowRatio(row{unit: unitBytes, time: -0.2, stash: 0.4}), "="},
		{formatRowRatio(row{unit: unitBytes, time: 104, stash: 65}), "1.60x"},
		// A retained-bytes figure below zero (noise) prints as zero, in
		// the value and in the ratio.
		{formatValue(-1, unitBytes), "0 B"},
		{formatValue(-37.6, unitBytes), "0 B"},
		{formatRowRatio(row{unit: unitBytes, time: -1, stash: 0}), "="},
		{formatRowRatio(row{unit: unitBytes, time: 3, stash: -1}), "inf"},
		{formatRowRatio(row{unit: unitBytes, time: -1, stash: 4}), "0.00x"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

func TestPrintTableAligns(t *testing.T) {
	var b strings.Builder
	rows := []row{
		{workload: "lateness 100µs", metric: "p50 late", unit: unitNs, time: 1.05e6, stash: 5e4},
		{workload: "memory afterfunc N=1M", metric: "B/timer", unit: unitBytes, time: 200, stash: 100, note: "x"},
	}
	if err := printTable(&b, rows); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	// header line, title, rule, 2 rows, 1 note
	if !strings.Contains(lines[1], "workload") || !strings.Contains(lines[1], "ratio") {
		t.Fatalf("no header: %q", lines[1])
	}
	if !strings.HasSuffix(lines[3], "21.00x") || !strings.HasSuffix(lines[4], "2.00x") {
		t.Errorf("ratios not right-aligned at line end:\n%s", b.String())
	}
	if n1, n2 := len([]rune(lines[3])), len([]rune(lines[4])); n1 != n2 {
		t.Errorf("rows of different width %d, %d:\n%s", n1, n2, b.String())
	}
	if !strings.Contains(b.String(), "note: memory afterfunc N=1M / B/timer: x") {
		t.Errorf("note missing:\n%s", b.String())
	}
}
