package main

import (
	"slices"
	"strings"
	"testing"
	"time"
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

// TestRatioSpread: a row's ratio is the median of its rounds' ratios, its
// range their lowest and highest, and it says parity where the range holds
// 1.0.
func TestRatioSpread(t *testing.T) {
	for _, c := range []struct {
		name          string
		ts, ss        []float64
		ratio, spread string
	}{
		{"apart", []float64{100, 110, 120}, []float64{50, 100, 60}, "2.00x", "1.10-2.00x"},
		{"straddles 1", []float64{100, 90}, []float64{95, 100}, "parity", "0.90-1.05x"},
		{"touches 1", []float64{100, 200, 300}, []float64{100, 100, 100}, "parity", "1.00-3.00x"},
		{"below 1", []float64{50, 60, 70}, []float64{100, 100, 100}, "0.60x", "0.50-0.70x"},
		{"failed round", []float64{nan, 100, 100}, []float64{1, 50, 50}, "2.00x", "2.00x"},
		{"one round", []float64{100}, []float64{50}, "2.00x", ""},
		{"stash zero", []float64{1, 2}, []float64{0, 0}, "inf", "inf"},
		{"same", []float64{272, 272}, []float64{272, 272}, "parity", "1.00x"},
		// Durations that print alike may differ: 2.1 µs and 2.1 µs.
		{"print alike", []float64{2140, 2130}, []float64{2060, 2070}, "1.03x", "1.03-1.04x"},
		{"all failed", []float64{nan, nan}, []float64{1, 1}, "-", ""},
	} {
		rw := newRow("w", "m", unitNs, c.ts, c.ss)
		if got := formatRowRatio(rw); got != c.ratio {
			t.Errorf("%s: ratio %q, want %q", c.name, got, c.ratio)
		}
		if got := formatRange(rw); got != c.spread {
			t.Errorf("%s: range %q, want %q", c.name, got, c.spread)
		}
	}
	// Bytes that print alike are the same: heap noise of under a byte.
	rw := newRow("w", "m", unitBytes, []float64{0.4, -0.2}, []float64{-0.3, 0.1})
	if got, spread := formatRowRatio(rw), formatRange(rw); got != "=" || spread != "" {
		t.Errorf("0 B against 0 B: ratio %q, range %q; want \"=\" and none", got, spread)
	}
}

// TestBlocks: samples taken in turn split into rounds of consecutive
// samples, every sample in one.
func TestBlocks(t *testing.T) {
	s := []time.Duration{1, 2, 3, 4, 5, 6, 7}
	b := blocks(s, 3)
	if len(b) != 3 || len(b[0])+len(b[1])+len(b[2]) != len(s) || b[0][0] != 1 || b[2][len(b[2])-1] != 7 {
		t.Errorf("blocks(%v, 3) = %v", s, b)
	}
	if b := blocks(s[:2], 3); len(b) != 2 {
		t.Errorf("blocks of 2 samples into 3: %v", b)
	}
	if b := blocks(nil, 3); len(b) != 1 || len(b[0]) != 0 {
		t.Errorf("blocks of none: %v", b)
	}
}

func TestPrintTableAligns(t *testing.T) {
	var b strings.Builder
	rows := []row{
		newRow("lateness 100µs", "p50 late", unitNs, []float64{1.05e6, 1.1e6, 1e6}, []float64{5e4, 5e4, 5e4}),
		{workload: "memory afterfunc N=1M", metric: "B/timer", unit: unitBytes, time: 200, stash: 100, note: "x"},
		newRow("net http short", "ns CPU/req", unitNs, []float64{30e3, 34e3}, []float64{31e3, 32e3}),
	}
	if err := printTable(&b, rows); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	// the ratio's explanation, header, rule, 3 rows, 1 note
	h := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "workload") })
	if h < 0 || !strings.Contains(lines[h], "ratio") || !strings.HasSuffix(lines[h], "range") {
		t.Fatalf("no header:\n%s", b.String())
	}
	if !strings.Contains(b.String(), "parity") {
		t.Errorf("the explanation does not say what parity means:\n%s", b.String())
	}
	r1, r2, r3 := lines[h+2], lines[h+3], lines[h+4]
	if !strings.HasSuffix(r1, "21.00x  20.00-22.00x") || !strings.HasSuffix(r2, "2.00x") ||
		!strings.HasSuffix(r3, "parity    0.97-1.06x") {
		t.Errorf("ratios and ranges not right-aligned at line end:\n%s", b.String())
	}
	if n1, n3 := len([]rune(r1)), len([]rune(r3)); n1 != n3 {
		t.Errorf("rows of different width %d, %d:\n%s", n1, n3, b.String())
	}
	if !strings.Contains(b.String(), "note: memory afterfunc N=1M / B/timer: x") {
		t.Errorf("note missing:\n%s", b.String())
	}
}
